import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBalancer, type Balancer } from "./balancer.js";
import { freePort } from "./free-port.js";

/** One `reposite serve` process of a replica set. */
export interface Replica {
  index: number;
  url: string;
  /** Its own data directory (mail outbox, edge files): records are in the database. */
  dataDir: string;
  child: ChildProcess;
  /** Everything the process wrote so far. */
  output(): { stdout: string; stderr: string };
  /** SIGKILL: no shutdown code runs (a crashed replica). */
  kill(): Promise<void>;
  /** SIGTERM, and waits for the exit. */
  stop(): Promise<void>;
}

export interface Replicas {
  replicas: Replica[];
  /** Round-robin over every replica. */
  balancer: Balancer;
  /** Stops every replica still running and the balancer, and removes their data directories. */
  close(): Promise<void>;
}

export interface ReplicasOptions {
  /** The server's `bin/reposite.mjs` (built: it runs `dist/`). */
  bin: string;
  count: number;
  /** The same for every replica: REPOSITE_DATABASE_URL, REPOSITE_SECRET_KEY and the rest. */
  env: Record<string, string>;
}

/**
 * `count` replicas of `reposite serve`, each with a data directory of its own (records, locks and
 * events come from `env.REPOSITE_DATABASE_URL`), started together as a deployment would start
 * them, behind a round-robin balancer.
 */
export async function startReplicas(options: ReplicasOptions): Promise<Replicas> {
  if (!existsSync(options.bin.replace(/bin\/reposite\.mjs$/, "dist/index.js"))) {
    throw new Error(`${options.bin}: the server is not built (npm run build --workspace=@reposite/server).`);
  }
  const dataDirs: string[] = [];
  const started = await Promise.allSettled(
    Array.from({ length: options.count }, async (_, index) => {
      const dataDir = await mkdtemp(join(tmpdir(), "reposite-replica-"));
      dataDirs.push(dataDir);
      return startReplica(index, options.bin, dataDir, { REPOSITE_DATA_DIR: dataDir, ...options.env });
    }),
  );
  const replicas = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const removeDirs = () => Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await Promise.all(replicas.map((replica) => replica.kill()));
    await removeDirs();
    throw (failed as PromiseRejectedResult).reason;
  }
  const balancer = await startBalancer(replicas.map((replica) => replica.url));
  return {
    replicas,
    balancer,
    async close() {
      await balancer.close();
      await Promise.all(replicas.map((replica) => replica.stop()));
      await removeDirs();
    },
  };
}

async function startReplica(index: number, bin: string, dataDir: string, env: Record<string, string>): Promise<Replica> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [bin, "serve"], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), REPOSITE_BASE_URL: url, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (let attempt = 0; ; attempt++) {
    if (await fetch(`${url}/healthz`).then((response) => response.ok, () => false)) break;
    if (child.exitCode !== null || attempt > 300) {
      child.kill("SIGKILL");
      throw new Error(`replica ${index} did not start:\n${stdout}\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return {
    index,
    url,
    dataDir,
    child,
    output: () => ({ stdout, stderr }),
    kill: () => signal("SIGKILL"),
    stop: () => signal("SIGTERM"),
  };
}
