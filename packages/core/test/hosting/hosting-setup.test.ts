import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BARE_BASE_IMAGES, DeploymentStore, MASKED_VALUE, STORAGE, type RecordStorage } from "../../src/index.js";
import { get, startHostingHarness, type HostingHarness } from "./hosting-harness.js";
import { AppChanges } from "../../src/hosting/app-changes.js";

describe("deployment setup", () => {
  let h: HostingHarness;
  let owner: string;

  beforeAll(async () => {
    h = await startHostingHarness();
    owner = await h.account("ada@example.com");
  });
  afterAll(() => h.close());

  it("is created once (created: true, defaults filled in) and changed after, keeping the fields not sent", async () => {
    const site = await h.project(owner, "web", "Launch Pad");
    const first = await h.reposite.hosting.setup(owner, site, {});
    expect(first).toEqual({
      created: true,
      deployment: {
        build_mode: "dockerfile",
        dockerfile_path: "Dockerfile",
        base_image: null,
        port: 3000,
        ref: "HEAD",
        health_path: "/",
        volume_path: null,
        root_dir: null,
        slug: "launch-pad",
        status: "configured",
        url: "https://launch-pad.sites.example/app/",
        last_run: null,
        last_exit_oom: false,
        env_keys: [],
        override: false,
        stopped_reason: null,
        last_operation: null,
      },
    });
    // The first setup gave the project an address derived from its name.
    expect((await h.reposite.projects.get(owner, site)).slug).toBe("launch-pad");
    const second = await h.reposite.hosting.setup(owner, site, { port: 8080, ref: "v1.2", health_path: "/health?full=1", volume_path: "/var/lib/app/" });
    expect(second.created).toBe(false);
    expect(second.deployment).toMatchObject({ build_mode: "dockerfile", port: 8080, ref: "v1.2", health_path: "/health?full=1", volume_path: "/var/lib/app" });
    const third = await h.reposite.hosting.setup(owner, site, { build_mode: "bare", base_image: "alpine:3.20", volume_path: null });
    expect(third.deployment).toMatchObject({ build_mode: "bare", base_image: "alpine:3.20", port: 8080, volume_path: null });
    expect((await h.reposite.projects.get(owner, site)).deployment).toEqual({ status: "configured", url: "https://launch-pad.sites.example/app/" });
    expect((await h.reposite.projects.list(owner)).find((project) => project.id === site)?.app_status).toBe("configured");
  });

  it("keeps a project's own address", async () => {
    const site = await h.project(owner);
    await h.reposite.publishing.setSlug(owner, site, { slug: "my-own" });
    expect((await h.reposite.hosting.setup(owner, site, {})).deployment).toMatchObject({ slug: "my-own", url: "https://my-own.sites.example/app/" });
  });

  it.each([
    [{ build_mode: "docker" }, "build_mode", /must be one of dockerfile, auto, bare/],
    [{ dockerfile_path: "../Dockerfile" }, "dockerfile_path", /must stay inside the repository/],
    [{ dockerfile_path: "docker/../../x" }, "dockerfile_path", /must stay inside the repository/],
    [{ dockerfile_path: "/etc/passwd" }, "dockerfile_path", /not absolute/],
    [{ dockerfile_path: "" }, "dockerfile_path", /must not be empty/],
    [{ dockerfile_path: "docker/" }, "dockerfile_path", /must name a file/],
    [{ dockerfile_path: "a\\b" }, "dockerfile_path", /backslashes/],
    [{ base_image: "ubuntu:latest" }, "base_image", new RegExp(`must be one of ${BARE_BASE_IMAGES.join(", ").replace(/\./g, "\\.")}`)],
    [{ port: 0 }, "port", /1 to 65535/],
    [{ port: 65_536 }, "port", /1 to 65535/],
    [{ port: 80.5 }, "port", /1 to 65535/],
    [{ port: "3000" }, "port", /1 to 65535/],
    [{ ref: "main branch" }, "ref", /branch, tag or commit/],
    [{ ref: "a..b" }, "ref", /branch, tag or commit/],
    [{ ref: "--upload-pack=x" }, "ref", /branch, tag or commit/],
    [{ health_path: "health" }, "health_path", /starting with \//],
    [{ health_path: "/a b" }, "health_path", /starting with \//],
    [{ volume_path: "data" }, "volume_path", /absolute path/],
    [{ volume_path: "/" }, "volume_path", /root folder/],
    [{ volume_path: "/proc/x" }, "volume_path", /\/proc, \/sys or \/dev/],
    [{ volume_path: "/data/../etc" }, "volume_path", /\. or \.\. segments/],
    [{ volume_path: "/data:ro" }, "volume_path", /colons/],
    [{ volume_path: "/etc/hosts" }, "volume_path", /not a system folder .* or a file in one/],
    [{ volume_path: "/bin" }, "volume_path", /not a system folder/],
    [{ volume_path: "/usr" }, "volume_path", /not a system folder/],
    [{ volume_path: "/usr/lib/node_modules" }, "volume_path", /not a system folder/],
    [{ volume_path: "/var/run/docker.sock" }, "volume_path", /not a system folder/],
    [{ volume_path: "/etc/" }, "volume_path", /not a system folder/],
    [{ colour: "red" }, "", /colour/],
  ])("refuses %j with 422 invalid_request naming the field", async (input, field, message) => {
    const site = await h.project(owner);
    const error = await h.reposite.hosting.setup(owner, site, input).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 422, code: "invalid_request", ...(field ? { details: { field } } : {}) });
    expect((error as Error).message).toMatch(message);
    // Nothing was set up.
    expect((await h.reposite.projects.get(owner, site)).deployment).toBeNull();
  });

  it("refuses bare without a base image: 422 base_image_required", async () => {
    const site = await h.project(owner);
    await expect(h.reposite.hosting.setup(owner, site, { build_mode: "bare" })).rejects.toMatchObject({
      status: 422,
      code: "base_image_required",
      details: { field: "base_image" },
    });
  });

  it("answers 409 not_configured for an app not set up, and 404 for a project that is missing or another account's", async () => {
    const site = await h.project(owner);
    const other = await h.account("eve@example.com");
    await expect(h.reposite.hosting.read(owner, site)).rejects.toMatchObject({ status: 409, code: "not_configured" });
    await expect(h.reposite.hosting.deploy(owner, site)).rejects.toMatchObject({ status: 409, code: "not_configured" });
    await h.reposite.hosting.setup(owner, site, {});
    const calls = [
      () => h.reposite.hosting.setup(other, site, {}),
      () => h.reposite.hosting.read(other, site),
      () => h.reposite.hosting.env(other, site),
      () => h.reposite.hosting.setEnv(other, site, { env: { A: "b" } }),
      () => h.reposite.hosting.deploy(other, site),
      () => h.reposite.hosting.listRuns(other, site),
      () => h.reposite.hosting.restart(other, site),
      () => h.reposite.hosting.stop(other, site),
      () => h.reposite.hosting.start(other, site),
      () => h.reposite.hosting.remove(other, site),
      () => h.reposite.hosting.resources(other, site),
      () => h.reposite.hosting.read(owner, "site_missing"),
      () => h.reposite.hosting.read(owner, "../x"),
    ];
    for (const call of calls) await expect(call()).rejects.toMatchObject({ status: 404 });
    expect((await h.reposite.hosting.read(owner, site)).status).toBe("configured");
  });

  it("answers the free tier's resources and the steps to come", async () => {
    const site = await h.project(owner);
    await h.reposite.hosting.setup(owner, site, {});
    const resources = await h.reposite.hosting.resources(owner, site);
    expect(resources.memory).toMatchObject({ limit_mb: 512, units: 0, on_sale: false });
    expect(resources.disk).toMatchObject({ limit_mb: 3072, units: 0, on_sale: false });
    expect(resources.memory.steps.map((step) => [step.units, step.mb, step.available])).toEqual([
      [1, 1024, false],
      [2, 2048, false],
      [4, 4096, false],
      [8, 8192, false],
      [16, 16384, false],
    ]);
    expect(resources.disk.steps.map((step) => step.mb)).toEqual([5120, 10240, 20480, 40960, 81920]);
  });
});

