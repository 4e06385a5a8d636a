import { createMemoryContainerRuntime, type MemoryContainerRuntime } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DeploymentStore } from "../../src/index.js";
import { AppDisk } from "../../src/hosting/app-disk.js";
import { eventually, get, startHostingHarness, type HostingHarness } from "./hosting-harness.js";

const MB = 1024 * 1024;

// The memory runtime's images are about 1.9 MB; its test app keeps `PUT /files/<name>` in the
// volume, or in the writable layer when DATA_DIR points outside it.
describe("the disk limit, measured after deploys and periodically", () => {
  let h: HostingHarness;
  let owner: string;
  const container = async (site: string) => (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;
  const slugOf = async (site: string) => (await h.reposite.hosting.read(owner, site)).slug!;
  /** The deployment read once the service has stopped the app. */
  const stoppedRead = async (site: string) => {
    await eventually(async () => (await h.reposite.hosting.read(owner, site)).status === "stopped");
    return h.reposite.hosting.read(owner, site);
  };
  const redeploy = async (site: string) => (await h.finish(owner, (await h.reposite.hosting.deploy(owner, site)).job_id)).job;

  beforeAll(async () => {
    h = await startHostingHarness({ hosting: { diskLimitMb: 5, diskCheckIntervalMs: 20 } });
    owner = await h.account("ada@example.com");
    // What the server does at start: recovery, then the periodic disk check.
    await h.reposite.hosting.recover();
  });
  afterAll(() => h.close());

  it("an app whose volume grows past the limit is stopped with the reason; metrics say over; deploys answer 409 storage_full until reset-data frees it", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site, { volume_path: "/data" });
    expect((await h.reposite.appOperations.metrics(owner, site)).storage).toMatchObject({ over: false, limit_mb: 5, volume_mb: 0 });

    expect((await get(await container(site), "/files/big", "PUT", "x".repeat(6 * MB))).status).toBe(204);
    const read = await stoppedRead(site);
    expect(read.stopped_reason).toMatch(/disk .*over its 5 MB/);
    expect(read.stopped_reason).toContain("data volume 6 MB");
    expect(h.reposite.appRoutes.get(site)).toEqual({ status: "stopped", target: null });
    const metrics = await h.reposite.appOperations.metrics(owner, site);
    expect(metrics).toMatchObject({ running: false, storage: { over: true, limit_mb: 5, volume_mb: 6 } });
    expect(metrics.storage.used_mb).toBeGreaterThan(7.5);

    await expect(h.reposite.hosting.deploy(owner, site)).rejects.toMatchObject({ status: 409, code: "storage_full", details: { storage: { volume_mb: 6, limit_mb: 5 } } });
    await expect(h.reposite.hosting.start(owner, site)).rejects.toMatchObject({ status: 409, code: "storage_full" });
    expect((await h.reposite.hosting.resources(owner, site)).disk.limit_mb).toBe(5);

    await expect(h.reposite.appOperations.resetData(owner, site, { confirm: await slugOf(site) })).resolves.toMatchObject({ status: "running", stopped_reason: null });
    expect((await h.reposite.appOperations.metrics(owner, site)).storage).toMatchObject({ over: false, volume_mb: 0 });
    expect((await redeploy(site)).status).toBe("done");
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", stopped_reason: null });
  });

  it("a start brings a stopped app back without the reason, and the check stops it again while it is still over", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site, { volume_path: "/data" });
    await get(await container(site), "/files/big", "PUT", "x".repeat(4 * MB));
    await eventually(async () => (await h.reposite.hosting.read(owner, site)).status === "stopped");
    // The volume alone (4 MB) leaves room under 5 MB, so this is not refused.
    const started = await h.reposite.hosting.start(owner, site);
    expect(started).toMatchObject({ status: "running", stopped_reason: null });
    const again = await stoppedRead(site);
    expect(again.stopped_reason).toContain("data volume 4 MB");
  });

  it("files written outside the volume (the writable layer) count; a deploy replaces the layer and runs again", async () => {
    const site = await h.project(owner);
    await h.reposite.hosting.setup(owner, site, {});
    await h.reposite.hosting.setEnv(owner, site, { env: { DATA_DIR: "/tmp" } });
    expect((await redeploy(site)).status).toBe("done");
    await get(await container(site), "/files/cache", "PUT", "x".repeat(6 * MB));
    const read = await stoppedRead(site);
    expect(read.stopped_reason).toContain("files written in its container 6 MB");
    expect((await h.reposite.appOperations.metrics(owner, site)).storage).toMatchObject({ over: true, container_mb: 6, volume_mb: 0 });
    // Not full: what a deploy keeps (the volume) is empty.
    expect((await redeploy(site)).status).toBe("done");
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", stopped_reason: null });
    expect((await h.reposite.appOperations.metrics(owner, site)).storage).toMatchObject({ over: false, container_mb: 0 });
  });
});

