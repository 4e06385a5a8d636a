import { execFile, spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";

/** One nginx master process run in the foreground (`daemon off`), from `<dir>/nginx.conf`. */
export interface NginxProcess {
  /**
   * Tells the master to load its configuration again. Resolves once new workers serve it (new
   * connections get it); `oldWorkersGone` resolves once the workers of every earlier configuration
   * have finished their requests and exited. Not awaited by `reload` itself: a stream through an old
   * worker (a client following its deploy's job stream) may last until after the deploy that waits
   * for this reload says done.
   */
  reload(): Promise<{ oldWorkersGone: Promise<void> }>;
  /** Graceful stop (SIGQUIT), then SIGKILL of the master and its workers once `timeoutMs` has passed. */
  stop(timeoutMs: number): Promise<void>;
  /** Resolves with the exit code when the master exits. */
  exited: Promise<number | null>;
}

/** `nginx -t` on a configuration; resolves, or rejects with what nginx said. */
export function testConfig(binary: string, dir: string, conf: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(binary, ["-t", "-q", "-p", dir, "-c", conf], (error, _stdout, stderr) => (error ? reject(new Error(stderr.trim() || error.message)) : resolve()));
  });
}

export async function startNginx(binary: string, dir: string, listen: { hostname: string; port: number }): Promise<NginxProcess> {
  const child: ChildProcess = spawn(binary, ["-p", dir, "-c", join(dir, "nginx.conf")], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.once("error", () => {});
  // Up once the port answers; a master that exits first failed (a port in use, a permission).
  for (const deadline = Date.now() + 10_000; ; ) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const log = await readFile(join(dir, "error.log"), "utf8").catch(() => "");
      throw new Error(`nginx did not start: ${(stderr || log).trim().split("\n").slice(-3).join(" ")}`);
    }
    if (await answers(listen)) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`nginx did not answer on ${listen.hostname}:${listen.port} within 10 s`);
    }
    await sleep(20);
  }
  const pid = child.pid!;
  return {
    exited,
    async reload() {
      const before = await workers(pid);
      process.kill(pid, "SIGHUP");
      const running = () => child.exitCode === null && child.signalCode === null;
      // The master starts the new workers, then tells the old ones to finish: until an old worker has
      // heard it ("is shutting down"), it still takes new connections and requests with the old routes.
      for (const deadline = Date.now() + 10_000; running() && Date.now() < deadline; await sleep(20)) {
        const now = await workers(pid);
        const titles = await Promise.all(now.filter((worker) => before.includes(worker)).map(title));
        if (now.some((worker) => !before.includes(worker)) && titles.every((text) => !text.includes("worker process") || text.includes("shutting down"))) break;
      }
      // Old workers exit once their requests are done (bounded by worker_shutdown_timeout).
      const oldWorkersGone = (async () => {
        while (running() && (await workers(pid)).some((worker) => before.includes(worker))) await sleep(100);
      })();
      return { oldWorkersGone };
    },
    async stop(timeoutMs) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGQUIT");
      // Workers outlive a killed master (and old ones may hold long streams for worker_shutdown_timeout): they go too.
      const timer = setTimeout(() => {
        void workers(pid).then((left) => {
          left.forEach(killQuietly);
          child.kill("SIGKILL");
        });
      }, timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

const killQuietly = (pid: number) => {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
};

/** A process's title ("nginx: worker process is shutting down"); "" once it is gone. */
const title = (pid: number) => readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");

/** The master's worker processes now (Linux: /proc lists a process's children). */
async function workers(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
  return text.split(/\s+/).filter(Boolean).map(Number);
}

function answers({ hostname, port }: { hostname: string; port: number }): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: hostname === "0.0.0.0" ? "127.0.0.1" : hostname === "::" ? "::1" : hostname, port });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
