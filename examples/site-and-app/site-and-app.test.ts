import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createReposite } from "@reposite/core";
import { buildLocalBaseImages, dockerForTests, freePort, removeLabelled, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The example as a person runs it (node, the built SDK) against the built `reposite serve` on the
// real Docker Engine, with base images made on this machine (no registry is reachable) and the
// repository on a loopback GitHub. Skipped without Docker, unless REPOSITE_REQUIRE_DOCKER=1.
const engine = await dockerForTests();

const script = fileURLToPath(new URL("./site-and-app.mjs", import.meta.url));
const serverBin = fileURLToPath(new URL("../../packages/server/bin/reposite.mjs", import.meta.url));
const builds = ["../../packages/sdk/dist/index.js", "../../packages/server/dist/index.js"].map((path) => fileURLToPath(new URL(path, import.meta.url)));

const LABEL = "reposite-test.run";
const run = `site-and-app-${randomBytes(4).toString("hex")}`;

/** A dependency-free Node server: `auto` builds it from its start script. It says what it got and its SECRET_KEY's length. */
const serverJs = `
const http = require("node:http");
http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ hello: "from the app", path: req.url, secret_length: (process.env.SECRET_KEY || "").length }));
}).listen(Number(process.env.PORT) || 3000, "0.0.0.0");
process.on("SIGTERM", () => process.exit(0));
`;

describe.skipIf(!engine.available)("examples/site-and-app on the Docker Engine", () => {
  let github: FakeGitHub;
  let dataDir: string;
  let server: ChildProcess | undefined;
  let serverUrl: string;
  let token: string;

  beforeAll(async () => {
    for (const build of builds) if (!existsSync(build)) throw new Error(`${build} is missing: run \`npm run build\` (npm test does it first).`);
    await buildLocalBaseImages();
    github = await startFakeGitHub({
      repos: [
        {
          owner: "acme",
          name: "greeter",
          description: "Greets people over HTTP",
          topics: ["api"],
          files: {
            "README.md": "# Greeter\n\nGreets people over HTTP.\n\n## Run\n\n`npm start`\n",
            "package.json": `${JSON.stringify({ name: "greeter", private: true, scripts: { start: "node server.js" } }, null, 2)}\n`,
            "server.js": serverJs,
            ".env.example": "# Signs sessions; any long random string\nSECRET_KEY=\n",
          },
        },
      ],
    });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-site-and-app-"));
    // A token made the way an operator makes one, before the server starts on the same data.
    const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
    const { account } = await reposite.accounts.findOrCreate("ada@example.com");
    token = (await reposite.tokens.create(account.id, { name: "example", lifetime: "30d" })).secret;
    await reposite.close();

    const port = await freePort();
    serverUrl = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [serverBin, "serve"], {
      env: {
        ...process.env,
        HOST: "127.0.0.1",
        PORT: String(port),
        REPOSITE_DATA_DIR: dataDir,
        REPOSITE_GITHUB_API_URL: github.url,
        REPOSITE_BASE_IMAGE_NODE: "reposite-test/node:local",
        REPOSITE_BASE_IMAGE_BUN: "reposite-test/node:local",
        REPOSITE_BASE_IMAGE_STATIC: "reposite-test/node:local",
        REPOSITE_BASE_IMAGE_RUNTIME: "reposite-test/busybox:local",
        REPOSITE_APP_LABELS: `${LABEL}=${run}`,
        REPOSITE_BUILD_MEMORY_MB: "512",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let said = "";
    server.stdout!.on("data", (chunk) => (said += chunk));
    server.stderr!.on("data", (chunk) => (said += chunk));
    for (let attempt = 0; !(await fetch(`${serverUrl}/healthz`).then((r) => r.ok, () => false)); attempt++) {
      if (server.exitCode !== null || attempt > 300) throw new Error(`the server did not start:\n${said}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }, 240_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once("exit", resolve));
      server.kill("SIGTERM");
      await exited;
    }
    await github?.close();
    await removeLabelled(LABEL, run);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("takes the repository to a live site and a running app, and fetches the app through /app/", async () => {
    const child = spawn(process.execPath, [script, "https://github.com/acme/greeter"], {
      env: { PATH: process.env.PATH, REPOSITE_URL: serverUrl, REPOSITE_TOKEN: token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", (exit) => resolve(exit)));
    expect(code, output).toBe(0);

    expect(output).toMatch(/Project greeter \(site_\w+\)/);
    expect(output).toContain("page written: template");
    expect(output).toContain("page written: about");
    expect(output).toMatch(/Site live at http:\/\/greeter\.localhost:\d+/);
    expect(output).toContain("Building with auto");
    // The build log, streamed as it came.
    expect(output).toContain("No Dockerfile needed: Reposite wrote one");
    const appUrl = /App running at (\S+)/.exec(output)?.[1];
    expect(appUrl).toMatch(/^http:\/\/greeter\.localhost:\d+\/app\/$/);
    expect(output).toContain(`GET ${appUrl} -> 200`);
    // The app's own answer: /app removed before the request reached it, the generated secret set.
    const answer = JSON.parse(output.slice(output.indexOf(`GET ${appUrl} -> 200`)).split("\n")[1]!) as Record<string, unknown>;
    expect(answer).toEqual({ hello: "from the app", path: "/", secret_length: 64 });
    // The token stayed out of everything the example printed.
    expect(output).not.toContain(token);
  }, 180_000);
});
