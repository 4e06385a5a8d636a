import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import {
  buildLocalBaseImages,
  buildLocalGoImage,
  dockerForTests,
  freePort,
  getWithHost,
  removeLabelled,
  startFakeGitHub,
  type FakeGitHub,
  type FakeRepo,
} from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "../harness.js";
import { startServerProcess, type ServerProcess } from "../server-process.js";

/**
 * Repositories without a Dockerfile, deployed with `build_mode: auto` through `reposite serve` in its
 * own process on the real Engine, and asked for at `/app/`: where the faults of issue 22 showed
 * (a Gin app's templates lost from its image; a Procfile's `web:` ignored and the repository served
 * as a static folder). Base images are made locally (the Go toolchain is Debian's); the fixtures
 * download nothing.
 */
const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `auto-${randomBytes(4).toString("hex")}`;

const goApp: FakeRepo = {
  owner: "acme",
  name: `go-templates-${run.slice(-8)}`,
  files: {
    "go.mod": "module example.com/greeter\n\ngo 1.19\n",
    "main.go": [
      "package main",
      "",
      'import (\n\t"html/template"\n\t"net/http"\n\t"os"\n)',
      "",
      "func main() {",
      '\t// Read at run time from the working directory, as Gin\'s LoadHTMLGlob does.',
      '\tpages := template.Must(template.ParseGlob("templates/*.html"))',
      '\thttp.Handle("/static/", http.StripPrefix("/static/", http.FileServer(http.Dir("static"))))',
      '\thttp.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { pages.ExecuteTemplate(w, "index.html", "Go") })',
      '\thttp.ListenAndServe(":"+os.Getenv("PORT"), nil)',
      "}",
      "",
    ].join("\n"),
    "templates/index.html": "<h1>Hello from the {{.}} template</h1>\n",
    "static/site.css": "h1 { color: teal }\n",
  },
};

const procfileApp: FakeRepo = {
  owner: "acme",
  name: `procfile-node-${run.slice(-8)}`,
  files: {
    Procfile: "web: node web.js\n",
    "package.json": JSON.stringify({ name: "procfile-node", private: true }),
    // An index.html and public/ made Reposite serve the repository as static files before.
    "index.html": "<h1>the repository's own page</h1>\n",
    "public/style.css": "body { margin: 0 }\n",
    "web.js": "require('node:http').createServer((q, s) => s.end('hello from web.js at ' + q.url)).listen(process.env.PORT);\n",
  },
};

describe.skipIf(!engine.available)("auto builds of real-world layouts, through a real server process", () => {
  let github: FakeGitHub;
  let server: ServerProcess;
  let dataDir: string;
  let port: number;
  let token: string;
  let goImage: string | null;

  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };

  /** Creates the project, sets `auto`, deploys, and returns the Host its `/app/` answers on. */
  const deploy = async (repo: FakeRepo): Promise<string> => {
    const { id } = await api<{ id: string }>("/app/sites", json({ repohost_url: `https://github.com/${repo.owner}/${repo.name}`, name: repo.name }));
    await api(`/app/sites/${id}/deployment`, json({ build_mode: "auto" }, undefined, "PUT"));
    const { job_id } = await api<{ job_id: string }>(`/app/sites/${id}/deployment/deploy`, { method: "POST" });
    for (const deadline = Date.now() + 240_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 300))) {
      const job = await api<{ status: string; finished_at: string | null }>(`/app/jobs/${job_id}`);
      if (!job.finished_at) continue;
      const deployment = await api<{ slug: string; last_run: { reason: string | null } | null }>(`/app/sites/${id}/deployment`);
      if (job.status !== "done") throw new Error(`deploying ${repo.name} ended ${job.status}: ${deployment.last_run?.reason}`);
      return `${deployment.slug}.localhost:${port}`;
    }
    throw new Error(`deploying ${repo.name} did not finish`);
  };

  beforeAll(async () => {
    const images = await buildLocalBaseImages();
    goImage = await buildLocalGoImage();
    github = await startFakeGitHub({ repos: [goApp, procfileApp] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-auto-real-"));
    port = await freePort();
    const setup = createReposite({ config: { dataDir }, repoHosts: [] });
    const { account } = await setup.accounts.findOrCreate(`owner-${run}@example.com`);
    token = (await setup.tokens.create(account.id, { name: "auto-builds", lifetime: "30d" })).secret;
    await setup.close();
    server = await startServerProcess(port, {
      REPOSITE_DATA_DIR: dataDir,
      REPOSITE_BASE_URL: `http://127.0.0.1:${port}`,
      REPOSITE_GITHUB_API_URL: github.url,
      REPOSITE_BASE_IMAGE_NODE: images.node,
      REPOSITE_BASE_IMAGE_STATIC: images.node,
      REPOSITE_BASE_IMAGE_RUNTIME: images.busybox,
      ...(goImage ? { REPOSITE_BASE_IMAGE_GO: goImage } : {}),
      REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
    });
  }, 600_000);

  afterAll(async () => {
    await server?.kill();
    await github?.close();
    await removeLabelled(RUN_LABEL, run);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 120_000);

  it("a Go app renders its templates and serves its static files at /app/ (the image keeps the built tree)", async () => {
    if (!goImage) throw new Error("no Go toolchain for the local Go image: install Debian's golang-go");
    const host = await deploy(goApp);
    const page = await getWithHost(`http://127.0.0.1:${port}/app/`, host);
    expect(page).toEqual({ status: 200, body: "<h1>Hello from the Go template</h1>\n" });
    const css = await getWithHost(`http://127.0.0.1:${port}/app/static/site.css`, host);
    expect(css).toEqual({ status: 200, body: "h1 { color: teal }\n" });
  }, 300_000);

  it("a Procfile's web: process is the app at /app/, not the repository's files", async () => {
    const host = await deploy(procfileApp);
    expect(await getWithHost(`http://127.0.0.1:${port}/app/`, host)).toEqual({ status: 200, body: "hello from web.js at /" });
    // The source is not served as a file: web.js answers every path itself.
    expect(await getWithHost(`http://127.0.0.1:${port}/app/web.js`, host)).toEqual({ status: 200, body: "hello from web.js at /web.js" });
  }, 300_000);
});
