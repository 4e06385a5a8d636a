import { RepositeError, type CheckoutRequest, type PaymentProvider } from "@reposite/core";
import { freePort, paymentProviderContract, startFakeStripe, type FakeStripe } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStripePayments, type StripePaymentsOptions } from "../src/index.js";

paymentProviderContract("Stripe, with the stripe client on the loopback Stripe", async () => {
  const fake = await startFakeStripe();
  const provider = createStripePayments({
    secretKey: fake.secretKey,
    webhookSecret: fake.webhookSecret,
    prices: fake.priceIds,
    client: { ...fake.clientOptions, maxNetworkRetries: 0 },
  });
  return {
    provider,
    pay: async (sessionId) => {
      await fake.pay(sessionId);
    },
    completedWebhook: async (sessionId) => {
      const hook = fake.webhooks.find((item) => item.event.type === "checkout.session.completed" && item.event.data.object.id === sessionId);
      if (!hook) throw new Error(`no completion event for ${sessionId}`);
      return { rawBody: hook.payload, signature: hook.signature };
    },
    teardown: () => fake.close(),
  };
});

let fake: FakeStripe;
beforeAll(async () => {
  fake = await startFakeStripe();
});
afterAll(async () => {
  await fake.close();
});

function providerOn(server: FakeStripe, options: Partial<StripePaymentsOptions> = {}): PaymentProvider {
  return createStripePayments({
    secretKey: server.secretKey,
    webhookSecret: server.webhookSecret,
    prices: server.priceIds,
    client: { ...server.clientOptions, maxNetworkRetries: 0 },
    ...options,
  });
}

const checkout = (items: CheckoutRequest["items"], extra: Partial<CheckoutRequest> = {}): CheckoutRequest => ({
  items,
  accountId: "acc_1",
  email: "ada@example.com",
  successUrl: "https://reposite.example/billing/return?session_id={CHECKOUT_SESSION_ID}",
  cancelUrl: "https://reposite.example/billing/cancelled",
  metadata: { purchase_id: "pur_1", product: "embed", site_id: "site_1" },
  ...extra,
});

async function failure(promise: Promise<unknown>): Promise<RepositeError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!RepositeError.isInstance(error)) throw new Error(`expected a RepositeError, got ${String(error)}`);
  return error;
}

const lastRequest = (server: FakeStripe, path: string) => [...server.requests].reverse().find((request) => request.path.startsWith(path));

