import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { buildLocalBaseImages, docker, dockerForTests, freePort, removeDataDir, removeLabelled, startFakeGitHub, type FakeGitHub, type FakeRepo } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { json } from "./harness.js";
import { startServerProcess, stopLeftNginx, type ServerProcess } from "./server-process.js";
import { DEPLOYMENT_ROUTES } from "./deployment-routes.js";
import { WEBSOCKET_ECHO_JS } from "./websocket-echo-source.js";

// App hosting end to end: the built `reposite serve` in its own process, on the real Docker Engine,
// with base images made on this machine (no registry is reachable). Repositories come from the
// loopback fake GitHub; sites are reached through the server's `/app/` with a site's Host header
// (node:http: Node's fetch drops Host). One server, one data dir and one set of apps are shared by
// the tests below, in order; everything made on the Engine carries this run's label and goes at the end.

const engine = await dockerForTests();

// Both shapes run the same tests: Reposite serving everything, and REPOSITE_EDGE=nginx (nginx on
// PORT, `/app/` of a running app from nginx straight to its container). Where they differ on
// purpose, the test says so (docs/deploy/edge-nginx.md).
const nginxHere = await new Promise<boolean>((resolve) => execFile("nginx", ["-v"], (error) => resolve(!error)));
if (engine.required && !nginxHere) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but nginx is not installed (apt-get install nginx)");
const SHAPES: ("node" | "nginx")[] = nginxHere ? ["node", "nginx"] : ["node"];

const RUN_LABEL = "reposite-test.run";
const run = `hosting-e2e-${randomBytes(4).toString("hex")}`;
const LABEL_SITE = "dev.reposite.site";

/**
 * The app every repository carries: answers what it received (path, prefix, forwarded host, env X,
 * its version), streams SSE until released, hashes uploads while they arrive, and echoes WebSocket
 * messages (websocket-echo-source.ts). No dependencies: nothing can be installed in a build here.
 */
const serverJs = (version: string) => `
const http = require("node:http");
const crypto = require("node:crypto");
${WEBSOCKET_ECHO_JS}
const VERSION = ${JSON.stringify(version)};
const port = Number(process.env.PORT) || 3000;
console.log("starting " + VERSION + " with X=" + (process.env.X || ""));
const releases = new Map();
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://app");
  if (url.pathname === "/upload" && req.method === "POST") {
    res.writeHead(200, { "content-type": "text/plain" });
    const hash = crypto.createHash("sha256");
    let bytes = 0;
    let firstByteAt = 0;
    req.on("data", (chunk) => {
      // ?quiet: no line before the upload has all arrived (see the nginx shape's upload test).
      if (bytes === 0) (firstByteAt = Date.now()), url.searchParams.has("quiet") || res.write("receiving\\n");
      hash.update(chunk);
      bytes += chunk.length;
    });
    req.on("end", () => res.end(JSON.stringify({ bytes, sha256: hash.digest("hex"), firstByteAt }) + "\\n"));
    return;
  }
  if (url.pathname === "/events") {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write("data: first\\n\\n");
    releases.set(url.searchParams.get("id"), () => res.end("data: last\\n\\n"));
    return;
  }
  if (url.pathname === "/release") {
    const release = releases.get(url.searchParams.get("id"));
    releases.delete(url.searchParams.get("id"));
    if (release) release();
    res.end(release ? "released" : "unknown");
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({
    version: VERSION,
    path: req.url,
    prefix: req.headers["x-forwarded-prefix"] || null,
    forwardedHost: req.headers["x-forwarded-host"] || null,
    x: process.env.X || null,
  }));
});
server.on("upgrade", (req, socket) => acceptWebSocket(req, socket, (text) => "echo " + req.url + " " + text));
server.listen(port, "0.0.0.0");
process.on("SIGTERM", () => process.exit(0));
`;

/** A dependency-free Node server: `auto` writes its Dockerfile (start script `node server.js`). */
const autoRepo: FakeRepo = {
  owner: "acme",
  name: "echo-auto",
  files: {
    "package.json": `${JSON.stringify({ name: "echo-auto", private: true, scripts: { start: "node server.js" } }, null, 2)}\n`,
    "server.js": serverJs("auto-1"),
  },
};

/**
 * The same app with a Dockerfile of its own, FROM the local node image; `steps` go before CMD. Its
 * LABEL comes first, so the layers a failed or killed build leaves behind carry this run's label too.
 */
