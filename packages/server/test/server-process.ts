import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** The built CLI, run as an operator runs it (npm test builds it first). */
export const BIN = join(import.meta.dirname, "../bin/reposite.mjs");

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  /** Everything the process wrote so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** SIGKILL: no shutdown code runs. */
  kill(): Promise<void>;
  /** SIGTERM, and waits for the exit. */
  stop(): Promise<void>;
}

/** Runs `reposite serve` in its own process on `port`, and resolves once it has printed its start-up lines and answers `/healthz`. */
export async function startServerProcess(port: number, env: Record<string, string>): Promise<ServerProcess> {
  if (!existsSync(BIN.replace("bin/reposite.mjs", "dist/index.js"))) {
    throw new Error("packages/server/dist is missing: run `npm run build` (npm test does it first).");
  }
  const child = spawn(process.execPath, [BIN, "serve"], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  // Up once /healthz answers and the start-up lines are out: behind nginx, /healthz answers a moment before
  // `reposite serve` has finished starting (recovered apps and runs) and printed them; "payments:" is the last line.
  for (const deadline = Date.now() + 30_000; ; ) {
    const up = /^ {2}payments: /m.test(stdout) && (await fetch(`${url}/healthz`).then((response) => response.ok, () => false));
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the server did not start:\n${stdout}\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    url,
    port,
    exited,
    output: () => ({ stdout, stderr }),
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

export { getWithHost } from "@reposite/test-support";

/**
 * Stops the nginx a killed server (or edge) left running with `dataDir` (REPOSITE_EDGE=nginx: nginx
 * outlives a kill -9 of its parent, as it should), by its pid file, and waits until it is gone.
 */
export async function stopLeftNginx(dataDir: string): Promise<void> {
  const pid = Number(await readFile(join(dataDir, "edge", "nginx.pid"), "utf8").catch(() => "0"));
  if (!pid || !alive(pid)) return;
  process.kill(pid, "SIGQUIT");
  for (const deadline = Date.now() + 10_000; alive(pid) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
  if (alive(pid)) process.kill(pid, "SIGKILL");
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * `fetch`, for tests that talk to a server behind nginx: nginx's old workers close idle keep-alive
 * connections at a reload, and a GET sent on one as it closes is asked again on a new connection,
 * as browsers do. Other methods are not repeated.
 */
export async function fetchThroughReloads(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, init).catch((error: unknown) => {
    if ((init.method ?? "GET") === "GET" && (error as { cause?: { code?: string } }).cause?.code === "UND_ERR_SOCKET") return fetch(url, init);
    throw error;
  });
}
