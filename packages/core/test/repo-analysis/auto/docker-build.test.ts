import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { buildLocalBaseImages, docker, dockerForTests, freePort, waitForHttp, type LocalBaseImages } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectAutoBuild, type AutoBuildPlan } from "../../../src/repo-analysis/auto/detect.js";
import { sourceTreeFromFiles } from "../../../src/repo-analysis/source-tree.js";

/**
 * The Dockerfiles Reposite writes, built and run on the real engine. No registry is reachable, so
 * the base images are made locally and mapped through the base-image option, the way an operator
 * maps a private mirror. The fixtures carry no dependencies: builds cannot download packages here.
 */
const engine = await dockerForTests();

describe.skipIf(!engine.available)("written Dockerfiles on a real Docker engine", () => {
  let base: LocalBaseImages;
  const containers: string[] = [];
  const images: string[] = [];
  const folders: string[] = [];

  beforeAll(async () => {
    base = await buildLocalBaseImages();
  }, 180_000);

  afterAll(async () => {
    if (containers.length > 0) await docker(["rm", "-f", ...containers]).catch(() => undefined);
    if (images.length > 0) await docker(["rmi", "-f", ...images]).catch(() => undefined);
    await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
  }, 60_000);

  /** Writes the repository and Reposite's context files, builds the written Dockerfile, runs it on a PORT other than 3000. */
  async function buildAndRun(files: Record<string, string>): Promise<{ plan: AutoBuildPlan; url: string; container: string }> {
    const plan = detectAutoBuild(sourceTreeFromFiles(files), {
      baseImages: { node: base.node, bun: base.node, static: base.node, runtime: base.busybox },
    });
    if (!plan.auto.found) throw new Error(`nothing detected: ${plan.auto.reason}`);
    for (const line of plan.auto.dockerfile.split("\n").filter((text) => text.startsWith("FROM "))) {
      expect(line).toMatch(new RegExp(`^FROM ${base.node}( AS \\w+)?$`));
    }

    const folder = await mkdtemp(join(tmpdir(), "reposite-auto-"));
    folders.push(folder);
    const context = join(folder, "context");
    for (const [path, content] of Object.entries({ ...files, ...plan.contextFiles })) {
      await mkdir(dirname(join(context, path)), { recursive: true });
      await writeFile(join(context, path), content);
    }
    const dockerfile = join(folder, "Dockerfile");
    await writeFile(dockerfile, plan.auto.dockerfile);

    const tag = `reposite-test/auto-build:${randomBytes(6).toString("hex")}`;
    images.push(tag);
    await docker(["build", "--quiet", "--tag", tag, "--file", dockerfile, context], { timeoutMs: 120_000 });

    let port = await freePort();
    while (port === 3000) port = await freePort();
    const { stdout } = await docker(["run", "--detach", "--memory", "256m", "--publish", `127.0.0.1:${port}:${port}`, "--env", `PORT=${port}`, tag]);
    const container = stdout.trim();
    containers.push(container);
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitForHttp(`${url}/`, { timeoutMs: 30_000 });
    } catch (error) {
      const logs = await docker(["logs", container]).catch(() => ({ stdout: "", stderr: "" }));
      throw new Error(`${String(error)}\ncontainer logs:\n${logs.stdout}${logs.stderr}`);
    }
    return { plan, url, container };
  }

  async function expectNonRoot(container: string, user: string): Promise<void> {
    const { stdout: uid } = await docker(["exec", container, "id", "-u"]);
    expect(uid.trim()).not.toBe("0");
    const { stdout: configured } = await docker(["inspect", "--format", "{{.Config.User}}", container]);
    expect(configured.trim()).toBe(user);
  }

  it("serves a plain index.html on $PORT, as a non-root user", async () => {
    const { plan, url, container } = await buildAndRun({
      "index.html": '<!doctype html><link rel="stylesheet" href="style.css"><h1>Plain page</h1>\n',
      "style.css": "h1 { color: teal }\n",
    });
    expect(plan.auto).toMatchObject({ found: true, name: "Static site", output: "." });

    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await page.text()).toContain("<h1>Plain page</h1>");
    const css = await fetch(`${url}/style.css`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await css.text()).toBe("h1 { color: teal }\n");
    expect(await (await fetch(`${url}/health`)).text()).toBe("ok\n");
    expect((await fetch(`${url}/.reposite/serve.mjs`)).status).toBe(404);
    await expectNonRoot(container, "node");
  });

  it("answers a single-page app's deep links with index.html and 200, and missing assets with 404", async () => {
    const { plan, url, container } = await buildAndRun({
      "public/index.html": '<!doctype html><div id="root">SPA shell</div><script src="./assets/app.js"></script>\n',
      "public/assets/app.js": "document.getElementById('root').textContent = location.pathname;\n",
      "README.md": "# An app\n",
    });
    expect(plan.auto).toMatchObject({ found: true, name: "Static site", output: "public" });

    const deep = await fetch(`${url}/dashboard/settings/42?tab=profile`);
    expect(deep.status).toBe(200);
    expect(deep.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await deep.text()).toContain("SPA shell");
    const script = await fetch(`${url}/assets/app.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await fetch(`${url}/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${url}/README.md`)).status).toBe(404); // only public/ is served
    await expectNonRoot(container, "node");
  });

  it("runs a dependency-free Node server with its start script, on $PORT and 0.0.0.0, as a non-root user", async () => {
    const { plan, url, container } = await buildAndRun({
      "package.json": `${JSON.stringify({ name: "tiny-server", private: true, scripts: { start: "node server.js" } }, null, 2)}\n`,
      "server.js": [
        'const http = require("node:http");',
        "const port = Number(process.env.PORT) || 3000;",
        "http",
        "  .createServer((req, res) => {",
        '    res.setHeader("content-type", "application/json");',
        '    res.end(JSON.stringify({ hello: "from node", port, path: req.url, uid: process.getuid(), env: process.env.NODE_ENV }));',
        "  })",
        '  .listen(port, "0.0.0.0");',
        'process.on("SIGTERM", () => process.exit(0));',
        "",
      ].join("\n"),
    });
    expect(plan.auto).toMatchObject({ found: true, name: "Node.js", install: null, build: null, start: "node server.js" });

    const port = Number(new URL(url).port);
    const response = await fetch(`${url}/orders/7`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { hello: string; port: number; path: string; uid: number; env: string };
    expect(body).toMatchObject({ hello: "from node", port, path: "/orders/7", env: "production" });
    expect(body.uid).not.toBe(0);
    await expectNonRoot(container, "node");
  });
});
