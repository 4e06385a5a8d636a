import { parseStripeForm, startFakeStripe, type FakeStripe } from "@reposite/test-support";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The loopback Stripe itself, spoken to with the real `stripe` client and plain HTTP: what the
// provider's tests and the server's billing tests rely on.

let fake: FakeStripe;
let stripe: Stripe;
beforeAll(async () => {
  fake = await startFakeStripe();
  stripe = new Stripe(fake.secretKey, { ...fake.clientOptions, maxNetworkRetries: 0 });
});
afterAll(async () => {
  await fake.close();
});

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error as Stripe.errors.StripeError,
  );

const session = (params: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
  stripe.checkout.sessions.create({
    mode: "subscription",
    line_items: [{ price: fake.priceIds.embed, quantity: 1 }],
    success_url: "http://127.0.0.1:9/return?session_id={CHECKOUT_SESSION_ID}",
    cancel_url: "http://127.0.0.1:9/cancelled",
    ...params,
  });

describe("parseStripeForm", () => {
  it("nests brackets into objects and numbered ones into lists, encoded or not", () => {
    expect(
      parseStripeForm(
        "mode=subscription&line_items[0][price]=price_a&line_items[0][quantity]=2&line_items%5B1%5D%5Bprice%5D=price_b&metadata[purchase_id]=pur%201&subscription_data[metadata][k]=v&success_url=http%3A%2F%2Fx%2F%3Fid%3D%7BCHECKOUT_SESSION_ID%7D",
      ),
    ).toEqual({
      mode: "subscription",
      line_items: [{ price: "price_a", quantity: "2" }, { price: "price_b" }],
      metadata: { purchase_id: "pur 1" },
      subscription_data: { metadata: { k: "v" } },
      success_url: "http://x/?id={CHECKOUT_SESSION_ID}",
    });
  });
});

describe("the fake Stripe API, to the stripe client", () => {
  it("answers objects shaped like Stripe's: a price, a session with its hosted url, a customer and subscription after paying, a portal session", async () => {
    const price = await stripe.prices.retrieve(fake.priceIds.memory);
    expect(price).toMatchObject({ object: "price", id: fake.priceIds.memory, unit_amount: 400, currency: "usd", type: "recurring", recurring: { interval: "month", interval_count: 1 } });
    expect((await stripe.prices.retrieve(fake.priceIds.domain)).recurring).toBeNull();

    const created = await session({ customer_email: "ada@example.com", metadata: { a: "1" }, subscription_data: { metadata: { a: "1" } } });
    expect(created).toMatchObject({ object: "checkout.session", status: "open", payment_status: "unpaid", mode: "subscription", customer: null, customer_email: "ada@example.com", amount_total: 900 });
    expect(created.id).toMatch(/^cs_test_/);
    expect(created.url).toBe(`${fake.url}/c/pay/${created.id}`);

    await fake.pay(created.id);
    const paid = await stripe.checkout.sessions.retrieve(created.id);
    expect(paid).toMatchObject({ status: "complete", payment_status: "paid" });
    expect(paid.customer).toMatch(/^cus_/);
    expect(paid.subscription).toMatch(/^sub_/);
    const subscription = await stripe.subscriptions.retrieve(paid.subscription as string);
    expect(subscription).toMatchObject({ object: "subscription", status: "active", customer: paid.customer, metadata: { a: "1" } });
    expect(subscription.items.data[0]).toMatchObject({ price: { id: fake.priceIds.embed }, quantity: 1 });
    expect(await stripe.customers.retrieve(paid.customer as string)).toMatchObject({ object: "customer", email: "ada@example.com" });

    const portal = await stripe.billingPortal.sessions.create({ customer: paid.customer as string, return_url: "http://127.0.0.1:9/account" });
    expect(portal).toMatchObject({ object: "billing_portal.session", customer: paid.customer, return_url: "http://127.0.0.1:9/account" });
    expect(portal.id).toMatch(/^bps_/);
  });

  it("refuses as Stripe does, with its error classes: unknown objects (404), bad parameters (400), a wrong key (401)", async () => {
    const missing = await rejection(stripe.prices.retrieve("price_nope"));
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 404, code: "resource_missing", message: "No such price: 'price_nope'" });
    expect(await rejection(stripe.checkout.sessions.retrieve("cs_test_nope"))).toMatchObject({ statusCode: 404, code: "resource_missing" });

    const recurringInPayment = await rejection(session({ mode: "payment" }));
    expect(recurringInPayment).toMatchObject({ statusCode: 400, type: "StripeInvalidRequestError" });
    expect(recurringInPayment.message).toMatch(/recurring price/);
    expect(await rejection(session({ line_items: [{ price: fake.priceIds.domain, quantity: 1 }] }))).toMatchObject({ statusCode: 400 });
    expect(await rejection(session({ line_items: [{ price: "price_nope", quantity: 1 }] }))).toMatchObject({ statusCode: 400, code: "resource_missing", param: "line_items[0][price]" });
    expect(await rejection(session({ customer: "cus_nope" }))).toMatchObject({ statusCode: 400, code: "resource_missing" });
    expect(await rejection(session({ mode: "payment", line_items: [{ price: fake.priceIds.domain, quantity: 1 }], subscription_data: { metadata: { a: "1" } } }))).toMatchObject({ statusCode: 400, param: "subscription_data" });

    const wrongKey = new Stripe("sk_test_not_it", { ...fake.clientOptions, maxNetworkRetries: 0 });
    expect(await rejection(wrongKey.prices.retrieve(fake.priceIds.embed))).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
  });

  it("answers a POST repeated with the same Idempotency-Key with the first answer, not a second session", async () => {
    const first = await session({}).then((created) => created.id);
    const keyed = await stripe.checkout.sessions.create(
      { mode: "subscription", line_items: [{ price: fake.priceIds.embed, quantity: 1 }], success_url: "http://127.0.0.1:9/" },
      { idempotencyKey: "same-key-1" },
    );
    const again = await stripe.checkout.sessions.create(
      { mode: "subscription", line_items: [{ price: fake.priceIds.embed, quantity: 1 }], success_url: "http://127.0.0.1:9/" },
      { idempotencyKey: "same-key-1" },
    );
    expect(again.id).toBe(keyed.id);
    expect(keyed.id).not.toBe(first);
  });

  it("answers injected failures in Stripe's shape: a 402 card error (not to be retried) and a 500", async () => {
    fake.failNext({ status: 402, code: "card_declined", declineCode: "generic_decline" });
    const declined = await rejection(stripe.prices.retrieve(fake.priceIds.embed));
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(declined).toMatchObject({ statusCode: 402, code: "card_declined", decline_code: "generic_decline" });
    expect(fake.requests.at(-1)?.status).toBe(402);

    fake.failNext({ status: 500 });
    expect(await rejection(stripe.prices.retrieve(fake.priceIds.embed))).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect((await stripe.prices.retrieve(fake.priceIds.embed)).id).toBe(fake.priceIds.embed);
  });
});