describe("createStripePayments: the catalog", () => {
  it("reads each configured price from Stripe: amount per unit, currency, monthly or once", async () => {
    const provider = providerOn(fake);
    expect(provider).toMatchObject({ name: "stripe", enabled: true });
    expect(await provider.catalog()).toEqual({
      embed: { amount: 900, currency: "usd", interval: "month" },
      memory: { amount: 400, currency: "usd", interval: "month" },
      disk: { amount: 300, currency: "usd", interval: "month" },
      domain: { amount: 1500, currency: "usd", interval: "once" },
    });
    const reads = fake.requests.filter((request) => request.method === "GET" && request.path.startsWith("/v1/prices/"));
    expect(reads.map((request) => request.path).sort()).toEqual(Object.values(fake.priceIds).map((id) => `/v1/prices/${id}`).sort());
    expect(reads[0]?.headers.authorization).toBe(`Bearer ${fake.secretKey}`);
  });

  it("sells only what has a price: a missing one is absent, and a checkout for it is 503 not_on_sale", async () => {
    const provider = providerOn(fake, { prices: { embed: fake.priceIds.embed } });
    expect(Object.keys(await provider.catalog())).toEqual(["embed"]);
    const error = await failure(provider.createCheckout(checkout([{ product: "memory", quantity: 1 }])));
    expect(error).toMatchObject({ status: 503, code: "not_on_sale" });
  });

  it("is kept for a while: a second read within the TTL asks Stripe nothing; with TTL 0 it asks again", async () => {
    const cached = providerOn(fake, { prices: { embed: fake.priceIds.embed } });
    await cached.catalog();
    const before = fake.requests.length;
    await cached.catalog();
    expect(fake.requests.length).toBe(before);

    const fresh = providerOn(fake, { prices: { embed: fake.priceIds.embed }, catalogTtlMs: 0 });
    await fresh.catalog();
    await fresh.catalog();
    expect(fake.requests.length).toBe(before + 2);
  });

  it("names the misconfigured price: unknown, yearly for a monthly product, recurring for the domain, no fixed amount", async () => {
    fake.addPrice({ id: "price_yearly", unitAmount: 9000, interval: "year" });
    fake.addPrice({ id: "price_monthly_domain", unitAmount: 100, interval: "month" });
    fake.addPrice({ id: "price_no_amount", unitAmount: null, interval: "month" });
    const unknown = await failure(providerOn(fake, { prices: { memory: "price_nope" } }).catalog());
    expect(unknown).toMatchObject({ status: 502, code: "payments_rejected" });
    expect(unknown.message).toContain("price_nope");
    const yearly = await failure(providerOn(fake, { prices: { embed: "price_yearly" } }).catalog());
    expect(yearly).toMatchObject({ status: 502, code: "payments_rejected" });
    expect(yearly.message).toMatch(/STRIPE_PRICE_EMBED/);
    const domain = await failure(providerOn(fake, { prices: { domain: "price_monthly_domain" } }).catalog());
    expect(domain.message).toMatch(/STRIPE_PRICE_DOMAIN.*|paid once/);
    const noAmount = await failure(providerOn(fake, { prices: { disk: "price_no_amount" } }).catalog());
    expect(noAmount.message).toMatch(/no fixed amount/);
  });
});

