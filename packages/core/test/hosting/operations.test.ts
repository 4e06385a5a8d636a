import { createMemoryContainerRuntime, type MemoryContainerRuntime } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeploymentStore, type ContainerSpec } from "../../src/index.js";
import { volumeName } from "../../src/hosting/app-names.js";
import { get, startHostingHarness, WEB_APP, type HostingHarness } from "./hosting-harness.js";

const SECRET = "sk_live_5f0c8e21aa";
/** 6000 lines of output at start, the secret on one of them. */
const CHATTY: Record<string, string> = {
  Dockerfile: [
    "FROM node:22",
    ...Array.from({ length: 6000 }, (_, i) => `# reposite-test: run log line ${i + 1}`),
    `# reposite-test: run log connected with ${SECRET}`,
    'CMD ["node", "server.js"]',
    "",
  ].join("\n"),
};

describe("operating an app: logs, metrics, reset-data", () => {
  let h: HostingHarness;
  let owner: string;
  let other: string;
  let paid = true;
  const container = async (site: string) => (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;

  beforeAll(async () => {
    h = await startHostingHarness({
      repos: [
        { owner: "acme", name: "web", files: WEB_APP },
        { owner: "acme", name: "chatty", files: CHATTY },
      ],
      hostingEntitlements: { mayHost: async () => paid },
      // Metrics measure the disk again when the last measurement is older than this.
      hosting: { diskCheckIntervalMs: 1 },
    });
    owner = await h.account("ada@example.com");
    other = await h.account("eve@example.com");
  });
  afterAll(() => h.close());

  it("logs: the last lines in order, 200 by default, at most 5000, env values masked, a stopped app's too", async () => {
    const site = await h.project(owner, "chatty");
    await h.reposite.hosting.setup(owner, site, {});
    await h.reposite.hosting.setEnv(owner, site, { env: { TOKEN: SECRET } });
    const { job } = await h.finish(owner, (await h.reposite.hosting.deploy(owner, site)).job_id);
    expect(job.status).toBe("done");
    const ops = h.reposite.appOperations;

    const byDefault = (await ops.logs(owner, site)).split("\n");
    expect(byDefault.at(-1)).toBe("");
    expect(byDefault).toHaveLength(201);
    expect(byDefault[0]).toBe("line 5802");
    expect(byDefault[199]).toBe("connected with ***");

    const three = await ops.logs(owner, site, "3");
    expect(three).toBe("line 5999\nline 6000\nconnected with ***\n");
    const capped = (await ops.logs(owner, site, "100000")).trimEnd().split("\n");
    expect(capped).toHaveLength(5000);
    expect(capped[0]).toBe("line 1002");
    expect(await ops.logs(owner, site, ["7", "2"])).toBe("line 6000\nconnected with ***\n");
    expect(await ops.logs(owner, site, 5001)).not.toContain(SECRET);

    await h.reposite.hosting.stop(owner, site);
    expect(await ops.logs(owner, site, "1")).toBe("connected with ***\n");
  });

  it.each(["0", "-1", "1.5", "ten", "1e3", " "])("logs: tail=%j is refused with 422 invalid_request naming tail", async (tail) => {
    const site = await h.project(owner);
    await h.deploy(owner, site);
    await expect(h.reposite.appOperations.logs(owner, site, tail === " " ? "  x" : tail)).rejects.toMatchObject({ status: 422, code: "invalid_request", details: { field: "tail" } });
  });

  it("every operation: 404 for another account, 409 not_configured before the setup, 409 not_deployed before the first container", async () => {
    const site = await h.project(owner);
    const ops = h.reposite.appOperations;
    for (const call of [() => ops.logs(owner, site), () => ops.metrics(owner, site), () => ops.resetData(owner, site, { confirm: "web" })]) {
      await expect(call()).rejects.toMatchObject({ status: 409, code: "not_configured" });
    }
    await h.reposite.hosting.setup(owner, site, { volume_path: "/data" });
    const { slug } = await h.reposite.hosting.read(owner, site);
    for (const call of [() => ops.logs(owner, site), () => ops.metrics(owner, site), () => ops.resetData(owner, site, { confirm: slug })]) {
      await expect(call()).rejects.toMatchObject({ status: 409, code: "not_deployed" });
    }
    await h.deploy(owner, site);
    for (const call of [() => ops.logs(other, site), () => ops.metrics(other, site), () => ops.resetData(other, site, { confirm: slug })]) {
      await expect(call()).rejects.toMatchObject({ status: 404 });
    }
    expect((await h.reposite.hosting.read(owner, site)).status).toBe("running");
  });

  it("metrics: CPU of its share, memory against 512 MB, network bytes that grow with requests, storage; a stopped app answers zeros", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site, { volume_path: "/data" });
    const target = await container(site);
    expect((await get(target, "/files/blob", "PUT", "x".repeat(300_000))).status).toBe(204);
    const first = await h.reposite.appOperations.metrics(owner, site);
    expect(first).toEqual({
      running: true,
      cpu: { percent: 0, cpus: 1 },
      memory: { used_mb: 8, limit_mb: 512 },
      network: { rx_bytes: expect.any(Number), tx_bytes: expect.any(Number) },
      storage: { used_mb: expect.any(Number), limit_mb: 3072, over: false, image_mb: expect.any(Number), container_mb: 0, volume_mb: 0.3, measured_at: expect.any(String) },
      measured_at: expect.any(String),
    });
    expect(first.network.rx_bytes).toBeGreaterThan(300_000);
    expect(first.storage.image_mb).toBeGreaterThan(1);
    expect(first.storage.used_mb).toBeCloseTo(first.storage.image_mb + 0.3, 0);
    await get(target, "/");
    const second = await h.reposite.appOperations.metrics(owner, site);
    expect(second.network.rx_bytes).toBeGreaterThan(first.network.rx_bytes);
    expect(second.network.tx_bytes).toBeGreaterThan(first.network.tx_bytes);

    await h.reposite.hosting.stop(owner, site);
    const stopped = await h.reposite.appOperations.metrics(owner, site);
    expect(stopped).toMatchObject({ running: false, cpu: { percent: 0, cpus: 1 }, memory: { used_mb: 0, limit_mb: 512 }, network: { rx_bytes: 0, tx_bytes: 0 } });
    expect(stopped.storage).toMatchObject({ volume_mb: 0.3, over: false });
  });

  it("reset-data: refuses a wrong or missing confirm (422 confirm_mismatch) and an app without a volume (409 no_volume)", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site);
    const { slug } = await h.reposite.hosting.read(owner, site);
    for (const input of [undefined, {}, { confirm: "nope" }, { confirm: 1 }, [slug], { confirm: slug!.toUpperCase() }]) {
      await expect(h.reposite.appOperations.resetData(owner, site, input)).rejects.toMatchObject({
        status: 422,
        code: "confirm_mismatch",
        details: { field: "confirm" },
        message: expect.stringContaining(slug!),
      });
    }
    await expect(h.reposite.appOperations.resetData(owner, site, { confirm: slug })).rejects.toMatchObject({ status: 409, code: "no_volume" });
  });

  it("reset-data: the volume is emptied and the app runs again from the same image in a new container", async () => {
    const site = await h.project(owner);
    await h.reposite.hosting.setup(owner, site, { volume_path: "/data" });
    await h.reposite.hosting.setEnv(owner, site, { env: { MODE: "kept-env" } });
    await h.finish(owner, (await h.reposite.hosting.deploy(owner, site)).job_id);
    const before = await container(site);
    expect((await get(before, "/files/notes", "PUT", "my data")).status).toBe(204);
    expect((await get(before, "/files/notes")).body).toBe("my data");
    const { slug } = await h.reposite.hosting.read(owner, site);

    const answer = await h.reposite.appOperations.resetData(owner, site, { confirm: slug });
    expect(answer).toMatchObject({ status: "running", stopped_reason: null, last_operation: { kind: "reset_data", status: "done", finished_at: expect.any(String) } });
    const after = await container(site);
    expect(after.id).not.toBe(before.id);
    expect(after.image).toBe(before.image);
    expect((await get(after, "/files/notes")).status).toBe(404);
    expect((await get(after, "/")).body).toContain("kept-env");
    expect(await h.runtime!.volumeSize(volumeName(site))).toBe(0);
    expect(await h.runtime!.inspectContainer(before.id)).toBeNull();
    expect(h.reposite.appRoutes.get(site)).toEqual({ status: "running", target: { host: after.host, port: after.port } });
    expect((await h.reposite.appOperations.metrics(owner, site)).storage.volume_mb).toBe(0);
  });

  it("reset-data starts the app, so it goes through the payment gate (402); logs and metrics always work", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site, { volume_path: "/data" });
    const { slug } = await h.reposite.hosting.read(owner, site);
    paid = false;
    try {
      await expect(h.reposite.appOperations.resetData(owner, site, { confirm: slug })).rejects.toMatchObject({ status: 402, code: "payment_required" });
      await expect(h.reposite.appOperations.logs(owner, site)).resolves.toEqual(expect.any(String));
      await expect(h.reposite.appOperations.metrics(owner, site)).resolves.toMatchObject({ running: true });
    } finally {
      paid = true;
    }
  });

  it("reset-data of a stopped app starts it clean", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site, { volume_path: "/data" });
    await get(await container(site), "/files/a", "PUT", "1234");
    await h.reposite.hosting.stop(owner, site);
    const { slug } = await h.reposite.hosting.read(owner, site);
    await expect(h.reposite.appOperations.resetData(owner, site, { confirm: slug })).resolves.toMatchObject({ status: "running" });
    expect((await get(await container(site), "/files/a")).status).toBe(404);
  });
});

