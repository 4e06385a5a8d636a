import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryContainerRuntime, startFakeGitHub, type FakeGitHub, type MemoryContainerRuntime } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReposite, SERVER_STOPPED_REASON, type ContainerRuntime, type JobEvent, type Reposite } from "../../src/index.js";
import { eventually, FAST_HOSTING, get, WEB_APP } from "./hosting-harness.js";

/**
 * Two servers on one data directory and one engine, one after the other: the first stops dead in
 * the middle of its work (its builds never return, as in a process killed with SIGKILL; nothing of
 * it runs its shutdown), the second starts and recovers. The real-process SIGKILL test is the
 * server's; this one checks every rule of recovery quickly.
 */
describe("recovery at start", () => {
  let github: FakeGitHub;
  let engine: MemoryContainerRuntime;
  let dataDir: string;
  let dead: Reposite;
  let next: Reposite;
  const files: Record<string, string> = { ...WEB_APP };

  const compose = (runtime: ContainerRuntime) =>
    createReposite({
      config: { dataDir, baseUrl: "https://reposite.example", sitesDomain: "sites.example" },
      github: { apiUrl: github.url, webHosts: ["github.com"] },
      secretKey: Buffer.alloc(32, 9).toString("base64"),
      containerRuntime: runtime,
      hosting: { ...FAST_HOSTING, buildConcurrency: 1 },
    });

  const finish = async (reposite: Reposite, ownerId: string, jobId: string) => {
    let last: JobEvent | undefined;
    for await (const event of reposite.jobs.events(ownerId, jobId)) last = event;
    return last!;
  };

  beforeAll(async () => {
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "web", files }] });
    engine = createMemoryContainerRuntime();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-recovery-"));
  });
  afterAll(async () => {
    await next?.close();
    await engine.close();
    await github.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("routes to running apps again, ends interrupted runs failed, removes what they left, and takes queued runs up", async () => {
    // The first server: its builds start and then never return.
    let hang = false;
    const freezing: ContainerRuntime = {
      ...engine,
      buildImage: (request) => (hang ? new Promise(() => request.onLog("Step 1/3 : FROM node:22")) : engine.buildImage(request)),
    };
    dead = compose(freezing);
    const ada = (await dead.accounts.findOrCreate("ada@example.com")).account.id;
    const bob = (await dead.accounts.findOrCreate("bob@example.com")).account.id;
    const cyd = (await dead.accounts.findOrCreate("cyd@example.com")).account.id;
    const live = (await dead.projects.create(ada, { repohost_url: "github.com/acme/web", name: "Live App" })).id;
    const stopped = (await dead.projects.create(cyd, { repohost_url: "github.com/acme/web", name: "Stopped App" })).id;
    const building = (await dead.projects.create(bob, { repohost_url: "github.com/acme/web", name: "Building App" })).id;
    const waiting = (await dead.projects.create(cyd, { repohost_url: "github.com/acme/web", name: "Waiting App" })).id;
    for (const [owner, site] of [[ada, live], [cyd, stopped], [bob, building], [cyd, waiting]] as const) await dead.hosting.setup(owner, site, {});

    await finish(dead, ada, (await dead.hosting.deploy(ada, live)).job_id);
    await finish(dead, cyd, (await dead.hosting.deploy(cyd, stopped)).job_id);
    await dead.hosting.stop(cyd, stopped);
    const liveContainer = dead.appRoutes.get(live)!.target!;

    hang = true;
    const interrupted = await dead.hosting.deploy(bob, building);
    await eventually(async () => (await dead.hosting.read(bob, building)).status === "building");
    // A leftover of an interrupted switch-over: a container of the live app that is not its saved one.
    const stray = await engine.runContainer({
      name: "reposite-stray",
      image: "node:22",
      labels: { "dev.reposite.role": "app", "dev.reposite.site": live, "dev.reposite.run": "run_stray" },
      env: {},
      port: 3000,
      memoryMb: 512,
      cpus: 1,
      pidsLimit: 256,
      network: "reposite-app-x",
    });
    const queued = await dead.hosting.deploy(cyd, waiting);
    expect((await dead.hosting.read(cyd, waiting)).last_run?.status).toBe("queued");

    // The first server is gone. The second starts on the same data and engine.
    next = compose(engine);
    expect(next.appRoutes.get(live)).toBeUndefined();
    const report = await next.hosting.recover();
    expect(report).toEqual({ running: 1, interrupted: 1, queued: 1 });

    // Running apps answer again at the same target, found by their labels.
    expect(next.appRoutes.get(live)).toEqual({ status: "running", target: liveContainer });
    expect((await get(liveContainer)).status).toBe(200);
    expect(next.appRoutes.get(stopped)).toEqual({ status: "stopped", target: null });
    expect(await engine.inspectContainer(stray.id)).toBeNull();

    // The interrupted run failed with a reason; the app shows failed (it never ran); its image is gone.
    const run = (await next.hosting.listRuns(bob, building))[0]!;
    expect(run).toMatchObject({ run_id: interrupted.run_id, status: "failed", reason: SERVER_STOPPED_REASON, diagnosis: { kind: "other", title: "The server stopped during the deploy" } });
    expect(run.finished_at).not.toBeNull();
    // Its job's followers learn at once that it ended, not a minute later when its heartbeat is stale.
    expect(await next.jobs.get(bob, interrupted.job_id)).toMatchObject({ status: "aborted" });
    expect(await next.hosting.read(bob, building)).toMatchObject({ status: "failed", last_run: { status: "failed" } });
    expect(next.appRoutes.get(building)).toBeUndefined();

    // The queued run goes on under a new job, and ends done.
    const resumed = (await next.hosting.listRuns(cyd, waiting))[0]!;
    expect(resumed.run_id).toBe(queued.run_id);
    expect(resumed.job_id).not.toBe(queued.job_id);
    expect((await finish(next, cyd, resumed.job_id!)).type).toBe("done");
    expect(await next.hosting.read(cyd, waiting)).toMatchObject({ status: "running", last_run: { run_id: queued.run_id, status: "done" } });

    // Bob may deploy again: the interrupted run no longer holds his slot.
    const again = await next.hosting.deploy(bob, building);
    expect((await finish(next, bob, again.job_id)).type).toBe("done");
  });
});

