// What the benchmarks share: the repository root, the build check, HTTP and port helpers, CPU
// pinning and accounting from /proc, wrk, child servers and nginx. Plain ESM for plain node: the
// benchmarks run without a build step of their own.

import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer as createNetServer } from "node:net";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** True (after saying which file and how to make it, and setting exit code 1) when a package the run needs is not built. */
export function missingBuild(dists, npmScript) {
  for (const dist of dists) {
    if (!existsSync(join(ROOT, dist))) {
      console.log(`bench: ${dist} is missing; run "npm run build" first (${npmScript} does).`);
      process.exitCode = 1;
      return true;
    }
  }
  return false;
}

/**
 * A run that could not finish says why and exits 1, so CI (which runs every benchmark briefly,
 * bench/bench-runs.test.ts) fails when one no longer runs. Numbers that miss a target never fail it.
 */
export function benchFailed(error) {
  console.log(`bench: failed: ${error?.stack ?? error}`);
  process.exitCode = 1;
}

// ------------------------------------------------------------------------------------------------
// Processes and ports

/** The path of `command` on this machine, or null: optional tools (wrk, nginx, taskset) are skipped, not required. */
export function which(command) {
  try {
    return execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).trim() || null;
  } catch {
    return null;
  }
}

/** A loopback port nobody listens on now, for servers that must know their port before they start. */
export function freePort() {
  return new Promise((done, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
}

// ------------------------------------------------------------------------------------------------
// CPU pinning

export const CPUS = availableParallelism();
export const TASKSET = which("taskset");
/**
 * With taskset and 2+ CPUs, what is measured runs on CPU 0 and the load generator on the others,
 * so the server under test never fights wrk for a core (BENCH_PIN=0 turns this off).
 */
export const PIN = Boolean(TASKSET) && CPUS >= 2 && process.env.BENCH_PIN !== "0";
export const SERVER_CPU = "0";
export const LOAD_CPUS = CPUS > 2 ? `1-${CPUS - 1}` : "1";

/** `[command, args]` that run `command args…` on `cpus` when pinning, unchanged otherwise. */
export const pinned = (cpus, command, args) => (PIN ? [TASKSET, ["-c", cpus, command, ...args]] : [command, args]);

/** The load settings from the environment (bench/README.md); only the default connection count differs between benchmarks. */
export function loadSettings({ connections }) {
  return {
    /** Seconds measured per server per round. */
    duration: Number(process.env.BENCH_DURATION ?? 5),
    /** Seconds of load per server before the first round (JIT, connection pools). */
    warmup: Number(process.env.BENCH_WARMUP ?? 3),
    /** Rounds; each measures every server once, in a rotated order, and the medians are reported. */
    rounds: Number(process.env.BENCH_ROUNDS ?? 3),
    connections: Number(process.env.BENCH_CONNECTIONS ?? connections),
    /** wrk's threads: one per load CPU when pinned (at most 2). */
    threads: Number(process.env.BENCH_THREADS ?? (PIN ? Math.min(2, CPUS - 1) : 2)),
  };
}

// ------------------------------------------------------------------------------------------------
// CPU accounting

/** Kernel ticks per second, to turn /proc's tick counts into time. */
export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU ticks of a process and its children (nginx's workers), or null without /proc. */
export function cpuTicks(pid) {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    let ticks = Number(fields[11]) + Number(fields[12]);
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    for (const child of children ? children.split(" ") : []) ticks += cpuTicks(Number(child)) ?? 0;
    return ticks;
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------------------------------------
// HTTP

/**
 * One GET, by default on a new connection (`agent: false`, as a first visitor's); `timeoutMs`
 * gives up on a server that accepts and never answers, for callers that poll.
 */
export function get(url, headers = {}, { agent = false, timeoutMs } = {}) {
  return new Promise((done, reject) => {
    const req = httpRequest(url, { headers, agent, ...(timeoutMs ? { timeout: timeoutMs } : {}) }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => done({ status: res.statusCode, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

/**
 * One form POST (`fields` url-encoded) with the given headers, `Host` included (fetch cannot set
 * it): status, headers and body, as a browser's sign-in form sends it.
 */
export function postForm(url, headers, fields) {
  const body = new URLSearchParams(fields).toString();
  return new Promise((done, reject) => {
    const req = httpRequest(url, { method: "POST", agent: false, headers: { ...headers, "content-type": "application/x-www-form-urlencoded", "content-length": String(Buffer.byteLength(body)) } }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => done({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** True once `url` answers 200 within `ms`, polling every 50 ms. */
export async function waitFor(url, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if ((await get(url).catch(() => null))?.status === 200) return true;
    await new Promise((done) => setTimeout(done, 50));
  }
  return false;
}

// ------------------------------------------------------------------------------------------------
// Numbers

/** The median (NaN for none): rounds are few and one slow one must not move the result. */
export function median(values) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// ------------------------------------------------------------------------------------------------
// Load

/**
 * wrk on the load CPUs for `seconds` against `target` ({url, headers}): req/s, requests, errors
 * (non-2xx/3xx and socket errors) and p50/p99 in ms from its latency distribution.
 */
export function loadWithWrk(wrk, target, seconds, { threads, connections, script }) {
  const args = [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, "--latency"];
  // A Lua script picks each request (a mix of reads and writes).
  if (script) args.push("-s", script);
  for (const [name, value] of Object.entries(target.headers)) args.push("-H", `${name === "host" ? "Host" : name}: ${value}`);
  args.push(target.url);
  return new Promise((done, reject) => {
    const [command, commandArgs] = pinned(LOAD_CPUS, wrk, args);
    const child = spawn(command, commandArgs, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.once("error", reject);
    child.once("exit", () => {
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
      if (!Number.isFinite(rps)) return reject(new Error(`wrk gave no result:\n${out}`));
      const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
      const socket = /Socket errors:.*?connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const errors = non2xx + (socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0);
      done({ rps, requests, errors, p50: percentile(out, "50"), p99: percentile(out, "99") });
    });
  });
}

/** A percentile line of wrk's "Latency Distribution", in ms. */
function percentile(out, which) {
  const match = new RegExp(`^\\s+${which}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(out);
  if (!match) return NaN;
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
}

// ------------------------------------------------------------------------------------------------
// Servers under test

/**
 * Runs `script` again (pinned to the server CPU) with `args`, the role as the first, and waits for
 * its first IPC message (what it listens on). `stop()` asks it to stop, and kills it after 5 s.
 * `name` says which child failed when it exits before its message.
 */
export function startChild(script, args, { name = args[0] } = {}) {
  return new Promise((resolveChild, reject) => {
    const [command, commandArgs] = pinned(SERVER_CPU, process.execPath, [fileURLToPath(script), ...args]);
    const child = spawn(command, commandArgs, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}`)));
    child.once("message", (info) => {
      child.removeAllListeners("exit");
      resolveChild({
        info,
        pid: child.pid,
        stop: () =>
          new Promise((done) => {
            const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
            child.once("exit", () => {
              clearTimeout(timer);
              done();
            });
            child.send("stop");
          }),
      });
    });
  });
}

/** nginx's binary, also where apt puts it when /usr/sbin is not on PATH; null without nginx. */
export function nginxBinary() {
  return which("nginx") ?? (existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : null);
}

/**
 * nginx with one worker, in the foreground, on a loopback port, every file it writes under
 * `prefix`. `http(port)` gives the script's own part of the `http` block (its server, and what
 * that needs); the settings every run shares are here. Answers null (and says so, ending with
 * `skipped`) when nginx does not answer 200 at `path` within 5 s.
 */
export async function startNginx(binary, prefix, { http, path, skipped }) {
  mkdirSync(prefix, { recursive: true });
  // Workers run as `nobody` when nginx starts as root: the folders they read must be open to it.
  for (const folder of [dirname(prefix), prefix]) chmodSync(folder, 0o755);
  const port = await freePort();
  const temp = (name) => join(prefix, name);
  writeFileSync(
    join(prefix, "nginx.conf"),
    `worker_processes 1;
daemon off;
pid ${temp("nginx.pid")};
error_log ${temp("error.log")} warn;
events { worker_connections 4096; }
http {
  access_log off;
  tcp_nodelay on;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  client_body_temp_path ${temp("client_body")};
  proxy_temp_path ${temp("proxy")};
  fastcgi_temp_path ${temp("fastcgi")};
  uwsgi_temp_path ${temp("uwsgi")};
  scgi_temp_path ${temp("scgi")};
${http(port)}}
`
  );
  const [command, args] = pinned(SERVER_CPU, binary, ["-p", prefix, "-c", join(prefix, "nginx.conf")]);
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((done) => child.once("exit", done));
  const up = await waitFor(`http://127.0.0.1:${port}${path}`, 5_000);
  if (!up) {
    child.kill("SIGKILL");
    console.log(`bench: nginx did not start: ${stderr.trim() || "no answer"}; ${skipped}`);
    return null;
  }
  return {
    port,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGQUIT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The hand-written nginx reference for `/app/` (bench:proxy, bench:edge): an upstream with a
 * keep-alive pool to the app, and a location that removes the prefix and sets the forwarding
 * headers as Reposite does. Goes inside `http` (the upstream) and a `server` (the location).
 */
export function handWrittenAppProxy(appPort) {
  return {
    upstream: `  upstream app {
    server 127.0.0.1:${appPort};
    keepalive 64;
    keepalive_timeout 4s;
  }
`,
    location: `    location /app/ {
      proxy_pass http://app/;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_set_header X-Forwarded-Prefix /app;
      proxy_buffering off;
    }
`,
  };
}