describe("deployment env", () => {
  let h: HostingHarness;
  let owner: string;
  const SECRET = "sk_live_7f3a9c2e11";

  beforeAll(async () => {
    h = await startHostingHarness();
    owner = await h.account("ada@example.com");
  });
  afterAll(() => h.close());

  it("adds, changes and removes keys; reads mask every value; values are sealed at rest", async () => {
    const site = await h.project(owner);
    await h.reposite.hosting.setup(owner, site, {});
    expect(await h.reposite.hosting.setEnv(owner, site, { env: { API_KEY: SECRET, MODE: "production", _X1: "" } })).toEqual({
      env: { API_KEY: MASKED_VALUE, MODE: MASKED_VALUE, _X1: MASKED_VALUE },
    });
    expect(await h.reposite.hosting.setEnv(owner, site, { env: { MODE: "staging", _X1: null } })).toEqual({ env: { API_KEY: MASKED_VALUE, MODE: MASKED_VALUE } });
    expect(await h.reposite.hosting.env(owner, site)).toEqual({ env: { API_KEY: MASKED_VALUE, MODE: MASKED_VALUE } });
    expect((await h.reposite.hosting.read(owner, site)).env_keys).toEqual(["API_KEY", "MODE"]);
    // Nowhere in the stored app (hosting's record of the project) is the value in the clear.
    const storage = h.reposite.container.resolve<RecordStorage>(STORAGE);
    const stored = JSON.stringify(await storage.getItem(`deployments:${site}`));
    expect(stored).toContain("API_KEY");
    expect(stored).not.toContain(SECRET);
    expect(stored).not.toContain("staging");
  });

  it.each([
    [{ env: { "1ABC": "x" } }],
    [{ env: { "A-B": "x" } }],
    [{ env: { "A B": "x" } }],
    [{ env: { PORT: "8080" } }],
    [{ env: { A: 1 } }],
    [{ env: { A: "a\u0000b" } }],
    [{ env: ["A"] }],
    [{ vars: {} }],
  ])("refuses %j with 422 invalid_request", async (input) => {
    const site = await h.project(owner);
    await h.reposite.hosting.setup(owner, site, {});
    await expect(h.reposite.hosting.setEnv(owner, site, input)).rejects.toMatchObject({ status: 422, code: "invalid_request" });
    expect(await h.reposite.hosting.env(owner, site)).toEqual({ env: {} });
  });

  it.each(["__proto__", "constructor", "prototype"])("refuses the env name %s with 422 naming it (never dropped without a word)", async (name) => {
    const site = await h.project(owner);
    await h.reposite.hosting.setup(owner, site, {});
    // As JSON.parse makes it from a request body: an own property, even for __proto__.
    const input = JSON.parse(`{"env": {"A": "kept-out", "${name}": "x"}}`);
    const error = await h.reposite.hosting.setEnv(owner, site, input).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 422, code: "invalid_request", details: { field: `env.${name}` } });
    expect((error as Error).message).toContain(`${name} cannot be an env name`);
    expect(await h.reposite.hosting.env(owner, site)).toEqual({ env: {} });
  });

  it("keeps volume paths of the app's own, also inside system-looking trees", async () => {
    const site = await h.project(owner);
    for (const path of ["/data", "/var/lib/app", "/usr/src/app/uploads", "/home/node/data", "/srv/files"]) {
      expect((await h.reposite.hosting.setup(owner, site, { volume_path: path })).deployment.volume_path).toBe(path);
    }
  });

  it("answers at once, then restarts a running app with the new values (last_operation env_restart, under_way then done)", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site);
    const before = (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;
    await h.reposite.hosting.setEnv(owner, site, { env: { GREETING: "hello-there" } });
    expect((await h.reposite.hosting.read(owner, site)).last_operation).toMatchObject({ kind: "env_restart", status: "under_way", finished_at: null });
    await h.reposite.container.resolve(AppChanges).settled();
    expect((await h.reposite.hosting.read(owner, site)).last_operation).toMatchObject({ kind: "env_restart", status: "done", finished_at: expect.any(String), reason: null });
    const after = (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;
    expect(after.id).not.toBe(before.id);
    // The memory runtime's test app answers with the env it was given.
    const answer = await get(h.reposite.appRoutes.get(site)!.target!);
    expect(answer.body).toContain('"GREETING":"hello-there"');
    expect(await h.runtime!.inspectContainer(before.id)).toBeNull();
  });

  it("leaves a stopped app stopped (the values apply when it starts)", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site);
    await h.reposite.hosting.stop(owner, site);
    await h.reposite.hosting.setEnv(owner, site, { env: { LATER: "value-later" } });
    expect((await h.reposite.hosting.read(owner, site)).status).toBe("stopped");
    await h.reposite.hosting.start(owner, site);
    expect((await get(h.reposite.appRoutes.get(site)!.target!)).body).toContain('"LATER":"value-later"');
  });
});

