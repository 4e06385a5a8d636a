import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite, type AppRuntime, type CreateRepositeOptions, type ImageBuilder, type JobEvent, type JobView, type Reposite } from "@reposite/core";
import { createDockerAppRuntime, createDockerImageBuilder, createDockerRuntime, type DockerRuntime, type DockerRuntimeOptions } from "@reposite/provider-docker";
import { buildLocalBaseImages, removeLabelled, startFakeGitHub, type FakeGitHub, type FakeRepo, type LocalBaseImages } from "@reposite/test-support";
import { createStorage } from "unstorage";

/**
 * Reposite composed in this process on the real Docker Engine, for tests of what happens to real
 * containers (diagnoses, disk, data reset, the fix). Repositories come from the loopback fake
 * GitHub as `acme/<name>`; base images are the ones made on this machine (`images.node`,
 * `images.busybox`). Everything it makes on the Engine carries this harness's own label and goes
 * at `close()`. Timings are short; pass `hosting` to change them. Core reaches the Engine as a
 * server does: through provider-docker's ImageBuilder and AppRuntime over `runtime` (`ports` may
 * wrap them, to watch the calls).
 */
export interface EngineHarness {
  reposite: Reposite;
  runtime: DockerRuntime;
  github: FakeGitHub;
  images: LocalBaseImages;
  /** `LABEL <key>=<value>` for a fixture's Dockerfile, so even a failed build's layers go at the end. */
  label: string;
  /** A new account's id. */
  account(email?: string): Promise<string>;
  /** A new project from `acme/<repo>` (added to the fake GitHub first when `files` are given). */
  project(ownerId: string, repo: string, files?: Record<string, string>): Promise<string>;
  /** Sets the app up (`setup` fields), deploys it and waits for the run to end. */
  deploy(ownerId: string, siteId: string, setup?: Record<string, unknown>): Promise<{ job: JobView; runId: string; text: string }>;
  /** Waits for a job to end; answers it and its whole text. */
  finish(ownerId: string, jobId: string): Promise<{ job: JobView; text: string }>;
  close(): Promise<void>;
}

export const ENGINE_LABEL = "reposite-test.run";

/** The two ports core hosts apps through. */
export interface HostingPorts {
  imageBuilder: ImageBuilder;
  appRuntime: AppRuntime;
}

export async function startEngineHarness(
  options: Omit<CreateRepositeOptions, "containerRuntime" | "appRuntime" | "imageBuilder"> & {
    repos?: FakeRepo[];
    runtime?: (dataDir: string) => DockerRuntimeOptions;
    ports?: (ports: HostingPorts) => HostingPorts;
  } = {},
): Promise<EngineHarness> {
  const { repos = [], runtime: runtimeOptions, ports: wrapPorts = (ports) => ports, ...rest } = options;
  const run = `engine-${randomBytes(4).toString("hex")}`;
  const images = await buildLocalBaseImages();
  const github = await startFakeGitHub({ repos });
  const dataDir = await mkdtemp(join(tmpdir(), "reposite-engine-"));
  const runtime = createDockerRuntime(runtimeOptions?.(dataDir));
  const ports = wrapPorts({ imageBuilder: createDockerImageBuilder({ runtime }), appRuntime: createDockerAppRuntime({ runtime }) });
  const reposite = createReposite({
    storage: createStorage(),
    github: { apiUrl: github.url, webHosts: ["github.com"] },
    secretKey: Buffer.alloc(32, 9).toString("base64"),
    ...rest,
    config: { dataDir, baseUrl: "https://reposite.example", sitesDomain: "sites.example", ...rest.config },
    hosting: {
      healthTimeoutMs: 8_000,
      healthIntervalMs: 100,
      drainTimeoutMs: 500,
      logFlushMs: 20,
      stopGraceSeconds: 1,
      buildMemoryMb: 512,
      bareImages: { "alpine:3.20": images.busybox, "debian:bookworm-slim": images.busybox, "ubuntu:24.04": images.busybox },
      ...rest.hosting,
      labels: { [ENGINE_LABEL]: run, ...rest.hosting?.labels },
    },
    imageBuilder: ports.imageBuilder,
    appRuntime: ports.appRuntime,
  });
  let accounts = 0;
  const finish = async (ownerId: string, jobId: string) => {
    let text = "";
    let job: JobView | undefined;
    for await (const event of reposite.jobs.events(ownerId, jobId) as AsyncIterable<JobEvent>) {
      if (event.type === "delta") text += event.t;
      else if (event.type !== "meta") job = event.job;
    }
    return { job: job!, text };
  };
  return {
    reposite,
    runtime,
    github,
    images,
    label: `LABEL ${ENGINE_LABEL}=${run}`,
    account: async (email = `user${++accounts}-${run}@example.com`) => (await reposite.accounts.findOrCreate(email)).account.id,
    async project(ownerId, repo, files) {
      if (files) github.addRepo({ owner: "acme", name: repo, files });
      return (await reposite.projects.create(ownerId, { repohost_url: `github.com/acme/${repo}` })).id;
    },
    async deploy(ownerId, siteId, setup = {}) {
      await reposite.hosting.setup(ownerId, siteId, setup);
      const started = await reposite.hosting.deploy(ownerId, siteId);
      return { ...(await finish(ownerId, started.job_id)), runId: started.run_id };
    },
    finish,
    async close() {
      await reposite.hosting.close();
      await reposite.close();
      await github.close();
      await removeLabelled(ENGINE_LABEL, run);
      // Loop-mounted volumes are unmounted before their folder goes.
      const volumes = await runtime.loopVolumes();
      for (const name of (await volumes?.names()) ?? []) await volumes!.remove(name);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