describe("an app over its limit as soon as it is deployed", () => {
  it("is stopped after the deploy, and the run that made it live keeps a storage_full diagnosis", async () => {
    // 1 MB: the image alone (about 1.9 MB) is over.
    const h = await startHostingHarness({ hosting: { diskLimitMb: 1 } });
    try {
      const owner = await h.account("ada@example.com");
      const site = await h.project(owner);
      const { job, runId } = await h.deploy(owner, site);
      expect(job.status).toBe("done");
      const read = await h.reposite.hosting.read(owner, site);
      expect(read).toMatchObject({
        status: "stopped",
        stopped_reason: expect.stringMatching(/image 1\.9 MB.*over its 1 MB/),
        last_run: { run_id: runId, status: "done", diagnosis: { kind: "storage_full", limit: { kind: "disk", needed: 5120 } } },
      });
      expect((await h.reposite.appOperations.metrics(owner, site)).storage).toMatchObject({ over: true, image_mb: 1.9, limit_mb: 1 });
      // The image is replaced by a deploy, so a deploy is let through (a smaller image could fit).
      expect((await h.reposite.hosting.deploy(owner, site)).run_id).toEqual(expect.any(String));
    } finally {
      await h.close();
    }
  });
});

describe("an app the periodic check stopped before its deploy's own measurement", () => {
  it("still leaves the storage_full diagnosis on the run that made it live", async () => {
    const h = await startHostingHarness({ hosting: { diskLimitMb: 1 } });
    try {
      const owner = await h.account("ada@example.com");
      const site = await h.project(owner);
      const disk = h.reposite.container.resolve(AppDisk);
      const after = vi.spyOn(disk, "afterDeploy").mockResolvedValueOnce(undefined);
      const { runId } = await h.deploy(owner, site);
      // What the periodic check does first: stops the app. Then the deploy's own measurement runs.
      expect((await disk.check(site))?.stopped).toBe(true);
      after.mockRestore();
      await disk.afterDeploy(site);
      expect((await h.reposite.hosting.read(owner, site)).last_run).toMatchObject({ run_id: runId, diagnosis: { kind: "storage_full" } });
    } finally {
      await h.close();
    }
  });
});

describe("the periodic check", () => {
  it("measures running apps only, one check at a time, and stops at close", async () => {
    const memory = createMemoryContainerRuntime();
    const measured: string[] = [];
    let underWay = 0;
    let most = 0;
    // Measuring a writable layer takes 30 ms, longer than the 5 ms between checks.
    const runtime: MemoryContainerRuntime = Object.assign(Object.create(null) as MemoryContainerRuntime, memory, {
      async containerSize(id: string) {
        underWay += 1;
        most = Math.max(most, underWay);
        measured.push(id);
        await new Promise((resolve) => setTimeout(resolve, 30));
        underWay -= 1;
        return memory.containerSize(id);
      },
    });
    const h = await startHostingHarness({ runtime, hosting: { diskCheckIntervalMs: 5 } });
    let closed = false;
    try {
      const owner = await h.account("ada@example.com");
      const [running, stopped] = [await h.project(owner), await h.project(owner)];
      await h.deploy(owner, running);
      await h.deploy(owner, stopped);
      await h.reposite.hosting.stop(owner, stopped);
      const store = h.reposite.container.resolve(DeploymentStore);
      const [runningId, stoppedId] = [(await store.get(running))!.container!.id, (await store.get(stopped))!.container!.id];
      measured.length = 0;
      await h.reposite.hosting.recover();
      // Asked again (mid-check or not), it still runs one chain of checks.
      h.reposite.container.resolve(AppDisk).watch();
      await new Promise((resolve) => setTimeout(resolve, 10));
      h.reposite.container.resolve(AppDisk).watch();
      await eventually(() => measured.filter((id) => id === runningId).length >= 4);
      expect(measured).not.toContain(stoppedId);
      expect(most).toBe(1);
      await h.close();
      closed = true;
      const after = measured.length;
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(measured.length).toBe(after);
    } finally {
      if (!closed) await h.close();
    }
  });
});
