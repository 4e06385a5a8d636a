import { execFile, spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { findBrotliStatic, findNginx, workerUser } from "./find-nginx.js";

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

/** Where visitors reach nginx. */
export interface Listen {
  hostname: string;
  port: number;
}

/**
 * How nginx is run: the machine's own binary (`hostNginx`), or in a container on the Docker Engine
 * (`nginx-container.ts`). The edge writes the same files for either.
 */
export interface NginxRunner {
  /** The version line (`nginx/1.22.1`), or a start-up error that says what is missing. */
  version(): Promise<string>;
  /** `nginx -t` on a configuration; resolves, or rejects with what nginx said. */
  test(dir: string, conf: string): Promise<void>;
  /**
   * Starts nginx on `<dir>/nginx.conf`; resolves once every address in `listen` answers. A container
   * joins `networks` before it starts, so nginx never answers before it can reach those apps.
   */
  start(dir: string, listen: readonly Listen[], networks?: ReadonlySet<string>): Promise<NginxProcess>;
  /** Where nginx itself listens for visitors that reach it at `listen` (a container listens on all its interfaces). */
  seat(listen: Listen): Listen;
  /** Who nginx's workers run as, so they read the files under the data directory (see find-nginx.ts). */
  workerUser(dataDir: string): Promise<string | undefined>;
  /** Whether nginx's own brotli_static module is there (then `.br` files are written and served). */
  brotliStatic(): Promise<string | null>;
  /** Joins exactly these networks (Swarm apps' overlays), leaving the others it joined; absent for the host's nginx. */
  networks?(names: ReadonlySet<string>): Promise<void>;
  /**
   * nginx runs in a container: it cannot reach a listener on this machine's loopback (the member
   * gate), and its workers' user is always named (the container's own users are not this machine's).
   */
  readonly inContainer: boolean;
}

/** The machine's own nginx binary, supervised as a child process. */
export function hostNginx(binary = "nginx"): NginxRunner {
  return {
    version: () => findNginx(binary),
    test: (dir, conf) => testConfig(binary, dir, conf),
    start: (dir, listen) => startNginx(binary, dir, listen),
    seat: (listen) => listen,
    workerUser,
    brotliStatic: findBrotliStatic,
    inContainer: false,
  };
}

/** `nginx -t` on a configuration; resolves, or rejects with what nginx said. */
export function testConfig(binary: string, dir: string, conf: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(binary, ["-t", "-q", "-p", dir, "-c", conf], (error, _stdout, stderr) => (error ? reject(new Error(stderr.trim() || error.message)) : resolve()));
  });
}

export async function startNginx(binary: string, dir: string, listen: readonly Listen[]): Promise<NginxProcess> {
  const child: ChildProcess = spawn(binary, ["-p", dir, "-c", join(dir, "nginx.conf")], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.once("error", () => {});
  const running = () => child.exitCode === null && child.signalCode === null;
  await untilAnswering(listen, running, async () => {
    const log = await readFile(join(dir, "error.log"), "utf8").catch(() => "");
    return (stderr || log).trim();
  }, () => void child.kill("SIGKILL"));
  const pid = child.pid!;
  return superviseMaster({
    pid,
    running,
    exited,
    signal: async (name) => void child.kill(name),
    // Workers outlive a killed master (and old ones may hold long streams for worker_shutdown_timeout): they go too.
    kill: async () => {
      (await workers(pid)).forEach(killQuietly);
      child.kill("SIGKILL");
    },
  });
}

/**
 * Up once every address answers; a master that exits first failed (a port in use, a permission):
 * `said` tells why. After 10 s `kill` ends it.
 */
export async function untilAnswering(listen: readonly Listen[], running: () => boolean, said: () => Promise<string>, kill: () => void): Promise<void> {
  for (const deadline = Date.now() + 10_000; ; ) {
    if (!running()) throw new Error(`nginx did not start: ${(await said()).split("\n").slice(-3).join(" ")}`);
    if ((await Promise.all(listen.map(answers))).every(Boolean)) return;
    if (Date.now() > deadline) {
      kill();
      throw new Error(`nginx did not answer on ${listen.map(({ hostname, port }) => `${hostname}:${port}`).join(", ")} within 10 s`);
    }
    await sleep(20);
  }
}

/** A running nginx master as reload and stop need it: its pid on this machine, its signals, its end. */
export interface NginxMaster {
  pid: number;
  running(): boolean;
  exited: Promise<number | null>;
  signal(name: "SIGHUP" | "SIGQUIT"): Promise<void>;
  /** Ends the master and every worker now. */
  kill(): Promise<void>;
}

/** Reload and stop of a master, watching its workers through /proc (the host's or a container's: both are this machine's processes). */
export function superviseMaster(master: NginxMaster): NginxProcess {
  const { pid, running, exited } = master;
  return {
    exited,
    async reload() {
      const before = await workers(pid);
      await master.signal("SIGHUP");
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
      if (!running()) return;
      await master.signal("SIGQUIT");
      const timer = setTimeout(() => void master.kill(), timeoutMs);
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

function answers({ hostname, port }: Listen): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: hostname === "0.0.0.0" ? "127.0.0.1" : hostname === "::" ? "::1" : hostname, port });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
