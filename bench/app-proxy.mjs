// Requests per second and p99 latency for one small app answer, reached three ways in one run:
//   direct     straight to the app's own port (no proxy: the ceiling)
//   reference  the Reposite server's /app/ proxy (packages/server/dist), Host: <slug>.localhost:<port>
//   nginx      nginx proxying the same app the way Reposite does (prefix removed, X-Forwarded-*, keep-alive upstream)
// and, for information, the floor of any proxy written on node:http: a bare one (keep-alive agent,
// pipe both ways, no rules, no httpxy).
// The app is a plain node:http server in its own process; wrk drives each target in turn at
// BENCH_CONNECTIONS (32) connections. A benchmark reports: it exits 0 whatever it measured, 1 when it could not run. See bench/README.md.

import { mkdtempSync, rmSync } from "node:fs";
import { Agent, createServer as createHttpServer, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CLOCK_TICKS,
  LOAD_CPUS,
  PIN,
  SERVER_CPU,
  TASKSET,
  benchFailed,
  cpuTicks,
  freePort,
  get,
  handWrittenAppProxy,
  loadSettings,
  loadWithWrk,
  median,
  missingBuild,
  nginxBinary,
  startChild,
  startNginx,
  which,
} from "./lib.mjs";

const SLUG = "lumen";
// Pinned (bench/lib.mjs), the app and the proxy under test share CPU 0, as an app and its proxy
// share a host, and wrk runs on the others.
const SETTINGS = loadSettings({ connections: 32 });
/** At least nginx's proxy throughput; at most 1 ms added to the app's own p99. */
const TARGETS = { nginxRatio: 1.0, addedP99Ms: 1.0 };

/** What the app answers at `/`: a small JSON document, as an API or a page's data would be. */
const APP_BODY = JSON.stringify({ ok: true, service: "lumen", items: Array.from({ length: 8 }, (_, i) => ({ id: i, name: `item ${i}` })) });

// ------------------------------------------------------------------------------------------------
// Children

/** The stand-in app: node:http answering APP_BODY on every path, keep-alive as node's default (5 s). */
async function runApp() {
  const body = Buffer.from(APP_BODY);
  const server = createHttpServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
    res.end(body);
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  process.on("message", (message) => {
    if (message === "stop") server.close(() => process.exit(0));
  });
  process.send({ port: server.address().port });
}

