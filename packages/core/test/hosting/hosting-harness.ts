import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryContainerRuntime, startFakeGitHub, type FakeGitHub, type FakeRepo, type MemoryContainerRuntime } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { createReposite, type CreateRepositeOptions, type JobEvent, type JobView, type Reposite } from "../../src/index.js";

/** A small web app: the memory runtime's test app answers every request once it runs. */
export const WEB_APP: Record<string, string> = {
  Dockerfile: 'FROM node:22\nCOPY . /app\nCMD ["node", "/app/server.js"]\n',
  "server.js": "require('node:http').createServer((q, s) => s.end('hi')).listen(process.env.PORT);\n",
};

export interface HostingHarness {
  reposite: Reposite;
  runtime: MemoryContainerRuntime | undefined;
  github: FakeGitHub;
  dataDir: string;
  /** A new account's id. */
  account(email: string): Promise<string>;
  /** A new project of `ownerId` from `acme/<repo>`. */
  project(ownerId: string, repo?: string, name?: string): Promise<string>;
  /** Sets up the app (`setup` fields) and deploys it; resolves with the ended job and the run id. */
  deploy(ownerId: string, siteId: string, setup?: Record<string, unknown>): Promise<{ job: JobView; runId: string; text: string; deltas: number }>;
  /** Waits for a job to end; answers it, its whole text and how many deltas it had. */
  finish(ownerId: string, jobId: string): Promise<{ job: JobView; text: string; deltas: number }>;
  close(): Promise<void>;
}

export interface HostingHarnessOptions extends Omit<CreateRepositeOptions, "containerRuntime"> {
  repos?: FakeRepo[];
  /** null: a server without a container runtime. */
  runtime?: MemoryContainerRuntime | null;
}

/** Short timings, so health checks and drains take milliseconds. */
export const FAST_HOSTING = { healthTimeoutMs: 2_000, healthIntervalMs: 20, drainTimeoutMs: 500, logFlushMs: 20, stopGraceSeconds: 1 };

export async function startHostingHarness(options: HostingHarnessOptions = {}): Promise<HostingHarness> {
  const { repos = [{ owner: "acme", name: "web", files: WEB_APP }], runtime: given, ...rest } = options;
  const github = await startFakeGitHub({ repos });
  const runtime = given === null ? undefined : (given ?? createMemoryContainerRuntime());
  const dataDir = await mkdtemp(join(tmpdir(), "reposite-hosting-"));
  const reposite = createReposite({
    storage: createStorage(),
    github: { apiUrl: github.url, webHosts: ["github.com"] },
    secretKey: Buffer.alloc(32, 7).toString("base64"),
    ...rest,
    config: { dataDir, baseUrl: "https://reposite.example", sitesDomain: "sites.example", ...rest.config },
    hosting: { ...FAST_HOSTING, ...rest.hosting },
    ...(runtime ? { containerRuntime: runtime } : {}),
  });
  const finish = async (ownerId: string, jobId: string) => {
    let text = "";
    let deltas = 0;
    let job: JobView | undefined;
    for await (const event of reposite.jobs.events(ownerId, jobId) as AsyncIterable<JobEvent>) {
      if (event.type === "delta") {
        text += event.t;
        deltas += 1;
      } else if (event.type !== "meta") job = event.job;
    }
    return { job: job!, text, deltas };
  };
  return {
    reposite,
    runtime,
    github,
    dataDir,
    account: async (email) => (await reposite.accounts.findOrCreate(email)).account.id,
    project: async (ownerId, repo = "web", name) => (await reposite.projects.create(ownerId, { repohost_url: `github.com/acme/${repo}`, ...(name ? { name } : {}) })).id,
    async deploy(ownerId, siteId, setup = {}) {
      await reposite.hosting.setup(ownerId, siteId, setup);
      const started = await reposite.hosting.deploy(ownerId, siteId);
      return { ...(await finish(ownerId, started.job_id)), runId: started.run_id };
    },
    finish,
    async close() {
      await reposite.close();
      await runtime?.close();
      await github.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A request to a target from the host, as the proxy would send it: status and body. */
export function get(target: { host: string; port: number }, path = "/", method = "GET", body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: target.host, port: target.port, path, method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Polls `check` until it answers truthy (or fails after `ms`). */
export async function eventually<T>(check: () => Promise<T> | T, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("eventually: the condition never held");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
