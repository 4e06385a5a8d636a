import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppDisk, AppLimits, DeploymentStore, PurchaseStore } from "../../src/index.js";
import { startHostingHarness } from "../hosting/hosting-harness.js";
import { startBillingHarness, type BillingHarness } from "./billing-helpers.js";
import { AppChanges } from "../../src/hosting/app-changes.js";

const MB = 1024 * 1024;

describe("payments off (the built-in free provider)", () => {
  it("everything is free: the gate is open, nothing is sold (503 not_on_sale), statuses say required false and Free, no portal", async () => {
    const h = await startHostingHarness();
    try {
      const owner = await h.account("free@example.com");
      const site = await h.project(owner);
      await h.deploy(owner, site);
      await expect(h.reposite.billing.statuses(owner)).resolves.toEqual({
        embed: { paid: false, required: false, price_label: "Free" },
        domain: { paid: false, required: false, price_label: "Free" },
      });
      for (const [product, body] of [
        ["embed", { site_id: site }],
        ["domain", { site_id: site }],
        ["memory", { site_id: site, units: 2 }],
        ["disk", { site_id: site, units: 2 }],
      ] as const) {
        await expect(h.reposite.billing.checkout(owner, product, body), product).rejects.toMatchObject({ status: 503, code: "not_on_sale" });
      }
      const resources = await h.reposite.hosting.resources(owner, site);
      expect(resources.memory).toMatchObject({ limit_mb: 512, units: 0, on_sale: false });
      expect(resources.disk).toMatchObject({ limit_mb: 3072, units: 0, on_sale: false });
      const prices = await h.reposite.billing.priceList();
      expect(prices.payments).toBe(false);
      expect(prices.products.embed).toEqual({ on_sale: false, price_label: "Free", interval: null, amount: null, currency: null });
      expect(prices.products.memory).toMatchObject({ on_sale: false, unit_mb: 1024, steps: [{ units: 1, mb: 1024 }, { units: 2 }, { units: 4 }, { units: 8 }, { units: 16, mb: 16384 }] });
      await expect(h.reposite.billing.portalUrl(owner, "https://reposite.example/account/billing")).rejects.toMatchObject({ status: 503, code: "payments_off" });
      await expect(h.reposite.billing.summary(owner)).resolves.toMatchObject({ payments: false, purchases: [] });
    } finally {
      await h.close();
    }
  });
});

