import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBillingHarness, type BillingHarness } from "./billing-helpers.js";

describe("checkout rules", () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness();
  });
  afterAll(() => h.close());

  it("units are only 1, 2, 4, 8 or 16 (400 invalid_units), for memory, disk and the steps of an embed checkout (0 allowed there)", async () => {
    const owner = await h.account("units@example.com");
    const site = await h.project(owner);
    for (const units of [0, 3, 32, "2", 2.5, null, undefined]) {
      for (const product of ["memory", "disk"]) {
        expect(await h.refusal(h.reposite.billing.checkout(owner, product, { site_id: site, units })), `${product} ${units}`).toMatchObject({ status: 400, code: "invalid_units" });
      }
    }
    expect(await h.refusal(h.reposite.billing.checkout(owner, "embed", { site_id: site, resources: { memory: 3 } }))).toMatchObject({ status: 400, code: "invalid_units" });
    expect(await h.refusal(h.reposite.billing.checkout(owner, "embed", { site_id: site, resources: { disk: -1 } }))).toMatchObject({ status: 400, code: "invalid_units" });
    // 0 leaves the free tier: a plain hosting checkout.
    const plain = await h.reposite.billing.checkout(owner, "embed", { site_id: site, resources: { memory: 0, disk: 0 } });
    expect(h.pay.checkouts.find((each) => each.state.id === plain.id)!.request.items).toEqual([{ product: "embed", quantity: 1 }]);
    expect(await h.refusal(h.reposite.billing.checkout(owner, "gold", { site_id: site }))).toMatchObject({ status: 404, code: "unknown_product" });
    expect(await h.refusal(h.reposite.billing.checkout(owner, "embed", {}))).toMatchObject({ status: 422, code: "invalid_request" });
  });

  it("memory and disk need the app's hosting (402), a set-up app (409 not_configured); the number is the size wanted and only units not yet paid are charged; 409 already_has at or under what is paid", async () => {
    const owner = await h.account("sizes@example.com");
    const site = await h.project(owner);
    expect(await h.refusal(h.reposite.billing.checkout(owner, "memory", { site_id: site, units: 2 }))).toMatchObject({ status: 402, code: "payment_required" });
    await h.buy(owner, "embed", { site_id: site });
    expect(await h.refusal(h.reposite.billing.checkout(owner, "disk", { site_id: site, units: 2 }))).toMatchObject({ status: 409, code: "not_configured" });
    await h.reposite.hosting.setup(owner, site, {});

    const first = await h.reposite.billing.checkout(owner, "memory", { site_id: site, units: 2 });
    expect(first).toMatchObject({ units: 2, quantity: 2, url: expect.stringContaining(first.id) });
    h.pay.complete(first.id);
    await expect(h.reposite.billing.confirm(owner, "memory", { session_id: first.id })).resolves.toEqual({ paid: true, site_id: site, limit_mb: 2048 });

    const resources = await h.reposite.hosting.resources(owner, site);
    expect(resources.memory).toMatchObject({ units: 2, on_sale: true, unit_price_label: "$3.00 / month" });
    expect(resources.memory.steps).toEqual([
      { units: 1, mb: 1024, available: false, add_units: 0, price_label: "$3.00 / month", add_price_label: "$0.00 / month" },
      { units: 2, mb: 2048, available: false, add_units: 0, price_label: "$6.00 / month", add_price_label: "$0.00 / month" },
      { units: 4, mb: 4096, available: true, add_units: 2, price_label: "$12.00 / month", add_price_label: "$6.00 / month" },
      { units: 8, mb: 8192, available: true, add_units: 6, price_label: "$24.00 / month", add_price_label: "$18.00 / month" },
      { units: 16, mb: 16384, available: true, add_units: 14, price_label: "$48.00 / month", add_price_label: "$42.00 / month" },
    ]);

    for (const units of [1, 2]) {
      expect(await h.refusal(h.reposite.billing.checkout(owner, "memory", { site_id: site, units }))).toMatchObject({ status: 409, code: "already_has" });
    }
    const more = await h.reposite.billing.checkout(owner, "memory", { site_id: site, units: 8 });
    expect(more).toMatchObject({ units: 8, quantity: 6 });
    expect(h.pay.checkouts.at(-1)!.request.items).toEqual([{ product: "memory", quantity: 6 }]);
    await h.deliver(h.pay.complete(more.id));
    expect((await h.reposite.hosting.resources(owner, site)).memory.units).toBe(8);

    const disk = await h.reposite.billing.checkout(owner, "disk", { site_id: site, units: 4 });
    expect(disk).toMatchObject({ units: 4, quantity: 4 });
  });

  it("hosting: 409 already_has for a project that has it; 409 quota_reached for another project unless additional: true, which buys another", async () => {
    const owner = await h.account("seats@example.com");
    const a = await h.project(owner);
    const b = await h.project(owner);
    await h.buy(owner, "embed", { site_id: a });
    expect(await h.refusal(h.reposite.billing.checkout(owner, "embed", { site_id: a }))).toMatchObject({ status: 409, code: "already_has" });
    expect(await h.refusal(h.reposite.billing.checkout(owner, "embed", { site_id: b }))).toMatchObject({ status: 409, code: "quota_reached" });
    expect(await h.refusal(h.reposite.billing.checkout(owner, "embed", { site_id: b, additional: false }))).toMatchObject({ status: 409, code: "quota_reached" });
    const second = await h.reposite.billing.checkout(owner, "embed", { site_id: b, additional: true });
    await h.deliver(h.pay.complete(second.id));
    await expect(h.reposite.billing.status(owner, "embed", b)).resolves.toMatchObject({ paid: true });
    expect((await h.reposite.billing.summary(owner)).products.embed).toEqual({ seats: 2, used: 0 });
  });

  it("domains: one per purchase, a one-time payment (no subscription); the same quota rule", async () => {
    const owner = await h.account("domains@example.com");
    const a = await h.project(owner);
    const b = await h.project(owner);
    const { sessionId } = await h.buy(owner, "domain", { site_id: a });
    expect(h.pay.checkouts.find((each) => each.state.id === sessionId)!.state.subscriptionId).toBeNull();
    await expect(h.reposite.billing.status(owner, "domain")).resolves.toEqual({ paid: true, required: true, price_label: "$12.00 once" });
    expect(await h.refusal(h.reposite.billing.checkout(owner, "domain", { site_id: a }))).toMatchObject({ status: 409, code: "already_has" });
    expect(await h.refusal(h.reposite.billing.checkout(owner, "domain", { site_id: b }))).toMatchObject({ status: 409, code: "quota_reached" });
    await expect(h.reposite.billing.checkout(owner, "domain", { site_id: b, additional: true })).resolves.toMatchObject({ id: expect.any(String) });
  });

  it("not_bundleable: resources with hosting for an app that has hosting, or resources billed otherwise than hosting; bundled resources are sold on the hosting checkout", async () => {
    const owner = await h.account("bundle@example.com");
    const site = await h.project(owner);
    const bundle = await h.reposite.billing.checkout(owner, "embed", { site_id: site, resources: { memory: 4, disk: 2 } });
    expect(h.pay.checkouts.at(-1)!.request.items).toEqual([
      { product: "embed", quantity: 1 },
      { product: "memory", quantity: 4 },
      { product: "disk", quantity: 2 },
    ]);
    await h.deliver(h.pay.complete(bundle.id));
    await h.reposite.hosting.setup(owner, site, {});
    const resources = await h.reposite.hosting.resources(owner, site);
    expect(resources.memory).toMatchObject({ units: 4, limit_mb: 4096 });
    expect(resources.disk).toMatchObject({ units: 2, limit_mb: 10240 });
    expect(await h.refusal(h.reposite.billing.checkout(owner, "embed", { site_id: site, resources: { memory: 8 } }))).toMatchObject({ status: 409, code: "not_bundleable" });

    const other = await startBillingHarness({
      catalog: { embed: { amount: 900, currency: "usd", interval: "month" }, memory: { amount: 500, currency: "usd", interval: "once" } },
    });
    try {
      const someone = await other.account("x@example.com");
      const project = await other.project(someone);
      expect(await other.refusal(other.reposite.billing.checkout(someone, "embed", { site_id: project, resources: { memory: 1 } }))).toMatchObject({ status: 409, code: "not_bundleable" });
      // Disk is not sold there at all: 503.
      expect(await other.refusal(other.reposite.billing.checkout(someone, "embed", { site_id: project, resources: { disk: 1 } }))).toMatchObject({ status: 503, code: "not_on_sale" });
    } finally {
      await other.close();
    }
  });

  it("503 not_on_sale where memory or disk is not in the provider's catalog; resources say on_sale false", async () => {
    const other = await startBillingHarness({ catalog: { embed: { amount: 900, currency: "usd", interval: "month" }, memory: { amount: 300, currency: "usd", interval: "month" } } });
    try {
      const owner = await other.account("nodisk@example.com");
      const site = await other.project(owner);
      await other.buy(owner, "embed", { site_id: site });
      await other.reposite.hosting.setup(owner, site, {});
      expect(await other.refusal(other.reposite.billing.checkout(owner, "disk", { site_id: site, units: 1 }))).toMatchObject({ status: 503, code: "not_on_sale" });
      const resources = await other.reposite.hosting.resources(owner, site);
      expect(resources.disk).toMatchObject({ on_sale: false, unit_price_label: "" });
      expect(resources.disk.steps.every((step) => !step.available)).toBe(true);
      expect(resources.memory.on_sale).toBe(true);
    } finally {
      await other.close();
    }
  });

  it("another account's project is 404; a session of another account is 404 on confirm", async () => {
    const owner = await h.account("mine@example.com");
    const eve = await h.account("eve@example.com");
    const site = await h.project(owner);
    expect(await h.refusal(h.reposite.billing.checkout(eve, "embed", { site_id: site }))).toMatchObject({ status: 404 });
    const { id } = await h.reposite.billing.checkout(owner, "embed", { site_id: site });
    expect(await h.refusal(h.reposite.billing.confirm(eve, "embed", { session_id: id }))).toMatchObject({ status: 404, code: "unknown_session" });
    expect(await h.refusal(h.reposite.billing.confirm(owner, "memory", { session_id: id }))).toMatchObject({ status: 404, code: "unknown_session" });
    // Not paid yet: false, and nothing counts.
    await expect(h.reposite.billing.confirm(owner, "embed", { session_id: id })).resolves.toEqual({ paid: false });
  });
});
