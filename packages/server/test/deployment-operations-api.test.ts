import { request } from "node:http";
import { createMemoryContainerRuntime, type MemoryContainerRuntime } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, json, startHarness, type Harness, type Transport } from "./harness.js";
import { DeploymentStore } from "@reposite/core";

const REPOS = [
  {
    owner: "acme",
    name: "rocket-cli",
    description: "Launch rockets",
    topics: [],
    files: { Dockerfile: 'FROM node:22\n# reposite-test: run log first line\n# reposite-test: run log second line\nCMD ["node", "server.js"]\n' },
  },
];

/** A request straight to the app's container (as the proxy would send it). */
function hit(target: { host: string; port: number }, path: string, method = "GET", body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: target.host, port: target.port, path, method, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe.each(["in-process", "socket"] as const)("operating an app over HTTP (%s)", (transport: Transport) => {
  let h: Harness;
  let runtime: MemoryContainerRuntime;
  let token: string;
  let otherToken: string;

  /** A project set up (`setup` fields) and deployed; answers its id and slug. */
  const deployed = async (setup: Record<string, unknown> = {}) => {
    const site = (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli", name: "Rocket" }, token))).json()).id as string;
    const { slug } = await (await h.call(`/app/sites/${site}/deployment`, json(setup, token, "PUT"))).json();
    const { job_id } = await (await h.call(`/app/sites/${site}/deployment/deploy`, bearer(token, "POST"))).json();
    for (;;) {
      const job = await (await h.call(`/app/jobs/${job_id}`, bearer(token))).json();
      if (job.status !== "running") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { site, slug: slug as string };
  };
  const containerOf = async (site: string) => (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;

  beforeAll(async () => {
    runtime = createMemoryContainerRuntime();
    h = await startHarness(transport, REPOS, { containerRuntime: runtime, hosting: { healthIntervalMs: 20, logFlushMs: 20, diskCheckIntervalMs: 1 } });
    ({ token } = await h.signUp("ada@example.com"));
    ({ token: otherToken } = await h.signUp("eve@example.com"));
  });
  afterAll(async () => {
    await h.close();
    await runtime.close();
  });

  it("GET …/logs answers the app's output as plain text; tail picks the last lines; bad tails are 422 invalid_request", async () => {
    const { site } = await deployed();
    const all = await h.call(`/app/sites/${site}/deployment/logs`, bearer(token));
    expect(all.status).toBe(200);
    expect(all.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(all.headers.get("cache-control")).toBe("no-store");
    expect(await all.text()).toBe("first line\nsecond line\n");
    await expect((await h.call(`/app/sites/${site}/deployment/logs?tail=1`, bearer(token))).text()).resolves.toBe("second line\n");
    expect((await h.call(`/app/sites/${site}/deployment/logs?tail=999999`, bearer(token))).status).toBe(200);
    for (const tail of ["0", "-3", "abc", "2.5"]) {
      const bad = await h.call(`/app/sites/${site}/deployment/logs?tail=${tail}`, bearer(token));
      expect(bad.status, tail).toBe(422);
      await expect(bad.json()).resolves.toMatchObject({ code: "invalid_request", field: "tail", error: expect.stringContaining("5000") });
    }
    // A stopped app's output still reads.
    await h.call(`/app/sites/${site}/deployment/stop`, bearer(token, "POST"));
    await expect((await h.call(`/app/sites/${site}/deployment/logs?tail=1`, bearer(token))).text()).resolves.toBe("second line\n");
  });

  it("GET …/metrics answers cpu, memory, network and storage; a stopped app answers running false and zeros", async () => {
    const { site } = await deployed({ volume_path: "/data" });
    expect(await hit(await containerOf(site), "/files/a", "PUT", "y".repeat(200_000))).toBe(204);
    const answer = await h.call(`/app/sites/${site}/deployment/metrics`, bearer(token));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    const metrics = await answer.json();
    expect(metrics).toEqual({
      running: true,
      cpu: { percent: 0, cpus: 1 },
      memory: { used_mb: 8, limit_mb: 512 },
      network: { rx_bytes: expect.any(Number), tx_bytes: expect.any(Number) },
      storage: { used_mb: expect.any(Number), limit_mb: 3072, over: false, image_mb: expect.any(Number), container_mb: 0, volume_mb: 0.2, measured_at: expect.any(String) },
      measured_at: expect.any(String),
    });
    expect(metrics.network.rx_bytes).toBeGreaterThan(200_000);
    await h.call(`/app/sites/${site}/deployment/stop`, bearer(token, "POST"));
    await expect((await h.call(`/app/sites/${site}/deployment/metrics`, bearer(token))).json()).resolves.toMatchObject({
      running: false,
      cpu: { percent: 0 },
      memory: { used_mb: 0, limit_mb: 512 },
      network: { rx_bytes: 0, tx_bytes: 0 },
      storage: { volume_mb: 0.2, over: false },
    });
  });

  it("POST …/reset-data refuses a wrong or missing confirm (422 confirm_mismatch, field confirm), then empties the volume and answers the deployment", async () => {
    const { site, slug } = await deployed({ volume_path: "/data" });
    const before = await containerOf(site);
    expect(await hit(before, "/files/notes", "PUT", "keep me?")).toBe(204);
    for (const body of [{}, { confirm: "rocket-nope" }, { confirm: null }]) {
      const refused = await h.call(`/app/sites/${site}/deployment/reset-data`, json(body, token));
      expect(refused.status).toBe(422);
      await expect(refused.json()).resolves.toMatchObject({ code: "confirm_mismatch", field: "confirm", error: expect.stringContaining(slug) });
    }
    const noBody = await h.call(`/app/sites/${site}/deployment/reset-data`, bearer(token, "POST"));
    expect(noBody.status).toBe(422);
    await expect(noBody.json()).resolves.toMatchObject({ code: "confirm_mismatch" });
    expect(await hit(before, "/files/notes")).toBe(200);

    const reset = await h.call(`/app/sites/${site}/deployment/reset-data`, json({ confirm: slug }, token));
    expect(reset.status).toBe(200);
    await expect(reset.json()).resolves.toMatchObject({ status: "running", slug, volume_path: "/data", stopped_reason: null });
    const after = await containerOf(site);
    expect(after.id).not.toBe(before.id);
    expect(await hit(after, "/files/notes")).toBe(404);
  });

  it("reset-data answers 409 no_volume without a volume_path; every operation answers 409 not_deployed before a deploy", async () => {
    const { site, slug } = await deployed();
    const noVolume = await h.call(`/app/sites/${site}/deployment/reset-data`, json({ confirm: slug }, token));
    expect(noVolume.status).toBe(409);
    await expect(noVolume.json()).resolves.toMatchObject({ code: "no_volume", field: "volume_path" });

    const fresh = (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli", name: "Fresh" }, token))).json()).id;
    expect((await (await h.call(`/app/sites/${fresh}/deployment/logs`, bearer(token))).json()).code).toBe("not_configured");
    const { slug: freshSlug } = await (await h.call(`/app/sites/${fresh}/deployment`, json({ volume_path: "/data" }, token, "PUT"))).json();
    for (const [method, path, body] of [
      ["GET", "/logs"],
      ["GET", "/metrics"],
      ["POST", "/reset-data", { confirm: freshSlug }],
    ] as const) {
      const answer = await h.call(`/app/sites/${fresh}/deployment${path}`, body ? json(body, token, method) : bearer(token, method));
      expect(answer.status, path).toBe(409);
      await expect(answer.json()).resolves.toMatchObject({ code: "not_deployed" });
    }
  });

  it("another account gets 404 on logs, metrics and reset-data, even with the right confirm; no token gets 401", async () => {
    const { site, slug } = await deployed({ volume_path: "/data" });
    const before = await containerOf(site);
    const calls: [string, RequestInit][] = [
      ["/logs", bearer(otherToken)],
      ["/metrics", bearer(otherToken)],
      ["/reset-data", json({ confirm: slug }, otherToken)],
    ];
    for (const [path, init] of calls) {
      const answer = await h.call(`/app/sites/${site}/deployment${path}`, init);
      expect(answer.status, path).toBe(404);
      expect((await answer.json()).error).toMatch(/not found/i);
      expect((await h.call(`/app/sites/${site}/deployment${path}`, { method: init.method ?? "GET" })).status, path).toBe(401);
    }
    expect((await containerOf(site)).id).toBe(before.id);
  });
});

describe("operating an app when hosting is not paid for", () => {
  it("logs and metrics work; reset-data answers 402 payment_required", async () => {
    const runtime = createMemoryContainerRuntime();
    let paid = true;
    const h = await startHarness("in-process", REPOS, { containerRuntime: runtime, hosting: { healthIntervalMs: 20 }, hostingEntitlements: { mayHost: async () => paid } });
    try {
      const { token } = await h.signUp("ada@example.com");
      const site = (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli" }, token))).json()).id;
      const { slug } = await (await h.call(`/app/sites/${site}/deployment`, json({ volume_path: "/data" }, token, "PUT"))).json();
      const { job_id } = await (await h.call(`/app/sites/${site}/deployment/deploy`, bearer(token, "POST"))).json();
      while ((await (await h.call(`/app/jobs/${job_id}`, bearer(token))).json()).status === "running") await new Promise((resolve) => setTimeout(resolve, 20));
      paid = false;
      expect((await h.call(`/app/sites/${site}/deployment/logs`, bearer(token))).status).toBe(200);
      expect((await h.call(`/app/sites/${site}/deployment/metrics`, bearer(token))).status).toBe(200);
      const reset = await h.call(`/app/sites/${site}/deployment/reset-data`, json({ confirm: slug }, token));
      expect(reset.status).toBe(402);
      await expect(reset.json()).resolves.toMatchObject({ code: "payment_required" });
    } finally {
      await h.close();
      await runtime.close();
    }
  });
});
