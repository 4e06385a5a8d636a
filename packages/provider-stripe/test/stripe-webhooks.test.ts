import { WebhookRejected, type CheckoutRequest, type PaymentEvent, type PaymentProvider } from "@reposite/core";
import { startFakeStripe, type FakeStripe, type FakeStripeWebhook, type StripeObject } from "@reposite/test-support";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStripePayments } from "../src/index.js";

let fake: FakeStripe;
let provider: PaymentProvider;
beforeAll(async () => {
  fake = await startFakeStripe();
  provider = createStripePayments({
    secretKey: fake.secretKey,
    webhookSecret: fake.webhookSecret,
    prices: fake.priceIds,
    client: { ...fake.clientOptions, maxNetworkRetries: 0 },
  });
});
afterAll(async () => {
  await fake.close();
});

const checkout = (items: CheckoutRequest["items"], purchase: string): CheckoutRequest => ({
  items,
  accountId: "acc_1",
  email: "ada@example.com",
  successUrl: "https://reposite.example/billing/return?session_id={CHECKOUT_SESSION_ID}",
  cancelUrl: "https://reposite.example/billing/cancelled",
  metadata: { purchase_id: purchase },
});

const parse = (hook: FakeStripeWebhook | undefined): Promise<PaymentEvent> => {
  if (!hook) throw new Error("no webhook");
  return provider.parseWebhook(hook.payload, hook.signature);
};

async function paidSubscription(purchase: string) {
  const { id } = await provider.createCheckout(checkout([{ product: "embed", quantity: 1 }, { product: "disk", quantity: 2 }], purchase));
  const hooks = await fake.pay(id);
  const subscriptionId = fake.sessions.get(id)?.subscription as string;
  return { sessionId: id, subscriptionId, customerId: fake.sessions.get(id)?.customer as string, hooks };
}

