import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_LIMITS_CHANNEL, AppLimits, EVENTS, PurchaseStore } from "../../src/index.js";
import { startBillingHarness, type BillingHarness } from "./billing-helpers.js";

describe("webhook events", () => {
  let h: BillingHarness;
  let store: PurchaseStore;
  beforeAll(async () => {
    h = await startBillingHarness();
    store = h.reposite.container.resolve(PurchaseStore);
  });
  afterAll(() => h.close());

  const hostingOf = async (owner: string) => (await store.byAccount(owner)).find((purchase) => purchase.product === "embed")!;

  it("a completed checkout makes paid true by itself; the same event twice changes nothing; confirm after it agrees", async () => {
    const owner = await h.account("paid@example.com");
    const site = await h.project(owner);
    const { id } = await h.reposite.billing.checkout(owner, "embed", { site_id: site });
    await expect(h.reposite.billing.status(owner, "embed")).resolves.toMatchObject({ paid: false, required: true });
    const delivery = h.pay.complete(id);
    await expect(h.deliver(delivery)).resolves.toMatchObject({ received: true, duplicate: false });
    await expect(h.reposite.billing.status(owner, "embed")).resolves.toEqual({ paid: true, required: true, price_label: "$9.00 / month" });
    const after = await hostingOf(owner);
    expect(after).toMatchObject({ status: "active", customer_id: expect.stringMatching(/^cus_/), subscription_id: expect.stringMatching(/^sub_/) });
    await expect(h.deliver(delivery)).resolves.toMatchObject({ duplicate: true });
    expect(await hostingOf(owner)).toEqual(after);
    await expect(h.reposite.billing.confirm(owner, "embed", { session_id: id })).resolves.toEqual({ paid: true });
    expect(await hostingOf(owner)).toEqual(after);
  });

  it("confirm first, the webhook after: one purchase, active once", async () => {
    const owner = await h.account("confirm-first@example.com");
    const site = await h.project(owner);
    const { id } = await h.reposite.billing.checkout(owner, "embed", { site_id: site });
    const delivery = h.pay.complete(id);
    await expect(h.reposite.billing.confirm(owner, "embed", { session_id: id })).resolves.toEqual({ paid: true });
    await h.deliver(delivery);
    const purchases = await store.byAccount(owner);
    expect(purchases).toHaveLength(1);
    expect(purchases[0]).toMatchObject({ status: "active", event_at: delivery.event.created });
    expect((await h.reposite.billing.summary(owner)).products.embed.seats).toBe(1);
  });

  it("a bad signature is refused with 400 invalid_signature and changes nothing", async () => {
    const owner = await h.account("forged@example.com");
    const site = await h.project(owner);
    const { id } = await h.reposite.billing.checkout(owner, "embed", { site_id: site });
    const delivery = h.pay.complete(id);
    expect(await h.refusal(h.reposite.billing.webhook(delivery.body, "v1=0000"))).toMatchObject({ status: 400, code: "invalid_signature" });
    expect(await h.refusal(h.reposite.billing.webhook(delivery.body, undefined))).toMatchObject({ status: 400, code: "invalid_signature" });
    expect(await h.refusal(h.reposite.billing.webhook(delivery.body.replace("true", "false"), delivery.headers["stripe-signature"]))).toMatchObject({ status: 400 });
    expect((await hostingOf(owner)).status).toBe("pending");
  });

  it("subscription updates end and restore a purchase; a failed payment marks it past_due and it keeps counting until the subscription ends", async () => {
    const owner = await h.account("renewals@example.com");
    const site = await h.project(owner);
    await h.buy(owner, "embed", { site_id: site });
    const subscriptionId = (await hostingOf(owner)).subscription_id!;
    const change = (status: string, ended = false) => h.pay.event({ type: "subscription_changed", subscriptionId, customerId: null, status, ended, metadata: {} });

    await h.deliver(h.pay.event({ type: "payment_failed", subscriptionId, customerId: null }));
    expect(await hostingOf(owner)).toMatchObject({ status: "past_due", provider_status: "payment_failed" });
    await expect(h.reposite.billing.status(owner, "embed")).resolves.toMatchObject({ paid: true });
    await expect(h.reposite.hosting.setup(owner, site, {})).resolves.toMatchObject({ created: true });

    await h.deliver(change("active"));
    expect((await hostingOf(owner)).status).toBe("active");
    await h.deliver(change("past_due"));
    expect((await hostingOf(owner)).status).toBe("past_due");
    await h.deliver(change("unpaid"));
    expect(await hostingOf(owner)).toMatchObject({ status: "ended", provider_status: "unpaid" });
    await expect(h.reposite.billing.status(owner, "embed")).resolves.toMatchObject({ paid: false });
    await h.deliver(change("active"));
    expect((await hostingOf(owner)).status).toBe("active");
    await h.deliver(change("canceled", true));
    expect((await hostingOf(owner)).status).toBe("ended");
    expect(await h.refusal(h.reposite.hosting.deploy(owner, site))).toMatchObject({ status: 402, code: "payment_required" });
  });

  it("events out of order: an older one never undoes a newer state", async () => {
    const owner = await h.account("order@example.com");
    const site = await h.project(owner);
    const { delivery } = await h.buy(owner, "embed", { site_id: site });
    const subscriptionId = (await hostingOf(owner)).subscription_id!;
    const at = delivery.event.created;
    const cancelled = h.pay.event({ type: "subscription_changed", subscriptionId, customerId: null, status: "canceled", ended: true, metadata: {}, created: at + 100 });
    const olderActive = h.pay.event({ type: "subscription_changed", subscriptionId, customerId: null, status: "active", ended: false, metadata: {}, created: at + 50 });
    const olderFailure = h.pay.event({ type: "payment_failed", subscriptionId, customerId: null, created: at + 60 });
    await h.deliver(cancelled);
    await h.deliver(olderActive);
    await h.deliver(olderFailure);
    expect(await hostingOf(owner)).toMatchObject({ status: "ended", event_at: at + 100 });
  });

  it("a quantity changed in the billing portal sets the purchase's quantity (units move with it), also when it arrives before the checkout's completion; an older quantity never undoes a newer one; the limits channel says so", async () => {
    const owner = await h.account("portal@example.com");
    const site = await h.project(owner);
    const limits = h.reposite.container.resolve(AppLimits);
    const said: unknown[] = [];
    const stop = h.reposite.container.resolve(EVENTS).subscribe(APP_LIMITS_CHANNEL, (event) => said.push(event));
    try {
      const { id } = await h.reposite.billing.checkout(owner, "embed", { site_id: site, resources: { memory: 4, disk: 2 } });
      const completed = h.pay.complete(id);
      const subscriptionId = (await h.pay.getCheckout(id))!.subscriptionId!;
      const lowered = (quantities: Record<string, number>, created: number) =>
        h.pay.event({ type: "subscription_changed", subscriptionId, customerId: null, status: "active", ended: false, metadata: {}, quantities, created });
      // The portal's change is reported before the completion: it applies once the purchase is active.
      await h.deliver(lowered({ embed: 1, memory: 2, disk: 2 }, completed.event.created + 10));
      await h.deliver(completed);
      expect(await limits.units(site, "memory")).toBe(2);
      expect(await limits.units(site, "disk")).toBe(2);
      expect((await store.bySite(site)).find((purchase) => purchase.product === "memory")).toMatchObject({ units: 2, quantity: 2 });
      expect(said).toContainEqual({ site_id: site });

      said.length = 0;
      await h.deliver(lowered({ embed: 1, memory: 1, disk: 1 }, completed.event.created + 30));
      await h.deliver(lowered({ embed: 1, memory: 4, disk: 2 }, completed.event.created + 20));
      expect(await limits.units(site, "memory")).toBe(1);
      expect(await limits.limitMb(site, "disk")).toBe(5120);
      expect(said).toEqual([{ site_id: site }, { site_id: site }]);
    } finally {
      stop();
    }
  });

  it("a subscription's cancellation that arrives before its checkout's completion still ends the purchase", async () => {
    const owner = await h.account("early@example.com");
    const site = await h.project(owner);
    const { id } = await h.reposite.billing.checkout(owner, "embed", { site_id: site });
    const completed = h.pay.complete(id);
    const subscriptionId = (await h.pay.getCheckout(id))!.subscriptionId!;
    const cancelled = h.pay.event({ type: "subscription_changed", subscriptionId, customerId: null, status: "canceled", ended: true, metadata: {}, created: completed.event.created + 10 });
    await h.deliver(cancelled);
    await h.deliver(completed);
    expect((await hostingOf(owner)).status).toBe("ended");
    // A confirm does not bring it back either.
    await expect(h.reposite.billing.confirm(owner, "embed", { session_id: id })).resolves.toEqual({ paid: false });
  });

  it("a checkout completed unpaid leaves the purchase pending; events of other kinds are taken and ignored", async () => {
    const owner = await h.account("unpaid@example.com");
    const site = await h.project(owner);
    const { id } = await h.reposite.billing.checkout(owner, "embed", { site_id: site });
    await h.deliver(h.pay.complete(id, { paid: false }));
    expect((await hostingOf(owner)).status).toBe("pending");
    await expect(h.deliver(h.pay.event({ type: "ignored", providerType: "invoice.created" }))).resolves.toMatchObject({ duplicate: false });
  });
});