describe("shutting down", () => {
  it("ends a run under way as failed (the server stopped) and keeps queued runs queued for the next start", async () => {
    const github = await startFakeGitHub({ repos: [{ owner: "acme", name: "web", files: { ...WEB_APP, Dockerfile: "FROM node:22\nRUN sleep 30\n" } }] });
    const engine = createMemoryContainerRuntime();
    const dataDir = await mkdtemp(join(tmpdir(), "reposite-shutdown-"));
    const compose = () =>
      createReposite({
        config: { dataDir, baseUrl: "https://reposite.example", sitesDomain: "sites.example" },
        github: { apiUrl: github.url, webHosts: ["github.com"] },
        secretKey: Buffer.alloc(32, 9).toString("base64"),
        containerRuntime: engine,
        hosting: { ...FAST_HOSTING, buildConcurrency: 1 },
      });
    try {
      const first = compose();
      const ada = (await first.accounts.findOrCreate("ada@example.com")).account.id;
      const bob = (await first.accounts.findOrCreate("bob@example.com")).account.id;
      const a = (await first.projects.create(ada, { repohost_url: "github.com/acme/web" })).id;
      const b = (await first.projects.create(bob, { repohost_url: "github.com/acme/web" })).id;
      await first.hosting.setup(ada, a, {});
      await first.hosting.setup(bob, b, {});
      const running = await first.hosting.deploy(ada, a);
      await eventually(async () => (await first.hosting.read(ada, a)).status === "building");
      const waiting = await first.hosting.deploy(bob, b);
      await first.close();

      const second = compose();
      try {
        expect((await second.hosting.listRuns(ada, a))[0]).toMatchObject({ run_id: running.run_id, status: "failed", reason: SERVER_STOPPED_REASON });
        expect((await second.hosting.listRuns(bob, b))[0]).toMatchObject({ run_id: waiting.run_id, status: "queued" });
        expect(await second.hosting.recover()).toMatchObject({ interrupted: 0, queued: 1 });
        await eventually(async () => (await second.hosting.read(bob, b)).status === "building");
      } finally {
        await second.close();
      }
    } finally {
      await engine.close();
      await github.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