describe("parseWebhook: what each Stripe event becomes", () => {
  it("checkout.session.completed → checkout_completed with the session: paid, customer, subscription, metadata; event id and time kept", async () => {
    const { sessionId, subscriptionId, customerId, hooks } = await paidSubscription("pur_sub");
    expect(hooks.map((hook) => hook.event.type)).toEqual(["checkout.session.completed", "customer.subscription.created"]);
    const event = await parse(hooks[0]);
    expect(event).toEqual({
      id: hooks[0]?.event.id,
      created: hooks[0]?.event.created,
      type: "checkout_completed",
      session: { id: sessionId, status: "complete", paid: true, customerId, subscriptionId, metadata: { purchase_id: "pur_sub" } },
    });
  });

  it("customer.subscription.created → subscription_changed, active, not ended, with the purchase from subscription_data.metadata and the quantity charged per product", async () => {
    const { subscriptionId, customerId, hooks } = await paidSubscription("pur_created");
    expect(await parse(hooks[1])).toEqual({
      id: hooks[1]?.event.id,
      created: hooks[1]?.event.created,
      type: "subscription_changed",
      subscriptionId,
      customerId,
      status: "active",
      ended: false,
      metadata: { purchase_id: "pur_created" },
      quantities: { embed: 1, disk: 2 },
    });
  });

  it("a quantity lowered in the billing portal (customer.subscription.updated) → the new quantity of that product; an item on a price the server does not name is left out", async () => {
    const { subscriptionId } = await paidSubscription("pur_lowered");
    const [lowered] = await fake.updateSubscription(subscriptionId, { price: fake.priceIds.disk, quantity: 1 });
    expect(await parse(lowered)).toMatchObject({ type: "subscription_changed", status: "active", ended: false, quantities: { embed: 1, disk: 1 } });
    const subscription = fake.subscriptions.get(subscriptionId) as StripeObject & { items: { data: { price: StripeObject }[] } };
    subscription.items.data[0]!.price = fake.addPrice({ id: "price_unnamed", unitAmount: 100 });
    const [unnamed] = await fake.updateSubscription(subscriptionId, { price: fake.priceIds.disk, quantity: 4 });
    expect((await parse(unnamed)) as { quantities?: unknown }).toMatchObject({ quantities: { disk: 4 } });
    expect(((await parse(unnamed)) as { quantities?: Record<string, number> }).quantities).not.toHaveProperty("embed");
  });

  it("checkout.session.async_payment_succeeded → checkout_completed, paid", async () => {
    const { id } = await provider.createCheckout(checkout([{ product: "domain", quantity: 1 }], "pur_async"));
    await fake.pay(id);
    const session = fake.sessions.get(id) as StripeObject;
    const hook = await fake.webhook("checkout.session.async_payment_succeeded", session);
    expect(await parse(hook)).toMatchObject({ type: "checkout_completed", session: { id, paid: true, subscriptionId: null, metadata: { purchase_id: "pur_async" } } });
  });

  it("a completed session whose delayed payment has not arrived is checkout_completed but not paid", async () => {
    const { id } = await provider.createCheckout(checkout([{ product: "domain", quantity: 1 }], "pur_delayed"));
    const session = { ...(fake.sessions.get(id) as StripeObject), status: "complete", payment_status: "unpaid" };
    expect(await parse(await fake.webhook("checkout.session.completed", session))).toMatchObject({ type: "checkout_completed", session: { status: "complete", paid: false } });
  });

  it("customer.subscription.updated → subscription_changed with the new status: past_due is not ended, canceled and incomplete_expired are", async () => {
    const { subscriptionId } = await paidSubscription("pur_updated");
    const [pastDue] = await fake.updateSubscription(subscriptionId, { status: "past_due" });
    expect(await parse(pastDue)).toMatchObject({ type: "subscription_changed", subscriptionId, status: "past_due", ended: false, metadata: { purchase_id: "pur_updated" } });
    const [quantity] = await fake.updateSubscription(subscriptionId, { status: "active", quantity: 3 });
    expect(await parse(quantity)).toMatchObject({ type: "subscription_changed", status: "active", ended: false });
    const [expired] = await fake.updateSubscription(subscriptionId, { status: "incomplete_expired" });
    expect(await parse(expired)).toMatchObject({ type: "subscription_changed", status: "incomplete_expired", ended: true });
    const [canceled] = await fake.updateSubscription(subscriptionId, { status: "canceled" });
    expect(await parse(canceled)).toMatchObject({ type: "subscription_changed", status: "canceled", ended: true });
  });

  it("customer.subscription.deleted → subscription_changed, ended", async () => {
    const { subscriptionId, customerId } = await paidSubscription("pur_deleted");
    const [deleted] = await fake.cancelSubscription(subscriptionId);
    expect(deleted?.event.type).toBe("customer.subscription.deleted");
    expect(await parse(deleted)).toMatchObject({ type: "subscription_changed", subscriptionId, customerId, status: "canceled", ended: true, metadata: { purchase_id: "pur_deleted" } });
    // Deleted is the end whatever status the object shows.
    const odd = await fake.webhook("customer.subscription.deleted", { ...(fake.subscriptions.get(subscriptionId) as StripeObject), status: "active" });
    expect(await parse(odd)).toMatchObject({ ended: true });
  });

  it("invoice.payment_failed → payment_failed with the subscription (from the invoice's parent) and the customer", async () => {
    const { subscriptionId, customerId } = await paidSubscription("pur_failed");
    const hooks = await fake.failPayment(subscriptionId);
    expect(hooks.map((hook) => hook.event.type)).toEqual(["invoice.payment_failed", "customer.subscription.updated"]);
    expect(await parse(hooks[0])).toEqual({ id: hooks[0]?.event.id, created: hooks[0]?.event.created, type: "payment_failed", subscriptionId, customerId });
    expect(await parse(hooks[1])).toMatchObject({ type: "subscription_changed", status: "past_due", ended: false });
    // An account on an older API version sends `invoice.subscription` instead.
    const old = await fake.webhook("invoice.payment_failed", { id: "in_old", object: "invoice", customer: customerId, subscription: subscriptionId, parent: null });
    expect(await parse(old)).toMatchObject({ type: "payment_failed", subscriptionId, customerId });
  });

  it("any other event → ignored, naming Stripe's type", async () => {
    const { sessionId } = await paidSubscription("pur_other");
    const [expiredSession] = [await fake.webhook("checkout.session.expired", fake.sessions.get(sessionId) as StripeObject)];
    expect(await parse(expiredSession)).toMatchObject({ type: "ignored", providerType: "checkout.session.expired" });
    const hook = await fake.webhook("customer.created", { id: "cus_x", object: "customer" });
    expect(await parse(hook)).toEqual({ id: hook.event.id, created: hook.event.created, type: "ignored", providerType: "customer.created" });
  });
});