describe("operating without a container runtime", () => {
  it("answers 503 hosting_unavailable", async () => {
    const h = await startHostingHarness({ runtime: null });
    try {
      const owner = await h.account("ada@example.com");
      const site = await h.project(owner);
      const ops = h.reposite.appOperations;
      for (const call of [() => ops.logs(owner, site), () => ops.metrics(owner, site), () => ops.resetData(owner, site, { confirm: "x" })]) {
        await expect(call()).rejects.toMatchObject({ status: 503, code: "hosting_unavailable" });
      }
    } finally {
      await h.close();
    }
  });
});

describe("reset-data when the clean start fails", () => {
  it("the data is gone all the same, the app shows failed, the answer is 502 app_unhealthy", async () => {
    const memory = createMemoryContainerRuntime();
    let crash = false;
    // The next container made exits at once, as an app that crashes on start.
    const runtime: MemoryContainerRuntime = Object.assign(Object.create(null) as MemoryContainerRuntime, memory, {
      async runContainer(spec: ContainerSpec) {
        const handle = await memory.runContainer(spec);
        if (crash) await memory.exit(handle.id, 1);
        return handle;
      },
    });
    const h = await startHostingHarness({ runtime });
    try {
      const owner = await h.account("ada@example.com");
      const site = await h.project(owner);
      await h.deploy(owner, site, { volume_path: "/data" });
      const before = (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;
      await get(before, "/files/a", "PUT", "1234");
      const { slug } = await h.reposite.hosting.read(owner, site);
      crash = true;
      await expect(h.reposite.appOperations.resetData(owner, site, { confirm: slug })).rejects.toMatchObject({ status: 502, code: "app_unhealthy" });
      // The failed container made the volume again, empty.
      expect(await memory.volumeSize(volumeName(site))).toBe(0);
      expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "failed" });
      expect(h.reposite.appRoutes.get(site)).toEqual({ status: "failed", target: null });
      // It starts again once the app can.
      crash = false;
      await expect(h.reposite.hosting.start(owner, site)).resolves.toMatchObject({ status: "running" });
    } finally {
      await h.close();
    }
  });
});