describe("hosting without a container runtime", () => {
  let h: HostingHarness;
  let owner: string;

  beforeAll(async () => {
    h = await startHostingHarness({ runtime: null });
    owner = await h.account("ada@example.com");
  });
  afterAll(() => h.close());

  it("answers 503 hosting_unavailable on every call, and so does saas generation", async () => {
    const site = await h.project(owner);
    expect(h.reposite.hosting.available).toBe(false);
    const calls = [
      () => h.reposite.hosting.setup(owner, site, {}),
      () => h.reposite.hosting.read(owner, site),
      () => h.reposite.hosting.env(owner, site),
      () => h.reposite.hosting.setEnv(owner, site, { env: {} }),
      () => h.reposite.hosting.deploy(owner, site),
      () => h.reposite.hosting.listRuns(owner, site),
      () => h.reposite.hosting.getRun(owner, site, "run_x"),
      () => h.reposite.hosting.restart(owner, site),
      () => h.reposite.hosting.stop(owner, site),
      () => h.reposite.hosting.start(owner, site),
      () => h.reposite.hosting.remove(owner, site),
      () => h.reposite.hosting.resources(owner, site),
    ];
    for (const call of calls) await expect(call()).rejects.toMatchObject({ status: 503, code: "hosting_unavailable" });
    await expect(h.reposite.generation.generate(owner, site, { mode: "saas" })).rejects.toMatchObject({ status: 503, code: "hosting_unavailable" });
    await expect(h.reposite.generation.generate(owner, site, { mode: "landing" })).resolves.toMatchObject({ mode: "landing" });
    expect(await h.reposite.hosting.recover()).toEqual({ running: 0, interrupted: 0, queued: 0 });
  });
});

