import { createMemoryContainerRuntime, type MemoryContainerRuntime } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, json, startHarness, type Harness, type Transport } from "./harness.js";
import { DEPLOYMENT_ROUTES } from "./deployment-routes.js";

const REPOS = [
  {
    owner: "acme",
    name: "rocket-cli",
    description: "Launch rockets",
    topics: [],
    files: { Dockerfile: 'FROM node:22\nRUN echo building with sk_test_4242424242\nCMD ["node", "server.js"]\n' },
  },
];


const send = (h: Harness, token: string | null, method: string, path: string, body?: unknown) =>
  h.call(path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });

async function waitForJob(h: Harness, token: string, jobId: string): Promise<{ status: string; error: string | null; finished_at: string | null; run_id: string | null }> {
  for (;;) {
    const job = await (await h.call(`/app/jobs/${jobId}`, bearer(token))).json();
    if (job.status !== "running") return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(["in-process", "socket"] as const)("deployment over HTTP (%s)", (transport: Transport) => {
  let h: Harness;
  let runtime: MemoryContainerRuntime;
  let token: string;
  let otherToken: string;
  const newSite = async () => (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli", name: "Rocket" }, token))).json()).id as string;

  beforeAll(async () => {
    runtime = createMemoryContainerRuntime();
    h = await startHarness(transport, REPOS, { containerRuntime: runtime, hosting: { healthIntervalMs: 20, logFlushMs: 20 } });
    ({ token } = await h.signUp("ada@example.com"));
    ({ token: otherToken } = await h.signUp("eve@example.com"));
  });
  afterAll(async () => {
    await h.close();
    await runtime.close();
  });

  it("sets up (201, then 200), deploys (202 {job_id, run_id}), reads, lists runs, masks env, stops, starts, restarts and removes (204)", async () => {
    const site = await newSite();
    const created = await h.call(`/app/sites/${site}/deployment`, json({ port: 8080 }, token, "PUT"));
    expect(created.status).toBe(201);
    await expect(created.json()).resolves.toMatchObject({ status: "configured", port: 8080, slug: "rocket", url: "http://rocket.sites.test/app/" });
    const changed = await h.call(`/app/sites/${site}/deployment`, json({ port: 3000 }, token, "PUT"));
    expect(changed.status).toBe(200);

    const env = await h.call(`/app/sites/${site}/deployment/env`, json({ env: { API_KEY: "sk_test_4242424242" } }, token, "PUT"));
    expect(env.status).toBe(200);
    await expect(env.json()).resolves.toEqual({ env: { API_KEY: "********" } });
    await expect((await h.call(`/app/sites/${site}/deployment/env`, bearer(token))).json()).resolves.toEqual({ env: { API_KEY: "********" } });

    const deploy = await h.call(`/app/sites/${site}/deployment/deploy`, bearer(token, "POST"));
    expect(deploy.status).toBe(202);
    const { job_id, run_id } = await deploy.json();
    expect(run_id).toMatch(/^run_/);
    const job = await waitForJob(h, token, job_id);
    expect(job).toMatchObject({ status: "done", run_id });
    expect(job.finished_at).not.toBeNull();
    // The job stream carries the build log, the env value masked.
    const stream = await (await h.call(`/app/jobs/${job_id}/stream`, bearer(token))).text();
    expect(stream).toContain("building with ***");
    expect(stream).not.toContain("sk_test_4242424242");

    await expect((await h.call(`/app/sites/${site}/deployment`, bearer(token))).json()).resolves.toMatchObject({
      status: "running",
      last_run: { run_id, status: "done" },
      last_exit_oom: false,
      env_keys: ["API_KEY"],
    });
    await expect((await h.call(`/app/sites/${site}`, bearer(token))).json()).resolves.toMatchObject({ deployment: { status: "running" } });
    const list = await (await h.call("/app/sites", bearer(token))).json();
    expect(list.find((project: { id: string }) => project.id === site).app_status).toBe("running");
    const runs = await (await h.call(`/app/sites/${site}/deployment/runs`, bearer(token))).json();
    expect(runs).toMatchObject([{ run_id, status: "done", job_id }]);
    const run = await (await h.call(`/app/sites/${site}/deployment/runs/${run_id}`, bearer(token))).json();
    expect(run.log_tail).toContain("building with ***");

    await expect((await h.call(`/app/sites/${site}/deployment/stop`, bearer(token, "POST"))).json()).resolves.toMatchObject({ status: "stopped" });
    await expect((await h.call(`/app/sites/${site}/deployment/start`, bearer(token, "POST"))).json()).resolves.toMatchObject({ status: "running" });
    await expect((await h.call(`/app/sites/${site}/deployment/restart`, bearer(token, "POST"))).json()).resolves.toMatchObject({ status: "running" });
    await expect((await h.call(`/app/sites/${site}/deployment/resources`, bearer(token))).json()).resolves.toMatchObject({
      memory: { limit_mb: 512, on_sale: false },
      disk: { limit_mb: 3072, on_sale: false },
    });

    const removed = await h.call(`/app/sites/${site}/deployment`, bearer(token, "DELETE"));
    expect(removed.status).toBe(204);
    expect(await runtime.listContainers({ "dev.reposite.site": site })).toEqual([]);
    await expect((await h.call(`/app/sites/${site}`, bearer(token))).json()).resolves.toMatchObject({ deployment: null });
  });

  it("answers 404 to another account on every deployment route, and 401 without a token", async () => {
    const site = await newSite();
    await h.call(`/app/sites/${site}/deployment`, json({}, token, "PUT"));
    for (const [method, path, body] of DEPLOYMENT_ROUTES) {
      const other = await send(h, otherToken, method, `/app/sites/${site}${path}`, body);
      expect(other.status, `${method} ${path}`).toBe(404);
      expect((await other.json()).error).toMatch(/not found/i);
      expect((await send(h, null, method, `/app/sites/${site}${path}`, body)).status, `${method} ${path}`).toBe(401);
    }
    // Nothing of the owner's app changed.
    await expect((await h.call(`/app/sites/${site}/deployment`, bearer(token))).json()).resolves.toMatchObject({ status: "configured", env_keys: [] });
  });

  it("formats refusals as {error, code, field}", async () => {
    const site = await newSite();
    const bad = await h.call(`/app/sites/${site}/deployment`, json({ dockerfile_path: "../Dockerfile" }, token, "PUT"));
    expect(bad.status).toBe(422);
    await expect(bad.json()).resolves.toMatchObject({ code: "invalid_request", field: "dockerfile_path", error: expect.stringMatching(/inside the repository/) });
    const bare = await h.call(`/app/sites/${site}/deployment`, json({ build_mode: "bare" }, token, "PUT"));
    await expect(bare.json()).resolves.toMatchObject({ code: "base_image_required", field: "base_image" });
    const notSetUp = await h.call(`/app/sites/${site}/deployment/deploy`, bearer(token, "POST"));
    expect(notSetUp.status).toBe(409);
    await expect(notSetUp.json()).resolves.toMatchObject({ code: "not_configured" });
    await h.call(`/app/sites/${site}/deployment`, json({}, token, "PUT"));
    const notDeployed = await h.call(`/app/sites/${site}/deployment/restart`, bearer(token, "POST"));
    expect(notDeployed.status).toBe(409);
    await expect(notDeployed.json()).resolves.toMatchObject({ code: "not_deployed" });
    expect((await h.call(`/app/sites/${site}/deployment/runs/run_unknown`, bearer(token))).status).toBe(404);
    expect((await h.call(`/app/sites/${site}/deployment/runs/..%2Fx`, bearer(token))).status).toBe(404);
  });

  it("answers a second deploy of the account while one is under way with 429 build_limit", async () => {
    const site = await newSite();
    await h.call(`/app/sites/${site}/deployment`, json({}, token, "PUT"));
    const [first, second] = await Promise.all([
      h.call(`/app/sites/${site}/deployment/deploy`, bearer(token, "POST")),
      h.call(`/app/sites/${site}/deployment/deploy`, bearer(token, "POST")),
    ]);
    expect([first.status, second.status].sort()).toEqual([202, 429]);
    const refused = first.status === 429 ? first : second;
    await expect(refused.json()).resolves.toMatchObject({ code: "build_limit" });
    const accepted = first.status === 202 ? first : second;
    await waitForJob(h, token, (await accepted.json()).job_id);
  });
});

describe("deployment on a server without app hosting", () => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startHarness("in-process", REPOS);
    ({ token } = await h.signUp("ada@example.com"));
  });
  afterAll(() => h.close());

  it("answers 503 hosting_unavailable on every deployment route", async () => {
    const site = (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli" }, token))).json()).id;
    for (const [method, path, body] of DEPLOYMENT_ROUTES) {
      const answer = await send(h, token, method, `/app/sites/${site}${path}`, body);
      expect(answer.status, `${method} ${path}`).toBe(503);
      await expect(answer.json()).resolves.toMatchObject({ code: "hosting_unavailable" });
    }
  });
});

describe("the payment gate over HTTP", () => {
  it("answers 402 payment_required to setup, deploy, start and restart when the account may not host the project", async () => {
    const runtime = createMemoryContainerRuntime();
    const h = await startHarness("in-process", REPOS, { containerRuntime: runtime, hostingEntitlements: { mayHost: async () => false } });
    try {
      const { token } = await h.signUp("ada@example.com");
      const site = (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli" }, token))).json()).id;
      const answer = await h.call(`/app/sites/${site}/deployment`, json({}, token, "PUT"));
      expect(answer.status).toBe(402);
      await expect(answer.json()).resolves.toMatchObject({ code: "payment_required" });
    } finally {
      await h.close();
      await runtime.close();
    }
  });
});