describe("the fake's hosted pages", () => {
  it("the checkout page shows what is bought; Pay completes the session and goes to success_url with the session id put in", async () => {
    const created = await session({ line_items: [{ price: fake.priceIds.disk, quantity: 4 }] });
    const page = await fetch(created.url as string);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<button id="pay"');
    expect(html).toContain('href="http://127.0.0.1:9/cancelled"');
    expect(html).toContain(`data-price="${fake.priceIds.disk}"`);

    const pay = await fetch(created.url as string, { method: "POST", redirect: "manual" });
    expect(pay.status).toBe(303);
    expect(pay.headers.get("location")).toBe(`http://127.0.0.1:9/return?session_id=${created.id}`);
    expect(await stripe.checkout.sessions.retrieve(created.id)).toMatchObject({ status: "complete", payment_status: "paid" });

    const again = await fetch(created.url as string, { method: "POST", redirect: "manual" });
    expect(again.status).toBe(409);
  });

  it("the portal lists the customer's subscriptions; Cancel ends one (customer.subscription.deleted) and shows the portal again", async () => {
    const created = await session();
    await fake.pay(created.id);
    const paid = await stripe.checkout.sessions.retrieve(created.id);
    const portal = await stripe.billingPortal.sessions.create({ customer: paid.customer as string, return_url: "http://127.0.0.1:9/account" });
    const html = await (await fetch(portal.url)).text();
    expect(html).toContain(`data-subscription="${String(paid.subscription)}"`);
    expect(html).toContain('href="http://127.0.0.1:9/account"');

    const cancel = await fetch(`${portal.url}/cancel/${String(paid.subscription)}`, { method: "POST", redirect: "manual" });
    expect(cancel.status).toBe(303);
    expect(cancel.headers.get("location")).toBe(portal.url);
    expect((await stripe.subscriptions.retrieve(paid.subscription as string)).status).toBe("canceled");
    expect(fake.webhooks.at(-1)?.event).toMatchObject({ type: "customer.subscription.deleted", data: { object: { id: paid.subscription, status: "canceled" } } });
  });
});