describe("createStripePayments: checkout", () => {
  it("makes a subscription session for hosting and add-ons: prices with quantities, the account, the email, metadata on the session and on the subscription", async () => {
    const provider = providerOn(fake);
    const session = await provider.createCheckout(checkout([{ product: "embed", quantity: 1 }, { product: "memory", quantity: 4 }]));
    expect(session.id).toMatch(/^cs_test_/);
    expect(session.url).toBe(`${fake.url}/c/pay/${session.id}`);

    const sent = lastRequest(fake, "/v1/checkout/sessions");
    expect(sent?.method).toBe("POST");
    expect(sent?.body).toEqual({
      mode: "subscription",
      line_items: [
        { price: fake.priceIds.embed, quantity: "1" },
        { price: fake.priceIds.memory, quantity: "4" },
      ],
      client_reference_id: "acc_1",
      success_url: "https://reposite.example/billing/return?session_id={CHECKOUT_SESSION_ID}",
      cancel_url: "https://reposite.example/billing/cancelled",
      metadata: { purchase_id: "pur_1", product: "embed", site_id: "site_1" },
      customer_email: "ada@example.com",
      subscription_data: { metadata: { purchase_id: "pur_1", product: "embed", site_id: "site_1" } },
    });
  });

  it("makes a one-time payment for a domain, with a customer created for the portal", async () => {
    const provider = providerOn(fake);
    const session = await provider.createCheckout(checkout([{ product: "domain", quantity: 1 }], { metadata: { purchase_id: "pur_d" } }));
    const sent = lastRequest(fake, "/v1/checkout/sessions");
    expect(sent?.body).toMatchObject({ mode: "payment", customer_creation: "always", payment_intent_data: { metadata: { purchase_id: "pur_d" } } });
    expect(sent?.body.subscription_data).toBeUndefined();
    expect(fake.sessions.get(session.id)).toMatchObject({ mode: "payment", amount_total: 1500 });
  });

  it("uses the account's Stripe customer when there is one, instead of the email", async () => {
    const provider = providerOn(fake);
    const first = await provider.createCheckout(checkout([{ product: "embed", quantity: 1 }]));
    await fake.pay(first.id);
    const customerId = (await provider.getCheckout(first.id))?.customerId as string;
    await provider.createCheckout(checkout([{ product: "disk", quantity: 2 }], { customerId }));
    const sent = lastRequest(fake, "/v1/checkout/sessions");
    expect(sent?.body.customer).toBe(customerId);
    expect(sent?.body.customer_email).toBeUndefined();
  });

  it("refuses mixing a domain with a subscription (409 not_bundleable), an empty checkout and a bad quantity (400), asking Stripe nothing", async () => {
    const provider = providerOn(fake);
    const before = fake.requests.length;
    expect(await failure(provider.createCheckout(checkout([{ product: "disk", quantity: 1 }, { product: "domain", quantity: 1 }])))).toMatchObject({
      status: 409,
      code: "not_bundleable",
    });
    expect(await failure(provider.createCheckout(checkout([])))).toMatchObject({ status: 400, code: "invalid_items" });
    expect(await failure(provider.createCheckout(checkout([{ product: "memory", quantity: 0 }])))).toMatchObject({ status: 400, code: "invalid_items" });
    expect(fake.requests.length).toBe(before);
  });

  it("reads a session: open and unpaid, then complete and paid with the customer and subscription Stripe made", async () => {
    const provider = providerOn(fake);
    const { id } = await provider.createCheckout(checkout([{ product: "embed", quantity: 1 }]));
    expect(await provider.getCheckout(id)).toEqual({
      id,
      status: "open",
      paid: false,
      customerId: null,
      subscriptionId: null,
      metadata: { purchase_id: "pur_1", product: "embed", site_id: "site_1" },
    });
    await fake.pay(id);
    const paid = await provider.getCheckout(id);
    const stripeSession = fake.sessions.get(id);
    expect(paid).toEqual({
      id,
      status: "complete",
      paid: true,
      customerId: stripeSession?.customer,
      subscriptionId: stripeSession?.subscription,
      metadata: { purchase_id: "pur_1", product: "embed", site_id: "site_1" },
    });
    // The subscription carries Reposite's purchase, so its later events can be matched.
    expect(fake.subscriptions.get(paid?.subscriptionId as string)?.metadata).toEqual({ purchase_id: "pur_1", product: "embed", site_id: "site_1" });
  });

  it("reads an expired session as expired and unpaid, and an unknown or malformed id as null", async () => {
    const provider = providerOn(fake);
    const { id } = await provider.createCheckout(checkout([{ product: "embed", quantity: 1 }]));
    await fake.expire(id);
    expect(await provider.getCheckout(id)).toMatchObject({ status: "expired", paid: false });
    expect(await provider.getCheckout("cs_test_unknown")).toBeNull();
    const before = fake.requests.length;
    expect(await provider.getCheckout("cs_x/../../prices/price_test_embed")).toBeNull();
    expect(await provider.getCheckout("")).toBeNull();
    expect(fake.requests.length).toBe(before);
  });
});

describe("createStripePayments: the billing portal", () => {
  it("opens a portal session for the customer with the return address", async () => {
    const provider = providerOn(fake);
    const { id } = await provider.createCheckout(checkout([{ product: "embed", quantity: 1 }]));
    await fake.pay(id);
    const customerId = (await provider.getCheckout(id))?.customerId as string;
    const url = await provider.portalUrl(customerId, "https://reposite.example/account/billing");
    expect(url).toMatch(new RegExp(`^${fake.url}/p/session/bps_`));
    expect(lastRequest(fake, "/v1/billing_portal/sessions")?.body).toEqual({ customer: customerId, return_url: "https://reposite.example/account/billing" });
  });

  it("an unknown customer is Stripe's 400, answered 502 payments_rejected", async () => {
    const error = await failure(providerOn(fake).portalUrl("cus_nobody", "https://reposite.example/account/billing"));
    expect(error).toMatchObject({ status: 502, code: "payments_rejected" });
    expect(error.message).toContain("cus_nobody");
  });
});

