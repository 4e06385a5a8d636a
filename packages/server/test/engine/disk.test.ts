import { spawn } from "node:child_process";
import { dockerForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEngineHarness, type EngineHarness } from "./engine-harness.js";
import { DeploymentStore } from "@reposite/core";

const engine = await dockerForTests();

/** Polls until `check` answers truthy. */
async function eventually<T>(check: () => Promise<T | false | null | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("eventually: the condition never held");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Runs `body` while another client keeps the Engine measuring its disk (`docker system df -v` in a
 * loop), as other programs on an operator's machine do: the Engine answers any overlapping
 * measurement with 500 "a disk usage operation is already running".
 */
async function whileEngineBusy<T>(body: () => Promise<T>): Promise<T> {
  const busy = spawn("sh", ["-c", "while true; do docker system df -v >/dev/null 2>&1; done"], { detached: true, stdio: "ignore" });
  try {
    return await body();
  } finally {
    process.kill(-busy.pid!, "SIGKILL");
  }
}

// The disk limit on the real Engine: 20 MB here, checked every 300 ms. The fixture is a busybox
// web server (about 2 MB of image) that, once told to (a file at /tmp/go), writes 30 MB with dd.
describe.skipIf(!engine.available)("the disk limit on the Engine", () => {
  let h: EngineHarness;
  let owner: string;
  const container = async (site: string) => (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;
  const filler = (target: string) => ({
    Dockerfile: [
      `FROM ${h.images.busybox}`,
      h.label,
      "RUN mkdir -p /www && echo ok > /www/index.html",
      `CMD ["sh", "-c", ${JSON.stringify(`httpd -p 3000 -h /www; while [ ! -f /tmp/go ]; do sleep 0.1; done; dd if=/dev/zero of=${target} bs=1M count=30; sleep 3600`)}]`,
      "",
    ].join("\n"),
  });
  const stopped = (site: string) =>
    eventually(async () => {
      const deployment = await h.reposite.hosting.read(owner, site);
      return deployment.status === "stopped" && deployment;
    });

  beforeAll(async () => {
    h = await startEngineHarness({ hosting: { diskLimitMb: 20, diskCheckIntervalMs: 300 } });
    owner = await h.account();
    // As at server start: the periodic check begins.
    await h.reposite.hosting.recover();
  }, 120_000);
  afterAll(() => h?.close(), 60_000);

  it("an app that writes 30 MB to its volume is stopped; the read says why, metrics say over, a deploy answers 409 storage_full; reset-data frees it", async () => {
    const site = await h.project(owner, "disk-volume", filler("/data/fill"));
    const { job } = await h.deploy(owner, site, { volume_path: "/data" });
    expect(job.status).toBe("done");
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", stopped_reason: null });
    expect((await h.reposite.appOperations.metrics(owner, site)).storage).toMatchObject({ over: false, limit_mb: 20 });

    await h.runtime.exec!((await container(site)).id, ["touch", "/tmp/go"]);
    const read = await stopped(site);
    expect(read.stopped_reason).toMatch(/data volume 30 MB\).*over its 20 MB/);
    const metrics = await h.reposite.appOperations.metrics(owner, site);
    expect(metrics).toMatchObject({ running: false, storage: { over: true, limit_mb: 20, volume_mb: 30 } });
    expect(metrics.storage.used_mb).toBeGreaterThan(30);
    await expect(h.reposite.hosting.deploy(owner, site)).rejects.toMatchObject({ status: 409, code: "storage_full" });

    const { slug } = await h.reposite.hosting.read(owner, site);
    await expect(h.reposite.appOperations.resetData(owner, site, { confirm: slug })).resolves.toMatchObject({ status: "running", stopped_reason: null });
    expect((await h.reposite.appOperations.metrics(owner, site)).storage).toMatchObject({ over: false, volume_mb: 0 });
    const again = await h.finish(owner, (await h.reposite.hosting.deploy(owner, site)).job_id);
    expect(again.job.status).toBe("done");
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", stopped_reason: null });
  }, 120_000);

  it("30 MB written inside the container (its writable layer) count too; a deploy, which replaces the layer, is let through", async () => {
    const site = await h.project(owner, "disk-layer", filler("/tmp/fill"));
    await h.deploy(owner, site);
    await h.runtime.exec!((await container(site)).id, ["touch", "/tmp/go"]);
    const read = await stopped(site);
    // The periodic check may catch dd mid-way (past 20 MB, before 30): the layer is over either way.
    expect(read.stopped_reason).toMatch(/files written in its container [\d.]+ MB/);
    const storage = (await h.reposite.appOperations.metrics(owner, site)).storage;
    expect(storage).toMatchObject({ over: true, volume_mb: 0 });
    expect(storage.container_mb).toBeGreaterThan(15);
    const again = await h.finish(owner, (await h.reposite.hosting.deploy(owner, site)).job_id);
    expect(again.job.status).toBe("done");
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", stopped_reason: null });
  }, 120_000);

  it("4 parallel metrics calls while another client measures the Engine's disk all answer, with one measurement", async () => {
    const site = await h.project(owner, "disk-metrics", filler("/data/fill"));
    await h.deploy(owner, site, { volume_path: "/data" });
    const answers = await whileEngineBusy(() =>
      Promise.all(
        Array.from({ length: 4 }, () =>
          h.reposite.appOperations.metrics(owner, site).then(
            (metrics) => metrics,
            (error: { status?: number; message?: string }) => ({ failed: `${error.status ?? 500} ${error.message}` }),
          ),
        ),
      ),
    );
    expect(answers.map((answer) => ("failed" in answer ? answer.failed : "200"))).toEqual(["200", "200", "200", "200"]);
    // One shared measurement: every answer carries the same one.
    expect(new Set(answers.map((answer) => ("storage" in answer ? answer.storage.measured_at : null))).size).toBe(1);
  }, 120_000);

  // It once failed under load with no diagnosis: the measurement after the deploy overlapped the
  // periodic one (or another client's) on the Engine, which refused it. An engine kept busy makes
  // that overlap certain.
  it("an image that alone is over the limit: the deploy goes live, the app is stopped at once, and its run's diagnosis is storage_full with the disk to buy", () => whileEngineBusy(async () => {
    const site = await h.project(owner, "disk-image", {
      Dockerfile: [
        `FROM ${h.images.busybox}`,
        h.label,
        "RUN mkdir -p /www && echo ok > /www/index.html && dd if=/dev/zero of=/www/big bs=1M count=25",
        'CMD ["httpd", "-f", "-p", "3000", "-h", "/www"]',
        "",
      ].join("\n"),
    });
    const { runId } = await h.deploy(owner, site);
    const read = await stopped(site);
    expect(read.stopped_reason).toMatch(/over its 20 MB/);
    expect(read.last_run).toMatchObject({ run_id: runId, diagnosis: { kind: "storage_full", limit: { kind: "disk", needed: 5120 } } });
    expect(read.last_run!.diagnosis!.detail).toMatch(/20 MB/);
  }), 120_000);
});