describe("entitlements follow purchases", () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ hosting: { diskLimitMb: 3072 } });
  });
  afterAll(() => h.close());

  it("the hosting gate: 402 with nothing bought, one app per purchase (409 quota_reached past it), a purchase whose project has no app moves to the next app set up", async () => {
    const owner = await h.account("gate@example.com");
    const a = await h.project(owner);
    const b = await h.project(owner);
    await expect(h.reposite.hosting.setup(owner, a, {})).rejects.toMatchObject({ status: 402, code: "payment_required" });
    await h.buy(owner, "embed", { site_id: a });
    await h.deploy(owner, a);
    await expect(h.reposite.hosting.setup(owner, b, {})).rejects.toMatchObject({ status: 409, code: "quota_reached" });
    expect((await h.reposite.billing.summary(owner)).products.embed).toEqual({ seats: 1, used: 1 });

    await h.reposite.hosting.remove(owner, a);
    expect((await h.reposite.billing.summary(owner)).products.embed).toEqual({ seats: 1, used: 0 });
    await h.reposite.hosting.setup(owner, b, {});
    const summary = await h.reposite.billing.summary(owner);
    expect(summary.products.embed).toEqual({ seats: 1, used: 1 });
    expect(summary.purchases).toMatchObject([{ product: "embed", site_id: b, in_use: true, status: "active", counts: true }]);
    await expect(h.reposite.hosting.setup(owner, a, {})).rejects.toMatchObject({ status: 409, code: "quota_reached" });
  });

  it("a diagnosis that asks for more memory counts from the memory the app has paid for", async () => {
    const owner = await h.account("oom@example.com");
    h.github.addRepo({ owner: "acme", name: "hungry", files: { Dockerfile: 'FROM node:22\nCMD ["node", "server.js"]\n' } });
    const site = await h.project(owner, "hungry", "Hungry build");
    await h.buy(owner, "embed", { site_id: site });
    await h.deploy(owner, site);
    const memory = await h.reposite.billing.checkout(owner, "memory", { site_id: site, units: 4 });
    await h.deliver(h.pay.complete(memory.id));
    // The next build outgrows its 2 GB: a free app would be told 4096 MB, one with 4 GB the next size up.
    h.github.addRepo({ owner: "acme", name: "hungry", files: { Dockerfile: "FROM node:22\n# reposite-test: oom\nRUN build\n" } });
    await h.deploy(owner, site);
    const { last_run } = await h.reposite.hosting.read(owner, site);
    expect(last_run?.diagnosis).toMatchObject({ kind: "build_out_of_memory", limit: { kind: "memory", needed: 8192 } });
  });

  it("memory and disk count only while the app has hosting: when hosting alone ends, the app is back on the free tier", async () => {
    const owner = await h.account("addons@example.com");
    const site = await h.project(owner, "web", "Add-ons app");
    await h.buy(owner, "embed", { site_id: site });
    await h.reposite.hosting.setup(owner, site, {});
    await h.buy(owner, "memory", { site_id: site, units: 2 });
    await h.buy(owner, "disk", { site_id: site, units: 4 });
    const limits = h.reposite.container.resolve(AppLimits);
    expect([await limits.memoryMb(site), await limits.diskMb(site)]).toEqual([2048, 20480]);

    const store = h.reposite.container.resolve(PurchaseStore);
    const hosting = (await store.bySite(site)).find((purchase) => purchase.product === "embed")!;
    await h.deliver(h.pay.event({ type: "subscription_changed", subscriptionId: hosting.subscription_id!, customerId: null, status: "canceled", ended: true, metadata: {} }));
    expect([await limits.memoryMb(site), await limits.diskMb(site)]).toEqual([512, 3072]);
    expect((await h.reposite.hosting.resources(owner, site)).disk.limit_mb).toBe(3072);
  });

  it("memory takes effect on the next deploy, disk at once; without their purchases the app is back on the free tier and deploys answer 402", async () => {
    const owner = await h.account("sizes@example.com");
    const site = await h.project(owner, "web", "Sized app");
    await h.buy(owner, "embed", { site_id: site });
    await h.deploy(owner, site);
    const runtime = h.runtime!;
    const memoryOf = async () => (await runtime.stats!((await h.reposite.container.resolve(DeploymentStore).get(site))!.container!.id)).memoryLimitBytes / MB;
    expect(await memoryOf()).toBe(512);

    const memory = await h.reposite.billing.checkout(owner, "memory", { site_id: site, units: 2 });
    await h.deliver(h.pay.complete(memory.id));
    // Paid, but the container runs as it was launched until the next deploy.
    expect((await h.reposite.hosting.resources(owner, site)).memory).toMatchObject({ limit_mb: 512, units: 2 });
    expect(await memoryOf()).toBe(512);
    expect((await h.reposite.appOperations.metrics(owner, site)).memory.limit_mb).toBe(512);
    await h.deploy(owner, site);
    expect(await memoryOf()).toBe(2048);
    // Metrics tell the memory the running container was given.
    expect((await h.reposite.appOperations.metrics(owner, site)).memory.limit_mb).toBe(2048);
    expect((await h.reposite.hosting.resources(owner, site)).memory).toMatchObject({ limit_mb: 2048, units: 2 });

    const disk = h.reposite.container.resolve(AppDisk);
    expect((await h.reposite.appOperations.metrics(owner, site)).storage.limit_mb).toBe(3072);
    const diskSession = await h.reposite.billing.checkout(owner, "disk", { site_id: site, units: 4 });
    h.pay.complete(diskSession.id);
    await expect(h.reposite.billing.confirm(owner, "disk", { session_id: diskSession.id })).resolves.toEqual({ paid: true, site_id: site, limit_mb: 20480 });
    expect(await disk.limitFor(site)).toBe(20480);
    expect((await h.reposite.hosting.resources(owner, site)).disk).toMatchObject({ limit_mb: 20480, units: 4 });
    // The measurement follows the new limit at once, with no deploy.
    expect((await h.reposite.appOperations.metrics(owner, site)).storage.limit_mb).toBe(20480);

    const summary = await h.reposite.billing.summary(owner);
    expect(summary.products).toMatchObject({ embed: { seats: 1, used: 1 }, memory: { seats: 1, used: 1, units: 2 }, disk: { seats: 1, used: 1, units: 4 } });
    expect(summary.purchases.map((purchase) => [purchase.product, purchase.project_name])).toEqual([
      ["disk", "Sized app"],
      ["memory", "Sized app"],
      ["embed", "Sized app"],
    ]);

    // Every subscription of the app is cancelled.
    const store = h.reposite.container.resolve(PurchaseStore);
    for (const subscriptionId of new Set((await store.bySite(site)).map((purchase) => purchase.subscription_id!))) {
      await h.deliver(h.pay.event({ type: "subscription_changed", subscriptionId, customerId: null, status: "canceled", ended: true, metadata: {} }));
    }
    await expect(h.reposite.hosting.deploy(owner, site)).rejects.toMatchObject({ status: 402, code: "payment_required" });
    await expect(h.reposite.hosting.restart(owner, site)).rejects.toMatchObject({ status: 402, code: "payment_required" });
    expect(await disk.limitFor(site)).toBe(3072);
    const after = await h.reposite.hosting.resources(owner, site);
    expect(after.memory).toMatchObject({ units: 0 });
    expect(after.disk).toMatchObject({ limit_mb: 3072, units: 0 });
    // Reading, logs, metrics, settings and stopping keep working unpaid; so does removing.
    expect((await h.reposite.hosting.read(owner, site)).status).toBe("running");
    await h.reposite.appOperations.logs(owner, site);
    expect((await h.reposite.appOperations.metrics(owner, site)).storage.limit_mb).toBe(3072);
    await h.reposite.hosting.setEnv(owner, site, { env: { A: "b" } });
    await h.reposite.container.resolve(AppChanges).settled();
    // The env change relaunched the app: a new container gets the free tier's memory.
    expect(await memoryOf()).toBe(512);
    expect(await h.reposite.hosting.stop(owner, site)).toMatchObject({ status: "stopped" });
    await expect(h.reposite.hosting.start(owner, site)).rejects.toMatchObject({ status: 402, code: "payment_required" });
    await h.reposite.hosting.remove(owner, site);
    expect((await h.reposite.billing.summary(owner)).products.embed).toEqual({ seats: 0, used: 0 });
  });

  it("the billing portal opens for the account's customer; 409 nothing_bought before a purchase", async () => {
    const owner = await h.account("portal@example.com");
    await expect(h.reposite.billing.portalUrl(owner, "https://reposite.example/account/billing")).rejects.toMatchObject({ status: 409, code: "nothing_bought" });
    const site = await h.project(owner);
    await h.buy(owner, "embed", { site_id: site });
    const url = await h.reposite.billing.portalUrl(owner, "https://reposite.example/account/billing");
    const customerId = (await h.reposite.container.resolve(PurchaseStore).byAccount(owner))[0]!.customer_id!;
    expect(url).toContain(customerId);
    expect(h.pay.portals.at(-1)).toEqual({ customerId, returnUrl: "https://reposite.example/account/billing" });
    // The next checkout names the same customer, so the portal shows every purchase.
    await h.reposite.billing.checkout(owner, "domain", { site_id: site });
    expect(h.pay.checkouts.at(-1)!.request).toMatchObject({ customerId, email: "portal@example.com", accountId: owner });
    expect(h.pay.checkouts.at(-1)!.request.successUrl).toBe("https://reposite.example/account/billing/return?session_id={CHECKOUT_SESSION_ID}");
  });

  it("a return page's confirm tells what the session sold and for which project", async () => {
    const owner = await h.account("return@example.com");
    const site = await h.project(owner, "web", "Returned");
    const { id } = await h.reposite.billing.checkout(owner, "embed", { site_id: site, resources: { memory: 2 } });
    await expect(h.reposite.billing.confirmSession(owner, id)).resolves.toEqual({ paid: false, products: ["embed", "memory"], site_id: site, project_name: "Returned", limit_mb: null });
    h.pay.complete(id);
    await expect(h.reposite.billing.confirmSession(owner, id)).resolves.toMatchObject({ paid: true, products: ["embed", "memory"] });
  });

  it("prices: each product with its label and interval; memory and disk per unit with their steps", async () => {
    const prices = await h.reposite.billing.priceList();
    expect(prices.payments).toBe(true);
    expect(prices.products.embed).toEqual({ on_sale: true, price_label: "$9.00 / month", interval: "month", amount: 900, currency: "usd" });
    expect(prices.products.domain).toMatchObject({ price_label: "$12.00 once", interval: "once" });
    expect(prices.products.disk).toMatchObject({ on_sale: true, price_label: "$2.00 / month", unit_price_label: "$2.00 / month", unit_mb: 5120 });
    expect(prices.products.disk.steps).toEqual([
      { units: 1, mb: 5120, price_label: "$2.00 / month" },
      { units: 2, mb: 10240, price_label: "$4.00 / month" },
      { units: 4, mb: 20480, price_label: "$8.00 / month" },
      { units: 8, mb: 40960, price_label: "$16.00 / month" },
      { units: 16, mb: 81920, price_label: "$32.00 / month" },
    ]);
  });
});