/** For information: the least a node:http proxy does (strip /app, keep-alive agent, pipe both ways). */
async function runNodeProxy(appPort) {
  const agent = new Agent({ keepAlive: true, scheduling: "lifo" });
  const server = createHttpServer((req, res) => {
    const upstream = httpRequest({ host: "127.0.0.1", port: appPort, path: req.url.slice(4) || "/", method: req.method, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  process.on("message", (message) => {
    if (message === "stop") process.exit(0);
  });
  process.send({ port: server.address().port });
}

/** The reference server on a temp data dir, with a published site whose app route points at the app. */
async function runReference(workDir, appPort) {
  const core = await import("@reposite/core");
  const { startServer } = await import("@reposite/server");
  const port = await freePort();
  const repoHost = {
    id: "bench",
    parseLink: (link) => (link === "https://code.test/lumen-dev/lumen" ? { host: "bench", owner: "lumen-dev", name: "lumen", url: link } : null),
    getRepository: async (repo) => ({ owner: repo.owner, name: repo.name, url: repo.url, private: false, description: "Status pages", topics: [], defaultBranch: "main" }),
    getReadme: async () => "# Lumen",
    getSourceArchive: async () => {
      throw new Error("not used by the benchmark");
    },
  };
  const reposite = core.createReposite({
    repoHosts: [repoHost],
    config: { dataDir: join(workDir, "data"), baseUrl: `http://127.0.0.1:${port}`, sitesDomain: `localhost:${port}` },
  });
  const server = await startServer({ settings: { listen: { port, hostname: "127.0.0.1" }, reposite: {} }, reposite });
  const { account } = await reposite.accounts.findOrCreate("bench@example.com");
  const project = await reposite.projects.create(account.id, { repohost_url: "https://code.test/lumen-dev/lumen" });
  const design = core.DESIGNS[0];
  const now = new Date().toISOString();
  const page = { path: "/", contentType: "text/html; charset=utf-8", body: "<!doctype html><title>Lumen</title>", etag: '"1"', lastModified: now };
  // What publishing leaves, then what the hosting service writes once the app is healthy.
  await reposite.container.resolve(core.STORAGE).setItem(`published-sites:${SLUG}`, {
    site_id: project.id,
    owner_id: account.id,
    slug: SLUG,
    url: core.siteUrl(reposite.config, SLUG),
    design: design.id,
    name: project.name,
    pages: ["template"],
    community: false,
    files: { "/": page },
    published_at: now,
    revision: 1,
  });
  reposite.container.resolve(core.AppRoutes).set(project.id, { status: "running", target: { host: "127.0.0.1", port: appPort } });
  process.on("message", async (message) => {
    if (message !== "stop") return;
    await server.close();
    process.exit(0);
  });
  process.send({ port, host: `${SLUG}.localhost:${port}` });
}

// ------------------------------------------------------------------------------------------------
// The run

async function main() {
  if (missingBuild(["packages/core/dist/index.js", "packages/server/dist/index.js"], "npm run bench:proxy")) return;
  const wrk = which("wrk");
  const nginx = nginxBinary();
  if (!wrk) {
    console.log("bench: wrk not found (apt-get install -y wrk): p99 needs wrk; nothing measured");
    return;
  }
  const workDir = mkdtempSync(join(tmpdir(), "reposite-bench-proxy-"));
  const stops = [];
  try {
    console.log(
      `bench: one app answer (${Buffer.byteLength(APP_BODY)} bytes of JSON) through /app/, ${SETTINGS.connections} connections, ${SETTINGS.rounds} rounds of ${SETTINGS.duration}s per target after ${SETTINGS.warmup}s warm-up, wrk -t${SETTINGS.threads}`
    );
    console.log(PIN ? `bench: app and proxy on CPU ${SERVER_CPU}, wrk on CPU ${LOAD_CPUS} (taskset)` : `bench: no CPU pinning (${TASKSET ? "BENCH_PIN=0 or one CPU" : "taskset not found"})`);

    const app = await startChild(import.meta.url, ["--app", workDir]);
    stops.push(app.stop);
    const reference = await startChild(import.meta.url, ["--reference", workDir, String(app.info.port)]);
    stops.push(reference.stop);
    const nodeProxy = await startChild(import.meta.url, ["--node-proxy", workDir, String(app.info.port)]);
    stops.push(nodeProxy.stop);

    const targets = [
      { key: "direct", name: "app's own port", url: `http://127.0.0.1:${app.info.port}/`, headers: {}, pids: [app.pid] },
      { key: "reference", name: "Reposite /app/", url: `http://127.0.0.1:${reference.info.port}/app/`, headers: { host: reference.info.host }, pids: [reference.pid, app.pid] },
    ];
    targets.push({ key: "nodeProxy", name: "bare node proxy", url: `http://127.0.0.1:${nodeProxy.info.port}/app/`, headers: { host: reference.info.host }, pids: [nodeProxy.pid, app.pid] });
    if (nginx) {
      const started = await startProxyNginx(nginx, workDir, app.info.port);
      if (started) {
        stops.push(started.stop);
        targets.push({ key: "nginx", name: "nginx proxy_pass", url: `http://127.0.0.1:${started.port}/app/`, headers: { host: reference.info.host }, pids: [started.pid, app.pid] });
      }
    } else {
      console.log("bench: nginx not found (apt-get install -y nginx): the nginx comparison is skipped");
    }
    for (const target of targets) {
      const answer = await get(target.url, target.headers);
      if (answer.status !== 200 || answer.body.toString() !== APP_BODY) {
        console.log(`bench: ${target.name} did not answer the app's body (status ${answer.status}): ${answer.body.toString().slice(0, 200)}`);
        return;
      }
    }

    // BENCH_WARMUP=0 skips it (wrk takes no zero duration).
    if (SETTINGS.warmup > 0) for (const target of targets) await loadWithWrk(wrk, target, SETTINGS.warmup, SETTINGS);
    const runs = Object.fromEntries(targets.map((target) => [target.key, []]));
    for (let round = 0; round < SETTINGS.rounds; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length]);
      const line = [];
      for (const target of order) {
        const before = target.pids.map(cpuTicks);
        const run = await loadWithWrk(wrk, target, SETTINGS.duration, SETTINGS);
        const after = target.pids.map(cpuTicks);
        const ticks = after.every((value, i) => value !== null && before[i] !== null) ? after.reduce((sum, value, i) => sum + value - before[i], 0) : null;
        run.cpuUs = ticks !== null && run.requests > 0 ? (ticks * 1e6) / CLOCK_TICKS / run.requests : null;
        runs[target.key].push(run);
        line.push(`${target.key} ${run.rps.toFixed(0)} req/s p99 ${run.p99.toFixed(2)} ms${run.errors ? ` [${run.errors} errors]` : ""}`);
      }
      console.log(`  round ${round + 1}: ${line.join(", ")}`);
    }

    console.log("  median:");
    for (const target of targets) {
      const cpu = median(runs[target.key].map((run) => run.cpuUs).filter((value) => value !== null));
      console.log(
        `    ${target.name.padEnd(18)} ${median(runs[target.key].map((run) => run.rps)).toFixed(0).padStart(8)} req/s   p50 ${median(runs[target.key].map((run) => run.p50)).toFixed(2)} ms   p99 ${median(runs[target.key].map((run) => run.p99)).toFixed(2)} ms` +
          (Number.isFinite(cpu) ? `   ${cpu.toFixed(1)} µs CPU/req (proxy + app)` : "")
      );
    }
    // Same-round comparisons (seconds apart), then their median: steadier on a shared machine.
    const sameRound = (key, against, f) => median(runs[key].map((run, round) => f(run, runs[against][round])));
    const proxyOverDirect = sameRound("reference", "direct", (a, b) => a.rps / b.rps);
    const addedP99 = sameRound("reference", "direct", (a, b) => a.p99 - b.p99);
    console.log("  results:");
    console.log(`    Reposite / direct throughput  ${proxyOverDirect.toFixed(3)}x`);
    if (runs.nginx) {
      const overNginx = sameRound("reference", "nginx", (a, b) => a.rps / b.rps);
      const nginxAdded = sameRound("nginx", "direct", (a, b) => a.p99 - b.p99);
      console.log(`    Reposite / nginx throughput   ${overNginx.toFixed(3)}x  (target >= ${TARGETS.nginxRatio.toFixed(2)}x: ${overNginx >= TARGETS.nginxRatio ? "met" : "NOT met"})`);
      console.log(`    nginx / direct throughput     ${sameRound("nginx", "direct", (a, b) => a.rps / b.rps).toFixed(3)}x`);
      console.log(`    p99 added by nginx            ${nginxAdded.toFixed(2)} ms`);
    }
    console.log(`    p99 added by Reposite         ${addedP99.toFixed(2)} ms  (target <= ${TARGETS.addedP99Ms.toFixed(2)} ms: ${addedP99 <= TARGETS.addedP99Ms ? "met" : "NOT met"})`);
    console.log(`    (bare node proxy / direct     ${sameRound("nodeProxy", "direct", (a, b) => a.rps / b.rps).toFixed(3)}x, p99 added ${sameRound("nodeProxy", "direct", (a, b) => a.p99 - b.p99).toFixed(2)} ms: the floor of a node:http proxy)`);
    const cpuOf = (key) => median(runs[key].map((run) => run.cpuUs).filter((value) => value !== null));
    const own = (key) => cpuOf(key) - cpuOf("direct");
    if (Number.isFinite(own("reference"))) {
      console.log("  CPU per request spent by the proxy itself (proxy + app, less the app alone):");
      for (const key of ["reference", "nodeProxy", "nginx"]) if (runs[key]) console.log(`    ${targets.find((t) => t.key === key).name.padEnd(18)} ${own(key).toFixed(1)} µs`);
    }
  } catch (error) {
    benchFailed(error);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * nginx, one worker, proxying `/app/` to the app as Reposite does: the prefix removed, the
 * forwarding headers set, Host kept, and a keep-alive pool to the app.
 */
function startProxyNginx(binary, workDir, appPort) {
  const proxy = handWrittenAppProxy(appPort);
  return startNginx(binary, join(workDir, "nginx"), {
    path: "/app/",
    skipped: "the nginx comparison is skipped",
    http: (port) => `${proxy.upstream}  server {
    listen 127.0.0.1:${port};
${proxy.location}  }
`,
  });
}

const role = process.argv[2];
if (role === "--app") await runApp();
else if (role === "--reference") await runReference(process.argv[3], Number(process.argv[4]));
else if (role === "--node-proxy") await runNodeProxy(Number(process.argv[4]));
else await main();