describe("createStripePayments: Stripe's failures", () => {
  it("a declined card (402 card_error) is 402 payment_declined with Stripe's reason", async () => {
    fake.failNext({ status: 402, code: "card_declined", declineCode: "insufficient_funds", message: "Your card has insufficient funds." });
    const error = await failure(providerOn(fake).createCheckout(checkout([{ product: "embed", quantity: 1 }])));
    expect(error).toMatchObject({ status: 402, code: "payment_declined" });
    expect(error.message).toContain("Your card has insufficient funds.");
  });

  it("Stripe failing (500) is 502 payments_unavailable; with retries on, one failure is retried and the answer used", async () => {
    fake.failNext({ status: 500, path: "/v1/checkout/sessions" });
    const error = await failure(providerOn(fake).createCheckout(checkout([{ product: "embed", quantity: 1 }])));
    expect(error).toMatchObject({ status: 502, code: "payments_unavailable" });
    expect(error.message).toMatch(/\(500\)/);

    fake.failNext({ status: 500, path: "/v1/checkout/sessions" });
    const retrying = providerOn(fake, { client: { ...fake.clientOptions, maxNetworkRetries: 1 } });
    const session = await retrying.createCheckout(checkout([{ product: "embed", quantity: 1 }]));
    const attempts = fake.requests.filter((request) => request.path === "/v1/checkout/sessions").slice(-2);
    expect(attempts.map((request) => request.status)).toEqual([500, 200]);
    // The retry is the same request: one idempotency key, one session.
    expect(attempts[0]?.headers["idempotency-key"]).toBeTruthy();
    expect(attempts[1]?.headers["idempotency-key"]).toBe(attempts[0]?.headers["idempotency-key"]);
    expect(fake.sessions.has(session.id)).toBe(true);
  });

  it("rate limiting (429) is 503 payments_rate_limited", async () => {
    fake.failNext({ status: 429, message: "Too many requests hit the API too quickly." });
    const error = await failure(providerOn(fake, { catalogTtlMs: 0 }).catalog());
    expect(error).toMatchObject({ status: 503, code: "payments_rate_limited" });
  });

  it("a server that does not answer is 502 payments_unavailable", async () => {
    const port = await freePort();
    const provider = providerOn(fake, { client: { host: "127.0.0.1", port, protocol: "http", maxNetworkRetries: 0 } });
    const error = await failure(provider.createCheckout(checkout([{ product: "embed", quantity: 1 }])));
    expect(error).toMatchObject({ status: 502, code: "payments_unavailable" });
    expect(error.message).toMatch(/not reachable/);
  });

  it("a wrong secret key is 502 payments_rejected, and no error ever carries the key", async () => {
    const wrongKey = "sk_test_wrongwrongwrong1234567890";
    const provider = providerOn(fake, { secretKey: wrongKey, catalogTtlMs: 0 });
    const errors = [
      await failure(provider.catalog()),
      await failure(provider.createCheckout(checkout([{ product: "embed", quantity: 1 }]))),
      await failure(provider.getCheckout("cs_test_whatever")),
      await failure(provider.portalUrl("cus_x", "https://reposite.example/")),
    ];
    // The fake echoes the presented key whole in its 401 message; the provider must not pass it on.
    expect(fake.requests.at(-1)?.status).toBe(401);
    for (const error of errors) {
      expect(error).toMatchObject({ status: 502, code: "payments_rejected" });
      expect(error.message).not.toContain(wrongKey);
      expect(JSON.stringify(error.toJSON())).not.toContain(wrongKey);
      expect(error.message).toContain("Invalid API Key provided: ***");
    }
  });

  it("keeps the real key out of errors too, whatever Stripe says", async () => {
    fake.failNext({ status: 400, message: `Something about ${fake.secretKey} went wrong`, code: "parameter_invalid" });
    const error = await failure(providerOn(fake).createCheckout(checkout([{ product: "embed", quantity: 1 }])));
    expect(error).toMatchObject({ status: 502, code: "payments_rejected" });
    expect(error.message).not.toContain(fake.secretKey);
    expect(error.message).toContain("parameter_invalid");
  });
});