const dockerRepo = (version: string, steps: string[] = []): FakeRepo => ({
  owner: "acme",
  name: "echo-docker",
  files: {
    Dockerfile: ["FROM reposite-test/node:local", `LABEL ${RUN_LABEL}=${run}`, "WORKDIR /app", "COPY server.js ./", "RUN echo built-$((6*7))", ...steps, 'CMD ["node", "server.js"]', ""].join("\n"),
    "server.js": serverJs(version),
  },
});

/** Another account's app, deployed while the build slot is taken. */
const queuedRepo: FakeRepo = { ...dockerRepo("queued-1"), name: "echo-queued" };

/** Every container, image, volume and network labelled with this run goes. */
const removeEverything = () => removeLabelled(RUN_LABEL, run);

/** The app containers of one project on the Engine (running or not). */
async function containersOf(siteId: string): Promise<string[]> {
  const { stdout } = await docker(["ps", "-aq", "--no-trunc", "--filter", `label=${RUN_LABEL}=${run}`, "--filter", `label=${LABEL_SITE}=${siteId}`]);
  return stdout.split("\n").filter(Boolean);
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Job {
  status: string;
  finished_at: string | null;
  next_job_id?: string | null;
}

interface RunView {
  run_id: string;
  status: string;
  job_id: string | null;
  finished_at: string | null;
  reason: string | null;
}

/** The job stream's deltas, as text, and how it ended: the job its `done` or `error` event carried. */
interface JobStream {
  text: string;
  deltas: number[];
  end: { event: "done" | "error"; job: Job } | null;
}

describe.skipIf(!engine.available).each(SHAPES)("app hosting end to end (edge: %s): reposite serve on the Docker Engine", (shape) => {
  let github: FakeGitHub;
  let dataDir: string;
  let port: number;
  let server: ServerProcess;
  /** ada owns the auto and Dockerfile apps; carol's deploy waits for ada's build; eve owns nothing. */
  const tokens = { ada: "", carol: "", eve: "" };
  const sites = { auto: "", docker: "", queued: "" };
  const slugs = { auto: `auto-${run.slice(-8)}`, docker: `docker-${run.slice(-8)}`, queued: `queued-${run.slice(-8)}` };

  const env = () => ({
    REPOSITE_DATA_DIR: dataDir,
    REPOSITE_GITHUB_API_URL: github.url,
    REPOSITE_BASE_IMAGE_NODE: "reposite-test/node:local",
    REPOSITE_BASE_IMAGE_BUN: "reposite-test/node:local",
    REPOSITE_BASE_IMAGE_STATIC: "reposite-test/node:local",
    REPOSITE_BASE_IMAGE_RUNTIME: "reposite-test/busybox:local",
    REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
    // One build at a time on this server: a second account's deploy waits, `queued`.
    REPOSITE_BUILD_CONCURRENCY: "1",
    REPOSITE_BUILD_MEMORY_MB: "512",
    ...(shape === "nginx" ? { REPOSITE_EDGE: "nginx" } : {}),
  });

  /** With nginx in front, a server killed with -9 leaves its nginx serving on PORT: it is stopped before the next start. */
  const restartAfterKill = async () => {
    if (shape === "nginx") await stopLeftNginx(dataDir);
    server = await startServerProcess(port, env());
  };

  /** The API, as `token`. */
  const api = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
  const apiJson = async <T>(path: string, token: string, init: RequestInit = {}): Promise<T> => {
    const response = await api(path, token, init);
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };

  /** A request to a site's host on the server, with node:http. */
  function site(slug: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${server.url}${path}`, { method: init.method ?? "GET", headers: { host: `${slug}.localhost:${port}`, ...init.headers } }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on("error", reject);
      req.end(init.body);
    });
  }

  async function waitForJob(token: string, jobId: string): Promise<Job> {
    for (const deadline = Date.now() + 90_000; Date.now() < deadline; ) {
      const job = await apiJson<Job>(`/app/jobs/${jobId}`, token);
      if (job.finished_at) return job;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`job ${jobId} did not finish`);
  }

  /** Reads `GET /app/jobs/{id}/stream` to its end (or until `stopWhen` says so, then aborts). */
  async function readJobStream(token: string, jobId: string, stopWhen?: (text: string) => boolean): Promise<JobStream> {
    const abort = new AbortController();
    const response = await api(`/app/jobs/${jobId}/stream`, token, { signal: abort.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const stream: JobStream = { text: "", deltas: [], end: null };
    const decoder = new TextDecoder();
    let pending = "";
    const reader = response.body!.getReader();
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        pending += decoder.decode(chunk.value, { stream: true });
        let end: number;
        while ((end = pending.indexOf("\n\n")) !== -1) {
          const frameText = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const kind = /^event: (\w+)$/m.exec(frameText)?.[1];
          const data = /^data: (.*)$/m.exec(frameText)?.[1];
          if (kind === "delta" && data) {
            const delta = JSON.parse(data) as { i: number; t: string };
            stream.deltas.push(delta.i);
            stream.text += delta.t;
          } else if ((kind === "done" || kind === "error") && data) {
            stream.end = { event: kind, job: JSON.parse(data) as Job };
          }
        }
        if (stopWhen?.(stream.text)) {
          abort.abort();
          await reader.cancel().catch(() => undefined);
          break;
        }
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
    return stream;
  }

  /** Deploys and follows the run's job stream to its end. */
  async function deploy(token: string, siteId: string): Promise<{ run_id: string; job_id: string; stream: JobStream }> {
    const started = await api(`/app/sites/${siteId}/deployment/deploy`, token, { method: "POST" });
    expect(started.status).toBe(202);
    const { run_id, job_id } = (await started.json()) as { run_id: string; job_id: string };
    const stream = await readJobStream(token, job_id);
    return { run_id, job_id, stream };
  }

  const runsOf = (token: string, siteId: string) => apiJson<RunView[]>(`/app/sites/${siteId}/deployment/runs`, token);
  const deploymentOf = (token: string, siteId: string) =>
    apiJson<{ status: string; url: string; slug: string; last_run: { status: string; finished_at: string | null } | null }>(`/app/sites/${siteId}/deployment`, token);
  const appJson = async (slug: string, path = "/app/") => {
    let answer = await site(slug, path);
    // Through nginx's /app/ location (its header); a new route is taken at nginx's next reload (coalesced, 200 ms), Reposite answers the same meanwhile.
    for (const deadline = Date.now() + 10_000; shape === "nginx" && answer.headers["x-reposite-edge"] !== "nginx" && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await site(slug, path);
    }
    if (shape === "nginx") expect(answer.headers["x-reposite-edge"], "through nginx").toBe("nginx");
    expect(answer.status, answer.body).toBe(200);
    return JSON.parse(answer.body) as { version: string; path: string; prefix: string | null; forwardedHost: string | null; x: string | null };
  };

  /**
   * The app's answer once `until` holds: with Node alone at once; with nginx in front, a changed
   * container is taken at nginx's next reload (coalesced, 200 ms), and the old one drains meanwhile.
   */
  const appJsonOnce = async (slug: string, path: string, until: (answer: Awaited<ReturnType<typeof appJson>>) => boolean) => {
    let answer = await appJson(slug, path);
    for (const deadline = Date.now() + 5_000; shape === "nginx" && !until(answer) && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      answer = await appJson(slug, path);
    }
    return answer;
  };
  /**
   * What `/app/` answers once the app is gone: at once in both shapes. With nginx in front a stop or
   * a removal answers only once nginx has let go of the container, as a deploy does (no 502 meanwhile).
   */
  const goneAnswer = (slug: string, path: string) => site(slug, path);

  /** A project of `repo`, published at `slug` (its `/app/` lives on the published site), with its app set up. */
  async function publishedProject(token: string, repo: FakeRepo, slug: string, setup: Record<string, unknown>): Promise<string> {
    const created = await apiJson<{ id: string }>("/app/sites", token, json({ repohost_url: `https://github.com/${repo.owner}/${repo.name}`, name: repo.name }));
    const id = created.id;
    for (let job: string | null | undefined = (await apiJson<{ job_id: string }>(`/app/sites/${id}/generate`, token, json({ mode: "landing" }))).job_id; job; ) {
      const finished = await waitForJob(token, job);
      expect(finished.status).toBe("done");
      job = finished.next_job_id;
    }
    await apiJson(`/app/sites/${id}/slug`, token, json({ slug }));
    await apiJson(`/app/sites/${id}/publish`, token, json({}));
    const response = await api(`/app/sites/${id}/deployment`, token, json(setup, undefined, "PUT"));
    expect(response.status).toBe(201);
    return id;
  }

  beforeAll(async () => {
    await buildLocalBaseImages();
    github = await startFakeGitHub({ repos: [autoRepo, dockerRepo("docker-1"), queuedRepo] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-hosting-e2e-"));
    port = await freePort();
    const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
    for (const name of Object.keys(tokens) as (keyof typeof tokens)[]) {
      const { account } = await reposite.accounts.findOrCreate(`${name}@example.com`);
      tokens[name] = (await reposite.tokens.create(account.id, { name: "e2e", lifetime: "30d" })).secret;
    }
    await reposite.close();
    server = await startServerProcess(port, env());
    expect(server.output().stdout).toMatch(/app hosting: docker \S+ \(0 apps running\)/);
    sites.auto = await publishedProject(tokens.ada, autoRepo, slugs.auto, { build_mode: "auto" });
    sites.docker = await publishedProject(tokens.ada, dockerRepo("docker-1"), slugs.docker, { volume_path: "/data" });
    sites.queued = await publishedProject(tokens.carol, queuedRepo, slugs.queued, {});
  }, 240_000);

  afterAll(async () => {
    await server?.kill();
    if (shape === "nginx" && dataDir) await stopLeftNginx(dataDir);
    await github?.close();
    await removeEverything();
    const left = await Promise.all(
      [["ps", "-aq"], ["images", "-aq"], ["volume", "ls", "-q"], ["network", "ls", "-q"]].map(async (args) => (await docker([...args, "--filter", `label=${RUN_LABEL}=${run}`])).stdout.trim()),
    );
    expect(left.join(""), "left on the Engine").toBe("");
    if (dataDir) await removeDataDir(dataDir);
  }, 60_000);

  it("deploys a dependency-free Node server with build_mode auto; /app/ reaches it with the prefix removed and X-Forwarded-Prefix /app", async () => {
    const before = await site(slugs.auto, "/app/");
    expect(before.status).toBe(503); // set up, never deployed

    const { stream } = await deploy(tokens.ada, sites.auto);
    expect(stream.end, stream.text).toMatchObject({ event: "done", job: { finished_at: expect.any(String) } });
    expect(stream.text).toContain("No Dockerfile needed: Reposite wrote one");
    expect(stream.text).toContain("reposite-test/node:local");
    const deployment = await deploymentOf(tokens.ada, sites.auto);
    expect(deployment).toMatchObject({ status: "running", slug: slugs.auto, url: `http://${slugs.auto}.localhost:${port}/app/`, last_run: { status: "done" } });

    const answer = await appJson(slugs.auto, "/app/hello?x=1");
    expect(answer).toEqual({ version: "auto-1", path: "/hello?x=1", prefix: "/app", forwardedHost: `${slugs.auto}.localhost:${port}`, x: null });
    expect((await appJson(slugs.auto, "/app")).path).toBe("/");
    // The rest of the site is still the published site, not the app.
    const home = await site(slugs.auto, "/");
    expect(home.status).toBe(200);
    expect(home.headers["content-type"]).toContain("text/html");
  }, 90_000);

  it("serves an app whose project never published pages: /app/ answers at the address its first setup gave it", async () => {
    const created = await apiJson<{ id: string }>("/app/sites", tokens.ada, json({ repohost_url: `https://github.com/${autoRepo.owner}/${autoRepo.name}`, name: "App Only" }));
    const setup = await api(`/app/sites/${created.id}/deployment`, tokens.ada, json({ build_mode: "auto" }, undefined, "PUT"));
    expect(setup.status).toBe(201);
    const { slug } = await deploymentOf(tokens.ada, created.id);
    expect(slug).toBe("app-only");
    expect((await site(slug, "/app/")).status).toBe(503); // set up, never deployed: the app's own page, not "No site here"

    const { stream } = await deploy(tokens.ada, created.id);
    expect(stream.end, stream.text).toMatchObject({ event: "done" });
    expect((await appJson(slug, "/app/hello")).path).toBe("/hello");
    // Nothing else is served there: no pages were published.
    expect((await site(slug, "/")).status).toBe(404);
    await api(`/app/sites/${created.id}`, tokens.ada, { method: "DELETE" });
  }, 90_000);

  it("deploys the repository's Dockerfile: the job stream carries the build log and ends with finished_at; the run is listed", async () => {
    const { run_id, job_id, stream } = await deploy(tokens.ada, sites.docker);
    // BuildKit's steps: the stage's FROM is 1 of 4 (WORKDIR, COPY and RUN count, LABEL and CMD do not).
    expect(stream.text).toMatch(/#\d+ \[1\/4\] FROM docker\.io\/reposite-test\/node:local/);
    expect(stream.text).toContain("built-42"); // the RUN step's own output
    expect(stream.text).toContain(`Live at http://${slugs.docker}.localhost:${port}/app/`);
    expect(stream.deltas).toEqual(stream.deltas.map((_, index) => index)); // in order, none missing
    expect(stream.end).toMatchObject({ event: "done", job: { status: "done", finished_at: expect.any(String) } });

    expect((await appJson(slugs.docker, "/app/x")).version).toBe("docker-1");
    const runs = await runsOf(tokens.ada, sites.docker);
    expect(runs).toEqual([expect.objectContaining({ run_id, job_id, status: "done", finished_at: expect.any(String), reason: null })]);
    // Resumable: from the second delta on.
    const resumed = await api(`/app/jobs/${job_id}/stream?from=1`, tokens.ada);
    expect(/^id: (\d+)$/m.exec(await resumed.text())?.[1]).toBe("1");
  }, 90_000);

  it("another account gets 404 on every deployment route", async () => {
    for (const [method, path, body] of DEPLOYMENT_ROUTES) {
      const response = await api(`/app/sites/${sites.docker}${path}`, tokens.eve, body === undefined ? { method } : json(body, undefined, method));
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect((await appJson(slugs.docker)).version).toBe("docker-1");
  });

  it("an env change restarts the app with the new value at once; the value shows in no job stream, run log or env read", async () => {
    const secret = `s3cret-${randomBytes(6).toString("hex")}`;
    const changed = await api(`/app/sites/${sites.auto}/deployment/env`, tokens.ada, json({ env: { X: secret } }, undefined, "PUT"));
    expect(changed.status).toBe(200);
    const changedText = await changed.text();
    expect(changedText).not.toContain(secret);
    expect(JSON.parse(changedText)).toEqual({ env: { X: "********" } });
    // The answer comes at once; the restart shows in the deployment read.
    for (const deadline = Date.now() + 30_000; (await apiJson<{ last_operation: { status: string } | null }>(`/app/sites/${sites.auto}/deployment`, tokens.ada)).last_operation?.status !== "done"; ) {
      if (Date.now() > deadline) throw new Error("the env restart did not finish");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await appJsonOnce(slugs.auto, "/app/", (answer) => answer.x === secret)).x).toBe(secret);
    const read = await api(`/app/sites/${sites.auto}/deployment/env`, tokens.ada);
    const readText = await read.text();
    expect(readText).not.toContain(secret);
    expect(JSON.parse(readText)).toEqual({ env: { X: "********" } });

    // A deploy with the value set: auto gives it to the build, and the app prints it when it starts.
    const { run_id, stream } = await deploy(tokens.ada, sites.auto);
    expect(stream.end).toMatchObject({ event: "done", job: { status: "done" } });
    expect(stream.text).toContain("with X=***");
    expect(stream.text).not.toContain(secret);
    const detail = await apiJson<{ log_tail: string }>(`/app/sites/${sites.auto}/deployment/runs/${run_id}`, tokens.ada);
    expect(detail.log_tail).toContain("with X=***");
    expect(detail.log_tail).not.toContain(secret);
    expect((await appJson(slugs.auto)).x).toBe(secret);
  }, 90_000);

  it("a broken build (RUN exit 3, pushed as a new version) leaves the previous version serving, and the run failed", async () => {
    github.addRepo(dockerRepo("docker-2", ["RUN exit 3"]));
    const { run_id, stream } = await deploy(tokens.ada, sites.docker);
    expect(stream.end).toMatchObject({ event: "error", job: { finished_at: expect.any(String) } });
    expect(stream.text).toContain("RUN exit 3");
    const failed = (await runsOf(tokens.ada, sites.docker)).find((each) => each.run_id === run_id);
    expect(failed).toMatchObject({ status: "failed", finished_at: expect.any(String), reason: expect.stringContaining("exit code 3") });
    expect(await deploymentOf(tokens.ada, sites.docker)).toMatchObject({ status: "running", last_run: { status: "failed" } });
    expect((await appJson(slugs.docker)).version).toBe("docker-1");
    github.addRepo(dockerRepo("docker-1"));
  }, 90_000);

  it("carries a WebSocket through /app/ both ways, with the prefix removed", async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/app/ws?room=7`, { headers: { host: `${slugs.auto}.localhost:${port}` } });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
      socket.once("unexpected-response", (_req, res: IncomingMessage) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    const next = () => new Promise<string>((resolve) => socket.once("message", (data) => resolve(String(data))));
    for (const text of ["hello", "x".repeat(300)]) {
      const answer = next();
      socket.send(text);
      expect(await answer).toBe(`echo /ws?room=7 ${text}`);
    }
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    socket.close(1000);
    await closed;
  });

  it("streams SSE through /app/: the first event arrives while the app still holds the stream open", async () => {
    const id = randomBytes(4).toString("hex");
    const events: string[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${server.url}/app/events?id=${id}`, { headers: { host: `${slugs.auto}.localhost:${port}`, accept: "text/event-stream" } }, (res) => {
        expect(res.statusCode).toBe(200);
        expect(res.headers["content-type"]).toBe("text/event-stream");
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => events.push(chunk));
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end();
    });
    // The app ends the stream only when told to: a proxy that buffered would never show "first".
    for (const deadline = Date.now() + 10_000; !events.join("").includes("data: first"); ) {
      if (Date.now() > deadline) throw new Error("the first event did not arrive while the stream was open");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(events.join("")).not.toContain("data: last");
    expect((await site(slugs.auto, `/app/release?id=${id}`)).body).toBe("released");
    await ended;
    expect(events.join("")).toBe("data: first\n\ndata: last\n\n");
  });

  it("streams a 50 MB upload through /app/ to the app, which hashes it as it arrives", async () => {
    const total = 50 * 1024 * 1024;
    const chunk = randomBytes(1024 * 1024);
    const expected = createHash("sha256");
    let firstAnswerAt = 0;
    let lastSentAt = 0;
    const answer = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        `${server.url}/app/upload${shape === "nginx" ? "?quiet" : ""}`,
        { method: "POST", headers: { host: `${slugs.auto}.localhost:${port}`, "content-type": "application/octet-stream", "content-length": String(total) } },
        (res) => {
          expect(res.statusCode).toBe(200);
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (text: string) => {
            if (!body) {
              firstAnswerAt = Date.now();
              // The app answered after the first megabyte: send the rest (a buffering proxy never gets here).
              if (shape === "node") void sendRest();
            }
            body += text;
          });
          res.on("end", () => resolve(body));
        },
      );
      req.on("error", reject);
      const write = (data: Buffer) => new Promise<void>((done) => (req.write(data) ? done() : req.once("drain", done)));
      const sendRest = async () => {
        for (let sent = chunk.length; sent < total; sent += chunk.length) {
          const part = Buffer.from(chunk);
          part.writeUInt32BE(sent / chunk.length, 0);
          expected.update(part);
          await write(part);
        }
        lastSentAt = Date.now();
        req.end();
      };
      expected.update(chunk);
      req.write(chunk);
      // nginx sends no more of an upload once the app has started its answer: hard-wired in its
      // upstream module (docs/deploy/edge-nginx.md, "An app that answers before it has read the whole
      // upload"; proved in app-proxy.test.ts). There the app answers only at the end (?quiet), as an app
      // behind the edge must, and the rest is sent without waiting.
      if (shape === "nginx") void sendRest();
    });
    const lines = answer.split("\n");
    const result = shape === "nginx" ? lines[0] : lines[1];
    if (shape === "node") expect(lines[0]).toBe("receiving");
    const received = JSON.parse(result!) as { bytes: number; sha256: string; firstByteAt: number };
    expect(received).toMatchObject({ bytes: total, sha256: expected.digest("hex") });
    // Not held by a proxy: the app had the first bytes before the client had sent the last.
    expect(received.firstByteAt).toBeGreaterThan(0);
    expect(received.firstByteAt).toBeLessThan(lastSentAt);
    if (shape === "node") {
      expect(firstAnswerAt).toBeGreaterThan(0);
      expect(firstAnswerAt).toBeLessThan(lastSentAt);
    }
  }, 60_000);

  it("runs the app locked down: no-new-privileges, every capability dropped, a pids limit, memory = memory+swap, its port on 127.0.0.1 only", async () => {
    const [id] = await containersOf(sites.auto);
    expect(id).toBeTruthy();
    const [inspected] = JSON.parse((await docker(["inspect", id!])).stdout) as {
      HostConfig: {
        SecurityOpt: string[] | null;
        CapDrop: string[] | null;
        CapAdd: string[] | null;
        Privileged: boolean;
        PidsLimit: number | null;
        Memory: number;
        MemorySwap: number;
        NanoCpus: number;
        Binds: string[] | null;
        PortBindings: Record<string, { HostIp: string; HostPort: string }[]>;
      };
      Mounts: { Source?: string; Destination: string }[];
      NetworkSettings: { Ports: Record<string, { HostIp: string; HostPort: string }[] | null>; Networks: Record<string, unknown> };
    }[];
    const host = inspected!.HostConfig;
    expect(host.SecurityOpt?.some((option) => /^no-new-privileges(:true)?$/.test(option))).toBe(true);
    expect(host.CapDrop).toEqual(["ALL"]);
    expect(host.CapAdd ?? []).toEqual([]);
    expect(host.Privileged).toBe(false);
    expect(host.PidsLimit).toBe(256);
    expect(host.Memory).toBe(512 * 1024 * 1024);
    expect(host.MemorySwap).toBe(host.Memory);
    expect(host.NanoCpus).toBe(1e9);
    const published = Object.values(inspected!.NetworkSettings.Ports).flatMap((bindings) => bindings ?? []);
    expect(published.length).toBeGreaterThan(0);
    for (const binding of [...published, ...Object.values(host.PortBindings).flat()]) expect(binding.HostIp).toBe("127.0.0.1");
    expect(inspected!.Mounts.some((mount) => mount.Source?.includes("docker.sock") || mount.Destination.includes("docker.sock"))).toBe(false);
    expect(Object.keys(inspected!.NetworkSettings.Networks)).toEqual([`reposite-app-${sites.auto.toLowerCase().replace(/[^a-z0-9_.-]/g, "-")}`]);
  });

  it("stop: /app/ answers 503 with Retry-After; start: it answers again", async () => {
    expect((await apiJson<{ status: string }>(`/app/sites/${sites.auto}/deployment/stop`, tokens.ada, { method: "POST" })).status).toBe("stopped");
    const stopped = await goneAnswer(slugs.auto, "/app/anything");
    expect(stopped.status).toBe(503);
    // nginx answers it itself, with the Retry-After Node sends.
    if (shape === "nginx") expect(stopped.headers["x-reposite-edge"]).toBe("nginx");
    expect(Number(stopped.headers["retry-after"])).toBeGreaterThan(0);
    expect(stopped.headers["content-type"]).toContain("text/html");
    expect(stopped.body).toContain("stopped");
    const [id] = await containersOf(sites.auto);
    expect((await docker(["inspect", "--format", "{{.State.Running}}", id!])).stdout.trim()).toBe("false");

    expect((await apiJson<{ status: string }>(`/app/sites/${sites.auto}/deployment/start`, tokens.ada, { method: "POST" })).status).toBe("running");
    const answer = await appJson(slugs.auto, "/app/again");
    expect(answer).toMatchObject({ version: "auto-1", path: "/again" });
    expect(answer.x).toMatch(/^s3cret-/); // started with its env
  }, 60_000);

  it("kill -9 of the server while apps serve: they keep answering on their own ports, and a new server routes /app/ to them again without a redeploy", async () => {
    const autoRuns = (await runsOf(tokens.ada, sites.auto)).length;
    const [autoContainer] = await containersOf(sites.auto);
    const [dockerContainer] = await containersOf(sites.docker);
    if (shape === "nginx") {
      // The start just before is taken at nginx's next reload: wait until its routes name the container's port.
      const published = /^127\.0\.0\.1:(\d+)$/m.exec((await docker(["port", autoContainer!, "3000/tcp"])).stdout)?.[1];
      for (const deadline = Date.now() + 10_000; !(await readFile(join(dataDir, "edge", "routes.conf"), "utf8")).includes(`server 127.0.0.1:${published};`); ) {
        if (Date.now() > deadline) throw new Error("nginx's routes never named the started app");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 500)); // the reload that follows the files
    }
    await server.kill();

    // Not children of the server: still up, answering on their published port (127.0.0.1).
    for (const container of [autoContainer!, dockerContainer!]) {
      const { stdout } = await docker(["port", container, "3000/tcp"]);
      const published = /^127\.0\.0\.1:(\d+)$/m.exec(stdout)?.[1];
      expect(published, stdout).toBeTruthy();
      const answer = await fetch(`http://127.0.0.1:${published}/direct`);
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { path: string }).path).toBe("/direct");
    }
    if (shape === "nginx") {
      // nginx outlives its killed parent: /app/ of a running app still answers on PORT, from nginx alone.
      const answer = await site(slugs.auto, "/app/while-down");
      expect(answer.status).toBe(200);
      expect(answer.headers["x-reposite-edge"]).toBe("nginx");
    }

    await restartAfterKill();
    expect(server.output().stdout).toMatch(/app hosting: docker \S+ \(2 apps running\)/);
    expect(await appJson(slugs.auto, "/app/back")).toMatchObject({ version: "auto-1", path: "/back" });
    expect((await appJson(slugs.docker)).version).toBe("docker-1");
    // Found by labels: the same containers, no new run.
    expect(await containersOf(sites.auto)).toEqual([autoContainer]);
    expect(await containersOf(sites.docker)).toEqual([dockerContainer]);
    expect((await runsOf(tokens.ada, sites.auto)).length).toBe(autoRuns);
    expect(await deploymentOf(tokens.ada, sites.auto)).toMatchObject({ status: "running" });
  }, 60_000);

  it("kill -9 mid-build: after restart the run is failed with a reason, the previous version still serves, and another account's queued run goes on", async () => {
    // The run's name in the step makes its cache key this run's own: a step an earlier run let finish (its
    // cache record held by the Engine) would otherwise end the build at once.
    github.addRepo(dockerRepo("docker-3", [`RUN sleep 20 # ${run}`]));
    const building = await apiJson<{ run_id: string; job_id: string }>(`/app/sites/${sites.docker}/deployment/deploy`, tokens.ada, { method: "POST" });
    // Carol's deploy waits: the server's one build slot is ada's.
    const queued = await apiJson<{ run_id: string; job_id: string }>(`/app/sites/${sites.queued}/deployment/deploy`, tokens.carol, { method: "POST" });
    const stream = await readJobStream(tokens.ada, building.job_id, (text) => text.includes("RUN sleep 20"));
    expect(stream.end).toBeNull();
    expect((await runsOf(tokens.ada, sites.docker)).find((each) => each.run_id === building.run_id)?.status).toBe("building");
    expect((await runsOf(tokens.carol, sites.queued))[0]).toMatchObject({ run_id: queued.run_id, status: "queued" });
    // The step runs on the Engine: BuildKit runs it as a process of this machine (no container).
    const sleeping = async () => {
      for (const pid of await readdir("/proc").catch(() => [] as string[])) {
        if (/^\d+$/.test(pid) && (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).replace(/\0/g, " ").includes("sleep 20")) return true;
      }
      return false;
    };
    for (const deadline = Date.now() + 10_000; !(await sleeping()); ) {
      if (Date.now() > deadline) throw new Error("the build's RUN sleep 20 step never ran on the Engine");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await server.kill();

    await restartAfterKill();
    expect(server.output().stdout).toMatch(/app hosting: docker \S+ \(2 apps running, 1 interrupted deploy marked failed, 1 queued deploy resumed\)/);
    const interrupted = (await runsOf(tokens.ada, sites.docker)).find((each) => each.run_id === building.run_id);
    expect(interrupted).toMatchObject({ status: "failed", finished_at: expect.any(String), reason: expect.stringMatching(/server stopped/i) });
    expect(await deploymentOf(tokens.ada, sites.docker)).toMatchObject({ status: "running", last_run: { status: "failed" } });
    expect((await appJson(slugs.docker)).version).toBe("docker-1");
    // The Engine tore the build down when the killed server's connection went: nothing sleeps on.
    for (const deadline = Date.now() + 10_000; await sleeping(); ) {
      if (Date.now() > deadline) throw new Error("the killed server's build still runs on the Engine");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // The queued run was taken up with a new job, and its app goes live.
    const resumed = (await runsOf(tokens.carol, sites.queued))[0]!;
    expect(resumed.run_id).toBe(queued.run_id);
    expect(resumed.job_id).not.toBe(queued.job_id);
    const job = await waitForJob(tokens.carol, resumed.job_id!);
    expect(job.status).toBe("done");
    expect((await runsOf(tokens.carol, sites.queued))[0]).toMatchObject({ status: "done" });
    expect((await appJson(slugs.queued)).version).toBe("queued-1");
    github.addRepo(dockerRepo("docker-1"));
  }, 90_000);

  it("DELETE …/deployment removes the app's containers, images, data volume and network", async () => {
    const siteId = sites.docker;
    const lower = siteId.toLowerCase().replace(/[^a-z0-9_.-]/g, "-");
    const volume = `reposite-data-${lower}`;
    const filter = `label=${LABEL_SITE}=${siteId}`;
    const lines = async (args: string[]) => (await docker(args)).stdout.split("\n").filter(Boolean);
    expect(await containersOf(siteId)).toHaveLength(1);
    expect(await lines(["images", "-q", "--filter", filter])).not.toHaveLength(0);
    expect(await lines(["volume", "ls", "-q", "--filter", `name=^${volume}$`])).toEqual([volume]);
    expect(await lines(["network", "ls", "-q", "--filter", `name=^reposite-app-${lower}$`])).toHaveLength(1);

    const removed = await api(`/app/sites/${siteId}/deployment`, tokens.ada, { method: "DELETE" });
    expect(removed.status).toBe(204);
    expect(await containersOf(siteId)).toEqual([]);
    expect(await lines(["images", "-aq", "--filter", filter])).toEqual([]);
    expect(await lines(["volume", "ls", "-q", "--filter", `name=^${volume}$`])).toEqual([]);
    expect(await lines(["network", "ls", "-q", "--filter", `name=^reposite-app-${lower}$`])).toEqual([]);
    expect((await api(`/app/sites/${siteId}/deployment`, tokens.ada)).status).toBe(409);
    expect((await goneAnswer(slugs.docker, "/app/")).status).toBe(503);
    // The other apps are untouched.
    expect((await appJson(slugs.auto)).version).toBe("auto-1");
  }, 60_000);
});
