import { createMemoryAppRuntime, createMemoryContainerRuntime, createMemoryImageBuilder, type MemoryAppRuntime, type MemoryContainerRuntime } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReposite, DeploymentStore, imageTag, networkName } from "../../src/index.js";
import { eventually, get, startHostingHarness, WEB_APP, type HostingHarness } from "./hosting-harness.js";

// Deploys on a runtime that rolls out by itself (the memory orchestrator here, Swarm in production):
// first run(), then replace() with start-first and rollback, the route following the new version.
describe("deploys on an orchestrating app runtime", () => {
  let h: HostingHarness;
  let engine: MemoryContainerRuntime;
  let apps: MemoryAppRuntime;
  const files: Record<string, string> = {
    ...WEB_APP,
    "exits.Dockerfile": "FROM node:22\n# reposite-test: run log the new version failed to start\n# reposite-test: run exit 3\n",
    "oom.Dockerfile": "FROM node:22\n# reposite-test: run oom\n",
    "broken.Dockerfile": "FROM node:22\nRUN exit 4\n",
  };
  let owner: string;
  const storage = createStorage();

  beforeAll(async () => {
    engine = createMemoryContainerRuntime({ baseImages: ["node:22", "alpine:3.20"] });
    apps = createMemoryAppRuntime(engine, { healthTimeoutMs: 1_000, healthIntervalMs: 20 });
    h = await startHostingHarness({ runtime: null, repos: [{ owner: "acme", name: "web", files }], appRuntime: apps, imageBuilder: createMemoryImageBuilder(engine), storage });
    owner = await h.account("ada@example.com");
  });
  afterAll(async () => {
    await h.close();
    await engine.close();
  });

  const saved = async (site: string) => (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;

  it("runs the first version, then rolls later deploys over the same app; the route follows the new version's address and the old image goes", async () => {
    const site = await h.project(owner);
    const first = await h.deploy(owner, site);
    expect(first.job.status).toBe("done");
    expect(first.text).toContain("Started on memory orchestrator");
    const app = await saved(site);
    const route = h.reposite.appRoutes.get(site)!;
    expect(route).toEqual({ status: "running", target: { host: "127.0.0.1", port: app.port } });
    expect((await get(route.target!)).body).toContain('"PORT":"3000"');
    expect(apps.rollouts).toEqual([]);

    const second = await h.deploy(owner, site);
    expect(second.job.status).toBe("done");
    expect(second.text).toContain("Rolling the app over to the new version");
    expect(second.text).toContain("update completed");
    const rolled = await saved(site);
    // The same app, a new version at a new address: the route moved there.
    expect(rolled.id).toBe(app.id);
    expect(rolled.image).toBe(imageTag(site, second.runId));
    expect(rolled.port).not.toBe(app.port);
    expect(h.reposite.appRoutes.get(site)!.target).toEqual({ host: "127.0.0.1", port: rolled.port });
    expect((await get({ host: "127.0.0.1", port: rolled.port })).status).toBe(200);
    expect(apps.rollouts).toEqual([{ id: app.id, image: rolled.image_ref, outcome: "updated" }]);
    // The first version's image went once the second served.
    await eventually(async () => (await engine.imageSize(app.image_ref!)) === null);
  });

  it("a new version that never becomes healthy is rolled back: the run fails with a reason and diagnosis, the old version keeps serving", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site);
    const before = h.reposite.appRoutes.get(site)!;
    const failed = await h.deploy(owner, site, { dockerfile_path: "exits.Dockerfile" });
    expect(failed.job.status).toBe("error");
    expect(failed.text).toContain("rollback_completed");
    const deployment = await h.reposite.hosting.read(owner, site);
    expect(deployment).toMatchObject({ status: "running", last_run: { status: "failed", reason: expect.stringContaining("rolled back to the previous one, which keeps serving") } });
    expect(deployment.last_run!.diagnosis).not.toBeNull();
    expect(h.reposite.appRoutes.get(site)).toEqual(before);
    expect((await get(before.target!)).status).toBe(200);
    expect(apps.rollouts.at(-1)).toMatchObject({ outcome: "rolled_back" });
  });

  it("a failed build keeps the old version serving; an OOM-killed first start is diagnosed as memory", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site);
    const before = h.reposite.appRoutes.get(site)!;
    const broken = await h.deploy(owner, site, { dockerfile_path: "broken.Dockerfile" });
    expect(broken.job.error).toContain("exit code 4");
    expect(h.reposite.appRoutes.get(site)).toEqual(before);

    const hungry = await h.project(owner);
    const oom = await h.deploy(owner, hungry, { dockerfile_path: "oom.Dockerfile" });
    expect(oom.job.status).toBe("error");
    const deployment = await h.reposite.hosting.read(owner, hungry);
    expect(deployment).toMatchObject({ status: "failed", last_exit_oom: true, last_run: { status: "failed", diagnosis: { kind: expect.stringMatching(/memory/) } } });
    // The app that never came up is not left behind.
    expect(await apps.list({ "dev.reposite.site": hungry })).toEqual([]);
  });

  it("an env change rolls the app over with the new env; stop, start and restart; delete removes app, image and network", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site);
    await h.reposite.hosting.setEnv(owner, site, { env: { GREETING: "hello" } });
    await eventually(async () => (await get(h.reposite.appRoutes.get(site)!.target!)).body.includes('"GREETING":"hello"'), 5_000);
    expect((await h.reposite.hosting.read(owner, site)).status).toBe("running");

    await h.reposite.hosting.stop(owner, site);
    expect(h.reposite.appRoutes.get(site)).toEqual({ status: "stopped", target: null });
    const app = await saved(site);
    expect(await apps.inspect(app.id)).toMatchObject({ wanted: false, running: false });
    await h.reposite.hosting.start(owner, site);
    const started = h.reposite.appRoutes.get(site)!;
    expect(started.status).toBe("running");
    expect((await get(started.target!)).body).toContain('"GREETING":"hello"');

    // A restart is a rollout of the same image: a new version takes over, the app stays the same.
    const rolloutsBefore = apps.rollouts.length;
    await h.reposite.hosting.restart(owner, site);
    expect(apps.rollouts.length).toBe(rolloutsBefore + 1);
    expect((await saved(site)).id).toBe(app.id);
    expect((await get(h.reposite.appRoutes.get(site)!.target!)).body).toContain('"GREETING":"hello"');

    // Logs and metrics read the serving version through the runtime (stats and disk figures are capabilities it has).
    expect(await h.reposite.appOperations.logs(owner, site)).toBe("");
    const metrics = await h.reposite.appOperations.metrics(owner, site);
    expect(metrics).toMatchObject({ memory: { used_mb: 8, limit_mb: 512 } });

    await h.reposite.hosting.remove(owner, site);
    expect(await apps.inspect(app.id)).toBeNull();
    expect(engine.networks()).not.toContain(networkName(site));
    expect(await engine.imageSize(app.image_ref!)).toBeNull();
    expect(h.reposite.appRoutes.get(site)).toBeUndefined();
  });

  it("keeps an image a running version still uses: identical builds give one digest, so a redeploy of the same code must not delete it", async () => {
    const builder = createMemoryImageBuilder(engine);
    let first: Awaited<ReturnType<typeof builder.build>> | null = null;
    // A registry answers the same digest for the same bytes: the second build is the first image.
    // What a registry would delete (a manifest goes whoever still runs it): no removal of the running image may reach it.
    const removed: string[] = [];
    const sameDigest = {
      ...builder,
      build: async (request: Parameters<typeof builder.build>[0]) => (first ??= await builder.build(request)),
      remove: async (image: Parameters<typeof builder.remove>[0]) => {
        removed.push(image.reference);
        await builder.remove(image);
      },
    };
    const h2 = await startHostingHarness({ runtime: null, repos: [{ owner: "acme", name: "web", files }], appRuntime: apps, imageBuilder: sameDigest });
    try {
      const ada = await h2.account("ada@example.com");
      const site = await h2.project(ada);
      await h2.deploy(ada, site);
      expect((await h2.deploy(ada, site)).job.status).toBe("done");
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(removed).toEqual([]);
      expect(await engine.imageSize(first!.id)).not.toBeNull();
      expect((await get(h2.reposite.appRoutes.get(site)!.target!)).status).toBe(200);
      await h2.reposite.hosting.remove(ada, site);
      expect(await engine.imageSize(first!.id)).toBeNull();
      expect(removed).toContain(first!.reference);
    } finally {
      await h2.close();
    }
  });

  it("refuses a bare box, which has no web server for the orchestrator's health gate, with a run that says so", async () => {
    const site = await h.project(owner);
    const { job } = await h.deploy(owner, site, { build_mode: "bare", base_image: "alpine:3.20" });
    expect(job.status).toBe("error");
    expect((await h.reposite.hosting.read(owner, site)).last_run).toMatchObject({ status: "failed", reason: expect.stringContaining("A bare box is not available on this runtime") });
    expect(await apps.list({ "dev.reposite.site": site })).toEqual([]);
  });

  it("a restarted server finds the running apps by their labels and routes to where they answer", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site);
    const app = await saved(site);
    const again = createReposite({
      storage,
      secretKey: Buffer.alloc(32, 7).toString("base64"),
      config: { dataDir: h.dataDir, baseUrl: "https://reposite.example", sitesDomain: "sites.example" },
      appRuntime: apps,
      imageBuilder: createMemoryImageBuilder(engine),
    });
    try {
      const report = await again.hosting.recover();
      expect(report.running).toBeGreaterThanOrEqual(1);
      expect(again.appRoutes.get(site)).toEqual({ status: "running", target: { host: "127.0.0.1", port: app.port } });
    } finally {
      await again.close();
    }
  });
});