describe("parseWebhook: the signature", () => {
  it("accepts the fake's signature as the stripe client computes it (generateTestHeaderString)", async () => {
    const hook = await fake.webhook("customer.created", { id: "cus_sig", object: "customer" });
    const timestamp = Number(/t=(\d+)/.exec(hook.signature)?.[1]);
    const stripe = new Stripe(fake.secretKey);
    expect(stripe.webhooks.generateTestHeaderString({ payload: hook.payload, secret: fake.webhookSecret, timestamp })).toBe(hook.signature);
  });

  it("refuses a missing header, another secret, a tampered body, garbage and a signature too old to be fresh", async () => {
    const hook = await fake.webhook("customer.created", { id: "cus_bad", object: "customer" });
    const refused = async (rawBody: string, signature: string | undefined) => {
      const error = await provider.parseWebhook(rawBody, signature).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(WebhookRejected);
      expect((error as Error).message).not.toContain(fake.webhookSecret);
      expect((error as Error).message).not.toContain(fake.secretKey);
      return error as WebhookRejected;
    };
    expect((await refused(hook.payload, undefined)).message).toMatch(/missing/i);
    await refused(hook.payload, "");
    await refused(hook.payload, "garbage");
    const otherSecret = new Stripe(fake.secretKey).webhooks.generateTestHeaderString({ payload: hook.payload, secret: "whsec_another" });
    await refused(hook.payload, otherSecret);
    await refused(hook.payload.replace("cus_bad", "cus_evil"), hook.signature);
    // Re-serialized JSON is not the bytes Stripe signed.
    await refused(JSON.stringify(JSON.parse(hook.payload)), hook.signature);
    await refused(hook.payload, fake.sign(hook.payload, Math.floor(Date.now() / 1000) - 3600));
    expect((await refused(hook.payload, fake.sign(hook.payload, Math.floor(Date.now() / 1000) - 3600))).reason).toBe("invalid_signature");
  });

  it("refuses a correct signature made more than the clock skew (default 5 minutes) ahead, as webhook_from_future; a minute ahead is taken", async () => {
    const hook = await fake.webhook("customer.created", { id: "cus_future", object: "customer" });
    const now = Math.floor(Date.now() / 1000);
    const ahead = await provider.parseWebhook(hook.payload, fake.sign(hook.payload, now + 3600)).then(
      () => undefined,
      (caught: unknown) => caught as WebhookRejected,
    );
    expect(ahead).toBeInstanceOf(WebhookRejected);
    expect(ahead).toMatchObject({ reason: "webhook_from_future", message: expect.stringMatching(/ahead of this server's clock \(at most 300 are allowed\)/) });
    await expect(provider.parseWebhook(hook.payload, fake.sign(hook.payload, now + 60))).resolves.toMatchObject({ type: "ignored" });
  });

  it("the same event delivered twice (a retry, signed anew) parses to the same id and time", async () => {
    const first = await fake.webhook("customer.subscription.updated", { id: "sub_again", object: "subscription", status: "active", customer: "cus_1", metadata: {} });
    const second = await fake.redeliver(first.event.id);
    const a = await parse(first);
    const b = await parse(second);
    expect(b.id).toBe(a.id);
    expect(b.created).toBe(a.created);
    expect(b).toEqual(a);
  });
});

describe("the fake's deliveries", () => {
  let receiver: Server;
  const received: { body: string; signature: string | undefined; contentType: string | undefined }[] = [];
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push({ body: Buffer.concat(chunks).toString("utf8"), signature: req.headers["stripe-signature"] as string | undefined, contentType: req.headers["content-type"] });
        res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    fake.webhookUrl = undefined;
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it("POSTs signed events to the webhook URL, which the provider verifies from the raw body received", async () => {
    fake.webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/billing/webhook`;
    const { id } = await provider.createCheckout(checkout([{ product: "memory", quantity: 2 }], "pur_delivered"));
    const hooks = await fake.pay(id);
    expect(hooks.map((hook) => hook.delivery?.status)).toEqual([200, 200]);
    expect(received).toHaveLength(2);
    expect(received[0]?.contentType).toMatch(/^application\/json/);
    const events = await Promise.all(received.map((delivery) => provider.parseWebhook(delivery.body, delivery.signature)));
    expect(events.map((event) => event.type)).toEqual(["checkout_completed", "subscription_changed"]);
    expect(events[0]).toMatchObject({ session: { id, paid: true, metadata: { purchase_id: "pur_delivered" } } });
  });
});
