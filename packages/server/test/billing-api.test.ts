import { createMemoryContainerRuntime, createMemoryPayments, type MemoryContainerRuntime, type MemoryPayments, type WebhookDelivery } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, json, startHarness, type Harness, type Transport } from "./harness.js";
import { DeploymentStore } from "@reposite/core";

const REPOS = [
  {
    owner: "acme",
    name: "rocket-cli",
    description: "Launch rockets",
    topics: [],
    files: { Dockerfile: 'FROM node:22\nCMD ["node", "server.js"]\n' },
  },
];

async function waitForJob(h: Harness, token: string, jobId: string): Promise<{ status: string }> {
  for (;;) {
    const job = await (await h.call(`/app/jobs/${jobId}`, bearer(token))).json();
    if (job.status !== "running") return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(["in-process", "socket"] as const)("billing over HTTP (%s)", (transport: Transport) => {
  let h: Harness;
  let runtime: MemoryContainerRuntime;
  let pay: MemoryPayments;
  let token: string;
  const newSite = async (name = "Rocket") => (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli", name }, token))).json()).id as string;
  const webhook = (delivery: WebhookDelivery, headers = delivery.headers) => h.call("/billing/webhook", { method: "POST", headers, body: delivery.body });
  const deploy = async (site: string) => {
    const started = await h.call(`/app/sites/${site}/deployment/deploy`, bearer(token, "POST"));
    expect(started.status).toBe(202);
    expect(await waitForJob(h, token, (await started.json()).job_id)).toMatchObject({ status: "done" });
  };

  beforeAll(async () => {
    runtime = createMemoryContainerRuntime();
    pay = createMemoryPayments();
    h = await startHarness(transport, REPOS, { containerRuntime: runtime, payments: pay, hosting: { healthIntervalMs: 20, logFlushMs: 20 } });
    ({ token } = await h.signUp("ada@example.com"));
  });
  afterAll(async () => {
    await h.close();
    await runtime.close();
  });

  it("GET /billing/prices needs no token; the rest need one (401)", async () => {
    const prices = await h.call("/billing/prices");
    expect(prices.status).toBe(200);
    const body = await prices.json();
    expect(body).toMatchObject({
      payments: true,
      products: {
        embed: { on_sale: true, price_label: "$9.00 / month", interval: "month" },
        memory: { on_sale: true, unit_price_label: "$3.00 / month", unit_mb: 1024, steps: expect.arrayContaining([{ units: 16, mb: 16384, price_label: "$48.00 / month" }]) },
        disk: { unit_mb: 5120 },
        domain: { price_label: "$12.00 once", interval: "once" },
      },
    });
    for (const [method, path] of [
      ["GET", "/billing"],
      ["GET", "/billing/embed"],
      ["GET", "/billing/account/summary"],
      ["POST", "/billing/embed/checkout"],
      ["POST", "/billing/embed/confirm"],
    ] as const) {
      expect((await h.call(path, { method })).status, `${method} ${path}`).toBe(401);
    }
  });

  it("checkout → the provider's webhook → paid by itself → the app deploys; memory bought by units (quantity = units not yet paid) applies on the next deploy; disk at once", async () => {
    const site = await newSite();
    await expect((await h.call("/billing", bearer(token))).json()).resolves.toEqual({
      embed: { paid: false, required: true, price_label: "$9.00 / month" },
      domain: { paid: false, required: true, price_label: "$12.00 once" },
    });
    const refused = await h.call(`/app/sites/${site}/deployment`, json({}, token, "PUT"));
    expect(refused.status).toBe(402);
    await expect(refused.json()).resolves.toMatchObject({ code: "payment_required" });

    const checkout = await h.call("/billing/embed/checkout", json({ site_id: site }, token));
    expect(checkout.status).toBe(200);
    const session = await checkout.json();
    expect(Object.keys(session).sort()).toEqual(["id", "url"]);
    const paid = await webhook(pay.complete(session.id));
    expect(paid.status).toBe(200);
    await expect((await h.call("/billing/embed", bearer(token))).json()).resolves.toMatchObject({ paid: true, required: true });
    await expect((await h.call(`/billing/embed?site_id=${site}`, bearer(token))).json()).resolves.toMatchObject({ paid: true });
    await expect((await h.call("/billing/embed/confirm", json({ session_id: session.id }, token))).json()).resolves.toEqual({ paid: true });

    // Memory before the app is set up: 409 not_configured.
    const early = await h.call("/billing/memory/checkout", json({ site_id: site, units: 2 }, token));
    expect(early.status).toBe(409);
    await expect(early.json()).resolves.toMatchObject({ code: "not_configured" });
    expect((await h.call(`/app/sites/${site}/deployment`, json({}, token, "PUT"))).status).toBe(201);
    await deploy(site);
    const containerMemory = async () => {
      const deployment = await h.reposite.container.resolve(DeploymentStore).get(site);
      return (await runtime.stats!(deployment!.container!.id)).memoryLimitBytes / (1024 * 1024);
    };
    expect(await containerMemory()).toBe(512);

    const bad = await h.call("/billing/memory/checkout", json({ site_id: site, units: 3 }, token));
    expect(bad.status).toBe(400);
    await expect(bad.json()).resolves.toMatchObject({ code: "invalid_units" });

    const memory = await (await h.call("/billing/memory/checkout", json({ site_id: site, units: 2 }, token))).json();
    expect(memory).toMatchObject({ id: expect.any(String), url: expect.any(String), units: 2, quantity: 2 });
    pay.complete(memory.id);
    await expect((await h.call("/billing/memory/confirm", json({ session_id: memory.id }, token))).json()).resolves.toEqual({ paid: true, site_id: site, limit_mb: 2048 });
    const more = await (await h.call("/billing/memory/checkout", json({ site_id: site, units: 4 }, token))).json();
    expect(more).toMatchObject({ units: 4, quantity: 2 });
    const again = await h.call("/billing/memory/checkout", json({ site_id: site, units: 2 }, token));
    expect(again.status).toBe(409);
    await expect(again.json()).resolves.toMatchObject({ code: "already_has" });

    const before = await (await h.call(`/app/sites/${site}/deployment/resources`, bearer(token))).json();
    expect(before.memory).toMatchObject({ limit_mb: 512, units: 2, on_sale: true, unit_price_label: "$3.00 / month" });
    expect(before.memory.steps[2]).toEqual({ units: 4, mb: 4096, available: true, add_units: 2, price_label: "$12.00 / month", add_price_label: "$6.00 / month" });
    await deploy(site);
    expect(await containerMemory()).toBe(2048);

    const disk = await (await h.call("/billing/disk/checkout", json({ site_id: site, units: 1 }, token))).json();
    expect(disk).toMatchObject({ units: 1, quantity: 1 });
    await webhook(pay.complete(disk.id));
    const after = await (await h.call(`/app/sites/${site}/deployment/resources`, bearer(token))).json();
    expect(after.disk).toMatchObject({ limit_mb: 5120, units: 1 });
    expect(after.memory).toMatchObject({ limit_mb: 2048, units: 2 });

    const summary = await (await h.call("/billing/account/summary", bearer(token))).json();
    expect(summary.products).toMatchObject({ embed: { seats: 1, used: 1 }, memory: { seats: 1, used: 1, units: 2 }, disk: { seats: 1, used: 1, units: 1 }, domain: { seats: 0, used: 0 } });
    expect(summary.purchases).toHaveLength(3);
    expect(summary.purchases[0]).toMatchObject({ product: "disk", project_name: "Rocket", site_id: site, status: "active", in_use: true });

    // A second app: 409 quota_reached at setup, and at checkout without additional.
    const second = await newSite("Second");
    const full = await h.call(`/app/sites/${second}/deployment`, json({}, token, "PUT"));
    expect(full.status).toBe(409);
    await expect(full.json()).resolves.toMatchObject({ code: "quota_reached" });
    const quota = await h.call("/billing/embed/checkout", json({ site_id: second }, token));
    expect(quota.status).toBe(409);
    await expect(quota.json()).resolves.toMatchObject({ code: "quota_reached" });
    expect((await h.call("/billing/embed/checkout", json({ site_id: second, additional: true }, token))).status).toBe(200);

    // The hosting subscription ends: deploys answer 402, reading still works.
    const subscriptionId = (await pay.getCheckout(session.id))!.subscriptionId!;
    await webhook(pay.event({ type: "subscription_changed", subscriptionId, customerId: null, status: "canceled", ended: true, metadata: {} }));
    const unpaid = await h.call(`/app/sites/${site}/deployment/deploy`, bearer(token, "POST"));
    expect(unpaid.status).toBe(402);
    expect((await h.call(`/app/sites/${site}/deployment`, bearer(token))).status).toBe(200);
    await expect((await h.call("/billing/embed", bearer(token))).json()).resolves.toMatchObject({ paid: false });
  });

  it("the webhook: a bad signature is 400 invalid_signature; the same event twice is taken once", async () => {
    const site = await newSite("Hooked");
    const session = await (await h.call("/billing/domain/checkout", json({ site_id: site }, token))).json();
    const delivery = pay.complete(session.id);
    const forged = await webhook(delivery, { ...delivery.headers, "stripe-signature": "v1=forged" });
    expect(forged.status).toBe(400);
    await expect(forged.json()).resolves.toMatchObject({ code: "invalid_signature" });
    const unsigned = await h.call("/billing/webhook", { method: "POST", headers: { "content-type": "application/json" }, body: delivery.body });
    expect(unsigned.status).toBe(400);
    await expect((await h.call("/billing/domain", bearer(token))).json()).resolves.toMatchObject({ paid: false });
    await expect((await webhook(delivery)).json()).resolves.toMatchObject({ received: true, duplicate: false });
    await expect((await webhook(delivery)).json()).resolves.toMatchObject({ received: true, duplicate: true });
    await expect((await h.call("/billing/domain", bearer(token))).json()).resolves.toMatchObject({ paid: true });
  });

  it("unknown products are 404; memory and disk have no status of their own; a bad site_id is 422", async () => {
    for (const path of ["/billing/gold", "/billing/memory"]) {
      const answer = await h.call(path, bearer(token));
      expect(answer.status, path).toBe(404);
      await expect(answer.json()).resolves.toMatchObject({ code: "unknown_product" });
    }
    expect((await h.call("/billing/gold/checkout", json({ site_id: "site_x" }, token))).status).toBe(404);
    expect((await h.call("/billing/embed?site_id=../x", bearer(token))).status).toBe(422);
    expect((await h.call("/billing/embed/confirm", json({}, token))).status).toBe(422);
  });

  it("a token on the billing portal page is 403 session_required", async () => {
    const answer = await h.call("/account/billing", bearer(token));
    expect(answer.status).toBe(403);
    await expect(answer.json()).resolves.toMatchObject({ code: "session_required" });
  });
});

describe("billing over HTTP with payments off", () => {
  it("prices say payments false and Free; statuses required false; memory and disk 503 not_on_sale; resources on_sale false; the gate is open", async () => {
    const runtime = createMemoryContainerRuntime();
    const h = await startHarness("in-process", REPOS, { containerRuntime: runtime });
    try {
      const { token } = await h.signUp("free@example.com");
      await expect((await h.call("/billing/prices")).json()).resolves.toMatchObject({ payments: false, products: { embed: { on_sale: false, price_label: "Free" } } });
      await expect((await h.call("/billing/embed", bearer(token))).json()).resolves.toEqual({ paid: false, required: false, price_label: "Free" });
      const site = (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli" }, token))).json()).id;
      expect((await h.call(`/app/sites/${site}/deployment`, json({}, token, "PUT"))).status).toBe(201);
      const memory = await h.call("/billing/memory/checkout", json({ site_id: site, units: 1 }, token));
      expect(memory.status).toBe(503);
      await expect(memory.json()).resolves.toMatchObject({ code: "not_on_sale" });
      await expect((await h.call(`/app/sites/${site}/deployment/resources`, bearer(token))).json()).resolves.toMatchObject({
        memory: { on_sale: false, limit_mb: 512 },
        disk: { on_sale: false, limit_mb: 3072 },
      });
      const webhook = await h.call("/billing/webhook", { method: "POST", headers: { "stripe-signature": "t=1,v1=x" }, body: "{}" });
      expect(webhook.status).toBe(400);
      await expect(webhook.json()).resolves.toMatchObject({ code: "invalid_signature" });
    } finally {
      await h.close();
      await runtime.close();
    }
  });
});
