// Instructions nginx runs per request, counted by valgrind's callgrind: the edge's generated
// configuration (REPOSITE_EDGE=nginx, as bench:edge starts it) against hand-written nginx doing the
// same job, in one run:
//   page      one published page (gzip) from the edge's files   vs  nginx serving the same file
//   /app/     one app answer through the edge's /app/            vs  a hand-written proxy_pass
//   /app/ with 1,000 apps routed: the same, with 1,000 more app upstreams before the app's own
// Throughput on this shared 2-core machine swings with whatever else runs; instructions do not, so
// this tells what a change to the generated configuration costs. It counts nginx's own work (user
// space), not the kernel's: a request's syscalls are the same in each pair (checked with strace).
// Each nginx runs as one process (master_process off) under callgrind; wrk drives it for a few
// seconds between a reset and a dump of the counters. A benchmark reports: it exits 0 whatever it
// measured, 1 when it could not run. See bench/README.md.

import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { benchFailed, freePort, get, handWrittenAppProxy, missingBuild, nginxBinary, startChild, which } from "./lib.mjs";

const run = promisify(execFile);
const EDGE_BENCH = new URL("./edge.mjs", import.meta.url);
/** Seconds of load per measurement. */
const SECONDS = Number(process.env.BENCH_DURATION ?? 3);
/** App upstreams routed besides the bench's own, for the scan nginx makes to find one by name. */
const MORE_APPS = 1_000;
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";

