import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { createReposite, ProjectStore } from "@reposite/core";
import { buildLocalBaseImages, dockerAvailable, freePort, removeLabelled, startFakeGitHub, type FakeGitHub, type FakeRepo } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "../harness.js";
import { startServerProcess, stopLeftNginx, type ServerProcess } from "../server-process.js";
import { startEdgeProcess, type EdgeProcess } from "./edge-test-tools.js";

// `reposite edge` on its own: a control plane (`reposite serve` with REPOSITE_EDGE_TOKEN) and edges
// (`reposite edge`, each with its own nginx on another loopback port), real processes on the real
// Docker Engine. The edges never read the control plane's disk: everything comes over HTTP.

const RUN_LABEL = "reposite-test.run";
const engine = await dockerAvailable();
const nginxHere = await new Promise<boolean>((resolve) => execFile("nginx", ["-v"], (error) => resolve(!error)));
const required = process.env.REPOSITE_REQUIRE_DOCKER === "1";
if (required && !engine) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but no Docker Engine answers");
if (required && !nginxHere) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but nginx is not installed (apt-get install nginx)");

const APP_JS = `
const http = require("node:http");
http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ app: true, path: req.url, forwardedFor: req.headers["x-forwarded-for"] }));
}).listen(Number(process.env.PORT) || 3000, "0.0.0.0");
process.on("SIGTERM", () => process.exit(0));
`;
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
const page = (words: string) => `<!doctype html><html><head><title>Rocket</title></head><body><h1>${words}</h1><p>${"Launch rockets from the terminal. ".repeat(20)}</p></body></html>`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(port: number, host: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host, ...headers }, agent: false, timeout: 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers["content-encoding"];
        const body = encoding === "br" ? brotliDecompressSync(raw) : encoding === "gzip" ? gunzipSync(raw) : raw;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body.toString("utf8") });
      });
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${path}: no answer within 5 s`)));
    req.on("error", reject);
    req.end();
  });
}

/** `reposite edge` on `port` with its data in `dir` (both kept for a restart on the same ones). */
type RunningEdge = EdgeProcess & { port: number; dir: string };

async function startEdge(port: number, dir: string, env: Record<string, string>): Promise<RunningEdge> {
  return { ...(await startEdgeProcess({ PORT: String(port), REPOSITE_DATA_DIR: dir, ...env })), port, dir };
}

describe.runIf(engine && nginxHere)("reposite edge, fed by a control plane over HTTP", () => {
  const run = `remote-edge-${randomBytes(4).toString("hex")}`;
  const edgeToken = randomBytes(24).toString("hex");
  let github: FakeGitHub;
  let dataDir: string;
  let cpPort: number;
  let cp: ServerProcess;
  let cpEnv: Record<string, string>;
  const edges: RunningEdge[] = [];
  const edgeDirs: string[] = [];
  let edge: RunningEdge;
  let token: string;
  let siteId: string;
  let slug: string;

  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`http://127.0.0.1:${cpPort}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const publish = async (words: string) => {
    await api(`/app/sites/${siteId}/versions`, json({ kind: "template", html: page(words), name: words }));
    return api<{ url: string }>(`/app/sites/${siteId}/publish`, json({}));
  };
  const host = (port: number) => `${slug}.localhost:${port}`;
  /** Waits until the edge on `port`'s nginx serves the page with `words` from its own files. */
  const pageServedBy = async (port: number, words: string, timeoutMs = 20_000) => {
    for (const deadline = Date.now() + timeoutMs; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const answer = await get(port, host(port), "/").catch(() => null);
      if (answer?.headers["x-reposite-edge"] === "nginx" && answer.body.includes(words)) return answer;
      if (Date.now() > deadline) throw new Error(`the edge on ${port} did not serve "${words}": ${answer?.status} ${answer?.body.slice(0, 200)}`);
    }
  };
  const appServedBy = async (port: number) => {
    for (const deadline = Date.now() + 20_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const answer = await get(port, host(port), "/app/hello?x=1").catch(() => null);
      if (answer?.headers["x-reposite-edge"] === "nginx" && answer.status === 200) return JSON.parse(answer.body) as { app: boolean; path: string; forwardedFor: string };
      if (Date.now() > deadline) throw new Error(`the edge on ${port} did not serve /app/: ${answer?.status} ${answer?.body.slice(0, 200)}`);
    }
  };
  /** Runs `check` with the control plane frozen: whatever answers is the edge alone. */
  const withControlPlaneStopped = async <T>(check: () => Promise<T>): Promise<T> => {
    cp.child.kill("SIGSTOP");
    try {
      return await check();
    } finally {
      cp.child.kill("SIGCONT");
    }
  };
  const newEdge = async (env: Record<string, string> = {}) => {
    const dir = await mkdtemp(join(tmpdir(), "reposite-remote-edge-"));
    edgeDirs.push(dir);
    const started = await startEdge(await freePort(), dir, { REPOSITE_CONTROL_PLANES: `http://127.0.0.1:${cpPort}`, REPOSITE_EDGE_TOKEN: edgeToken, ...env });
    edges.push(started);
    return started;
  };

  beforeAll(async () => {
    const images = await buildLocalBaseImages();
    const repo: FakeRepo = {
      owner: "acme",
      name: `remote-edge-${run.slice(-8)}`,
      description: "Launch rockets from the terminal",
      files: { Dockerfile: [`FROM ${images.node}`, `LABEL ${RUN_LABEL}=${run}`, "WORKDIR /app", "COPY app.js ./", 'CMD ["node", "app.js"]', ""].join("\n"), "app.js": APP_JS },
    };
    github = await startFakeGitHub({ repos: [repo] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-control-plane-"));
    cpPort = await freePort();
    const setup = createReposite({ config: { dataDir }, repoHosts: [] });
    const { account } = await setup.accounts.findOrCreate(`owner-${run}@example.com`);
    token = (await setup.tokens.create(account.id, { name: "edge", lifetime: "30d" })).secret;
    await setup.close();
    cpEnv = {
      REPOSITE_DATA_DIR: dataDir,
      REPOSITE_BASE_URL: `http://127.0.0.1:${cpPort}`,
      REPOSITE_GITHUB_API_URL: github.url,
      REPOSITE_BASE_IMAGE_NODE: images.node,
      REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
      REPOSITE_EDGE_TOKEN: edgeToken,
      // Requests reach it through the edges' nginx, which sets X-Forwarded-For.
      REPOSITE_TRUST_PROXY: "1",
    };
    cp = await startServerProcess(cpPort, cpEnv);
    siteId = (await api<{ id: string }>("/app/sites", json({ repohost_url: `https://github.com/${repo.owner}/${repo.name}`, name: repo.name }))).id;
    slug = new URL((await publish("First launch")).url).hostname.split(".")[0]!;
    await api(`/app/sites/${siteId}/deployment`, json({}, undefined, "PUT"));
    const { job_id } = await api<{ job_id: string }>(`/app/sites/${siteId}/deployment/deploy`, { method: "POST" });
    for (const deadline = Date.now() + 120_000; ; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const job = await api<{ status: string; finished_at: string | null }>(`/app/jobs/${job_id}`);
      if (job.finished_at && job.status !== "done") throw new Error(`deploy ended ${job.status}`);
      if (job.finished_at) break;
      if (Date.now() > deadline) throw new Error("deploy did not finish");
    }
    edge = await newEdge();
  }, 300_000);

  afterAll(async () => {
    for (const each of edges) if (each.child.exitCode === null && each.child.signalCode === null) await each.kill();
    for (const dir of edgeDirs) await stopLeftNginx(dir);
    if (cp && cp.child.exitCode === null && cp.child.signalCode === null) {
      cp.child.kill("SIGCONT");
      await cp.kill();
    }
    await github?.close();
    await removeLabelled(RUN_LABEL, run);
    for (const dir of [dataDir, ...edgeDirs]) if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("serves the published page and /app/ from the edge's own nginx, with the control plane frozen", async () => {
    expect(edge.output()).toMatch(new RegExp(`edge: nginx \\(nginx/[\\d.]+\\) on 127\\.0\\.0\\.1:${edge.port}; configuration in .*, fed by http://127\\.0\\.0\\.1:${cpPort}`));
    await pageServedBy(edge.port, "First launch");
    await appServedBy(edge.port);
    const [pageAnswer, appAnswer, sitemap] = await withControlPlaneStopped(() =>
      Promise.all([get(edge.port, host(edge.port), "/", { "accept-encoding": "gzip" }), get(edge.port, host(edge.port), "/app/hello?x=1"), get(edge.port, host(edge.port), "/sitemap.xml")]),
    );
    expect(pageAnswer.status).toBe(200);
    expect(pageAnswer.headers["x-reposite-edge"]).toBe("nginx");
    expect(pageAnswer.body).toContain("First launch");
    expect(sitemap.status).toBe(200);
    expect(sitemap.body).toContain(`${slug}.localhost`);
    expect(appAnswer.status).toBe(200);
    expect(JSON.parse(appAnswer.body)).toMatchObject({ app: true, path: "/hello?x=1", forwardedFor: "127.0.0.1" });
    // The edge wrote the site under its own folder; the control plane's data has no edge folder at all.
    expect(await readdir(join(edge.dir, "edge", "sites"))).toEqual([slug]);
    await expect(readdir(join(dataDir, "edge"))).rejects.toThrow();
  });

  it("sends the rest to the control plane: the API and a site's sign-in", async () => {
    const health = await get(edge.port, `127.0.0.1:${edge.port}`, "/healthz");
    expect(health.status).toBe(200);
    expect(health.headers["x-reposite-edge"]).toBeUndefined();
    const auth = await get(edge.port, host(edge.port), "/auth");
    expect(auth.headers["x-reposite-edge"]).toBeUndefined();
    expect(auth.status).toBeLessThan(500);
  });

  it("refuses a wrong edge token with 401 and tells it nothing", async () => {
    for (const [path, init] of [
      ["/edge/routes", {}],
      [`/edge/sites/${slug}`, {}],
      ["/edge/visits", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ visits: [{ site_id: siteId, method: "GET", path: "/", user_agent: BROWSER }] }) }],
    ] as const) {
      for (const authorization of [`Bearer ${edgeToken.slice(0, -1)}x`, `Bearer ${token}`, ""]) {
        const response = await fetch(`http://127.0.0.1:${cpPort}${path}`, { ...init, headers: { ...(init as RequestInit).headers, ...(authorization ? { authorization } : {}) } });
        const text = await response.text();
        expect(response.status, `${path} with ${authorization.slice(0, 12)}`).toBe(401);
        expect(text).not.toContain(slug);
        expect(text).not.toContain("First launch");
      }
    }
    // An edge with the wrong token writes nothing, serves no site, and never prints either token.
    const wrong = await newEdge({ REPOSITE_EDGE_TOKEN: randomBytes(24).toString("hex") });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await readdir(join(wrong.dir, "edge", "sites"))).toEqual([]);
    expect((await get(wrong.port, host(wrong.port), "/")).headers["x-reposite-edge"]).toBeUndefined();
    expect(wrong.output()).toContain("401");
    expect(wrong.output()).not.toContain(edgeToken);
    await wrong.stop();
  });

  it("counts the pages the edge served as visits on the control plane", async () => {
    await pageServedBy(edge.port, "First launch");
    const before = (await readVisits()) ?? 0;
    for (let i = 0; i < 6; i++) expect((await get(edge.port, host(edge.port), "/", { "user-agent": BROWSER })).headers["x-reposite-edge"]).toBe("nginx");
    // Not page views: a bot and the sitemap.
    await get(edge.port, host(edge.port), "/", { "user-agent": "Googlebot/2.1 (+http://www.google.com/bot.html)" });
    await get(edge.port, host(edge.port), "/sitemap.xml", { "user-agent": BROWSER });
    await new Promise((resolve) => setTimeout(resolve, 3_500)); // nginx's log buffer (1 s), the edge's read (1 s), its batch (1 s)
    await cp.stop(); // counts are written at shutdown
    expect(await readVisits()).toBe(before + 6);
    cp = await startServerProcess(cpPort, cpEnv);
  }, 60_000);

  it("follows a restarted control plane: a publish after its restart is served", async () => {
    await cp.stop();
    cp = await startServerProcess(cpPort, cpEnv);
    await publish("Second launch");
    await pageServedBy(edge.port, "Second launch");
    await appServedBy(edge.port);
  }, 60_000);

  it("catches up after a kill -9: a publish made while the edge was down is served after its restart", async () => {
    await edge.kill();
    await publish("Third launch");
    edge = await startEdge(edge.port, edge.dir, { REPOSITE_CONTROL_PLANES: `http://127.0.0.1:${cpPort}`, REPOSITE_EDGE_TOKEN: edgeToken });
    edges.push(edge);
    await pageServedBy(edge.port, "Third launch");
    await appServedBy(edge.port);
    // Two versions at most stay on disk.
    expect((await readdir(join(edge.dir, "edge", "sites", slug))).filter((name) => name.startsWith("v")).length).toBeLessThanOrEqual(2);
  }, 60_000);

  it("lets two edges serve the same site", async () => {
    const second = await newEdge();
    await pageServedBy(second.port, "Third launch");
    await appServedBy(second.port);
    await publish("Fourth launch");
    await Promise.all([pageServedBy(edge.port, "Fourth launch"), pageServedBy(second.port, "Fourth launch")]);
    await second.stop();
  }, 60_000);

  async function readVisits(): Promise<number | undefined> {
    const reader = createReposite({ config: { dataDir }, repoHosts: [] });
    try {
      return (await reader.container.resolve(ProjectStore).get(siteId))?.visits;
    } finally {
      await reader.close();
    }
  }
});