describe("hosting with a container runtime", () => {
  it("lets saas generation start: the runtime is the one source of truth", async () => {
    const h = await startHostingHarness();
    try {
      const owner = await h.account("ada@example.com");
      const site = await h.project(owner);
      expect(h.reposite.hosting.available).toBe(true);
      await expect(h.reposite.generation.generate(owner, site, { mode: "saas" })).resolves.toMatchObject({ mode: "saas" });
    } finally {
      await h.close();
    }
  });
});

describe("the payment gate", () => {
  it("asks HOSTING_ENTITLEMENTS before setup, deploy, start and restart (402 payment_required); reading, env, stop and removal always work", async () => {
    const allowed = new Set<string>();
    const asked: string[] = [];
    const h = await startHostingHarness({
      hostingEntitlements: {
        mayHost: async (accountId, siteId) => {
          asked.push(`${accountId} ${siteId}`);
          return allowed.has(siteId);
        },
      },
    });
    try {
      const owner = await h.account("ada@example.com");
      const site = await h.project(owner);
      await expect(h.reposite.hosting.setup(owner, site, {})).rejects.toMatchObject({ status: 402, code: "payment_required" });
      expect(asked).toEqual([`${owner} ${site}`]);
      expect((await h.reposite.projects.get(owner, site)).deployment).toBeNull();
      allowed.add(site);
      await h.deploy(owner, site);
      allowed.delete(site);
      await expect(h.reposite.hosting.deploy(owner, site)).rejects.toMatchObject({ status: 402, code: "payment_required" });
      await expect(h.reposite.hosting.restart(owner, site)).rejects.toMatchObject({ status: 402, code: "payment_required" });
      await expect(h.reposite.hosting.setup(owner, site, { port: 4000 })).rejects.toMatchObject({ status: 402, code: "payment_required" });
      expect((await h.reposite.hosting.read(owner, site)).status).toBe("running");
      await h.reposite.hosting.setEnv(owner, site, { env: { A: "value-a" } });
      expect(await h.reposite.hosting.stop(owner, site)).toMatchObject({ status: "stopped" });
      await expect(h.reposite.hosting.start(owner, site)).rejects.toMatchObject({ status: 402, code: "payment_required" });
      expect(await h.reposite.hosting.listRuns(owner, site)).toHaveLength(1);
      await h.reposite.hosting.remove(owner, site);
    } finally {
      await h.close();
    }
  });
});