async function main() {
  if (missingBuild(["packages/core/dist/index.js", "packages/server/dist/index.js"], "npm run bench:edge-instructions")) return;
  const tools = { valgrind: which("valgrind"), control: which("callgrind_control"), wrk: which("wrk"), nginx: nginxBinary() };
  const missing = Object.entries(tools).filter(([, path]) => !path).map(([name]) => name);
  if (missing.length > 0) {
    console.log(`bench: ${missing.join(", ")} not found (apt-get install -y valgrind wrk nginx); nothing measured`);
    return;
  }
  const { appUpstream } = await import("@reposite/core");
  const workDir = mkdtempSync(join(tmpdir(), "reposite-bench-instructions-"));
  const stops = [];
  try {
    const app = await startChild(EDGE_BENCH, ["--app", workDir]);
    stops.push(app.stop);
    const edge = await startChild(EDGE_BENCH, ["--edge", workDir, String(app.info.port)]);
    stops.push(edge.stop);
    const edgeDir = join(workDir, "data", "edge");
    const host = edge.info.host;
    const moreApps = Array.from({ length: MORE_APPS }, (_, i) => `upstream ${appUpstream(`site_bench${String(i).padStart(11, "0")}`)} {\n  server 127.0.0.1:${20_000 + i};\n  keepalive 32;\n}\n`).join("");
    const edgeConf = (name, port, routesBefore = "") => edgeCopy(edgeDir, edge.info.port, join(workDir, name), port, routesBefore);
    const hand = (name, port, location, upstream) => handConf(join(workDir, name), port, location, upstream);
    const proxy = handWrittenAppProxy(app.info.port);
    const measure = (name, prefix, conf, port, path) => instructionsPerRequest(tools, name, prefix, conf, port, path, host);

    console.log(`bench: instructions per request in nginx (callgrind), ${SECONDS}s of wrk per target, 4 connections`);
    const results = {};
    const targets = [
      ["static", (port) => measure("static", workDir, hand("static", port, `    location = / {\n      root ${edge.info.siteDir};\n      gzip_static on;\n      try_files /index.html =404;\n    }\n`), port, "/")],
      ["page", (port) => measure("page", edgeDir, edgeConf("page", port), port, "/")],
      ["proxy", (port) => measure("proxy", workDir, hand("proxy", port, proxy.location, proxy.upstream), port, "/app/")],
      ["app", (port) => measure("app", edgeDir, edgeConf("app", port), port, "/app/")],
      ["apps", (port) => measure("apps", edgeDir, edgeConf("apps", port, moreApps), port, "/app/")],
    ];
    for (const [key, start] of targets) {
      results[key] = await start(await freePort());
      console.log(`  ${key}: ${Math.round(results[key]).toLocaleString("en")} instructions per request`);
    }
    console.log("  results:");
    console.log(`    edge page vs nginx static (instructions, lower is better): ${(results.page / results.static).toFixed(2)}x`);
    console.log(`    edge /app/ vs nginx proxy_pass (instructions, lower is better): ${(results.app / results.proxy).toFixed(2)}x`);
    console.log(`    edge /app/ with ${MORE_APPS.toLocaleString("en")} more apps routed vs 1 app (instructions): ${(results.apps / results.app).toFixed(2)}x`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * The edge's nginx.conf and routes.conf, copied for one process on `port`: the same server blocks,
 * maps and upstreams (`routesBefore` first), its own pid, log and visits files.
 */
function edgeCopy(edgeDir, edgePort, dir, port, routesBefore) {
  const swap = (text) => text.replaceAll(`:${edgePort}`, `:${port}`);
  const routes = join(`${dir}-routes.conf`);
  writeFileSync(routes, routesBefore + swap(readFileSync(join(edgeDir, "routes.conf"), "utf8")));
  const conf = swap(readFileSync(join(edgeDir, "nginx.conf"), "utf8"))
    .replace("master_process on;", "master_process off;")
    .replace(/worker_processes [^;]+;/, "worker_processes 1;")
    .replace(/^pid .*;$/m, `pid ${dir}.pid;`)
    .replace(/^error_log .*;$/m, `error_log ${dir}-error.log warn;`)
    .replace("include routes.conf;", `include ${routes};`)
    .replaceAll(/access_log \S+ reposite_visits/g, `access_log ${dir}-visits.log reposite_visits`);
  writeFileSync(`${dir}.conf`, conf);
  return `${dir}.conf`;
}

/** Hand-written nginx: bench:edge's references, in one process. */
function handConf(dir, port, location, upstream = "") {
  writeFileSync(
    `${dir}.conf`,
    `daemon off;
master_process off;
user root;
worker_processes 1;
pid ${dir}.pid;
error_log ${dir}-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}-body;
  proxy_temp_path ${dir}-proxy;
${upstream}  server {
    listen 127.0.0.1:${port};
${location}  }
}
`,
  );
  return `${dir}.conf`;
}

/** Runs nginx under callgrind, drives it with wrk between a reset and a dump, and divides. */
async function instructionsPerRequest(tools, name, prefix, conf, port, path, host) {
  const out = join(tmpdir(), `reposite-bench-callgrind-${process.pid}-${name}.out`);
  const child = spawn(tools.valgrind, ["--tool=callgrind", `--callgrind-out-file=${out}`, tools.nginx, "-p", prefix, "-c", conf], { stdio: ["ignore", "ignore", "pipe"], detached: true });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((done) => child.once("exit", done));
  try {
    const url = `http://127.0.0.1:${port}${path}`;
    if (!(await answers(url, host))) throw new Error(`nginx (${name}) did not answer under valgrind: ${stderr.split("\n").filter((line) => !line.startsWith("==")).join(" ").slice(0, 300)}`);
    for (let i = 0; i < 20; i++) await get(url, { host, "accept-encoding": "gzip", "user-agent": BROWSER });
    await run(tools.control, ["-z", String(child.pid)]);
    const { stdout } = await run(tools.wrk, ["-t1", "-c4", `-d${SECONDS}s`, "-H", `Host: ${host}`, "-H", "accept-encoding: gzip", "-H", `user-agent: ${BROWSER}`, url]);
    await run(tools.control, ["-d", String(child.pid)]);
    // valgrind takes the command when nginx next wakes: one more request wakes it (counted after the dump).
    await get(url, { host });
    const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
    const failed = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
    if (requests === 0 || failed > 0) throw new Error(`${name}: ${failed} of ${requests} requests failed`);
    const dump = `${out}.1`;
    for (const deadline = Date.now() + 10_000; !/^totals: \d+/m.test(existsSync(dump) ? readFileSync(dump, "utf8") : ""); ) {
      if (Date.now() > deadline) throw new Error(`${name}: callgrind wrote no counts`);
      await new Promise((done) => setTimeout(done, 100));
    }
    return Number(/^summary: (\d+)/m.exec(readFileSync(dump, "utf8"))[1]) / requests;
  } finally {
    if (child.exitCode === null) {
      process.kill(-child.pid, "SIGKILL");
      await exited;
    }
    for (const file of [out, `${out}.1`]) rmSync(file, { force: true });
  }
}

/** True once `url` answers 200 for `host` (nginx under valgrind starts slowly); false after 30 s. */
async function answers(url, host) {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((done) => setTimeout(done, 100))) {
    if ((await get(url, { host }).catch(() => null))?.status === 200) return true;
  }
  return false;
}

main().catch(benchFailed);
