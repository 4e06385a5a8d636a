import type { Product } from "@reposite/core";
import { createHmac, randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkoutPage, messagePage, portalPage } from "./fake-stripe-pages.js";
import { formList, formObject, formRecord, formString, parseStripeForm, type FormObject } from "./stripe-form.js";

/** A Stripe API object as the fake keeps and answers it: `id`, `object` and Stripe's own fields. */
export type StripeObject = { id: string; object: string } & Record<string, unknown>;

/** A price the fake sells. `interval` null is a one-time price; `unitAmount` null a price without a fixed amount. */
export interface FakeStripePriceInput {
  id: string;
  unitAmount: number | null;
  /** Default `usd`. */
  currency?: string;
  /** Default `month`. */
  interval?: "month" | "year" | "week" | "day" | null;
}

/** The prices a fake has unless told otherwise: one per Reposite product, as an operator would set them up. */
export const FAKE_STRIPE_PRICES: Record<Product, FakeStripePriceInput> = {
  embed: { id: "price_test_embed", unitAmount: 900, currency: "usd", interval: "month" },
  memory: { id: "price_test_memory", unitAmount: 400, currency: "usd", interval: "month" },
  disk: { id: "price_test_disk", unitAmount: 300, currency: "usd", interval: "month" },
  domain: { id: "price_test_domain", unitAmount: 1500, currency: "usd", interval: null },
};

/** An error the fake answers instead of the next API requests, in Stripe's `{error: {type, message, code}}` shape. */
export interface FakeStripeFailure {
  status: number;
  /** Default by status: 402 `card_error`, 429 `rate_limit_error`… 5xx `api_error`, other `invalid_request_error`. */
  type?: string;
  code?: string;
  declineCode?: string;
  message?: string;
  /** Only requests whose path contains this (`/v1/checkout/sessions`). Default: every API request. */
  path?: string;
  /** How many requests fail. Default 1. */
  times?: number;
}

export interface FakeStripeOptions {
  /** The one accepted secret key. Default a fresh `sk_test_…`. */
  secretKey?: string;
  /** The secret webhooks are signed with. Default a fresh `whsec_…`. */
  webhookSecret?: string;
  /** The prices the fake knows. Default `FAKE_STRIPE_PRICES`. */
  prices?: FakeStripePriceInput[];
  /** Where events are delivered (the server's webhook endpoint); may be set later on the fake. */
  webhookUrl?: string;
}

/** An API request as the fake received it, body and query decoded. */
export interface FakeStripeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  query: FormObject;
  body: FormObject;
  status: number;
}

/** An event as Stripe would send it: the exact payload, its `Stripe-Signature`, and the answer when delivered. */
export interface FakeStripeWebhook {
  event: StripeObject & { type: string; created: number; data: { object: StripeObject } };
  payload: string;
  signature: string;
  /** The webhook endpoint's answer; absent when the fake had no `webhookUrl` or was told not to deliver. */
  delivery?: { status: number; body: string };
}

export interface FakeStripe {
  /** The API's address, for example `http://127.0.0.1:41234`. */
  url: string;
  /** Options for the `stripe` client (`new Stripe(key, {...clientOptions})`) that point it here. */
  clientOptions: { host: string; port: number; protocol: "http" };
  secretKey: string;
  webhookSecret: string;
  /** Where events go; undefined keeps them undelivered (still built and signed). */
  webhookUrl: string | undefined;
  /** The ids of `FAKE_STRIPE_PRICES` by product (what a server's STRIPE_PRICE_* would name). */
  priceIds: Record<Product, string>;
  prices: Map<string, StripeObject>;
  sessions: Map<string, StripeObject>;
  customers: Map<string, StripeObject>;
  subscriptions: Map<string, StripeObject>;
  invoices: Map<string, StripeObject>;
  portalSessions: Map<string, StripeObject>;
  /** Every API request, in order (hosted pages not included). */
  requests: FakeStripeRequest[];
  /** Every event built, in order. */
  webhooks: FakeStripeWebhook[];
  addPrice(input: FakeStripePriceInput): StripeObject;
  /** Answers the next matching API requests with an error. */
  failNext(failure: FakeStripeFailure): void;
  /**
   * Completes a session as a person paying on the hosted page: a customer when it has none, for
   * `subscription` mode an active subscription carrying `subscription_data.metadata`; then
   * `checkout.session.completed` (and `customer.subscription.created`) are delivered.
   */
  pay(sessionId: string): Promise<FakeStripeWebhook[]>;
  /** The session can no longer be paid (`checkout.session.expired`). */
  expire(sessionId: string): Promise<FakeStripeWebhook[]>;
  /** Cancelled at once, as from the portal: `customer.subscription.deleted`. */
  cancelSubscription(subscriptionId: string): Promise<FakeStripeWebhook[]>;
  /**
   * Changes a subscription (status, the quantity of its item on `price` or else its first item,
   * metadata), as in the billing portal: `customer.subscription.updated`.
   */
  updateSubscription(subscriptionId: string, change: { status?: string; quantity?: number; price?: string; metadata?: Record<string, string> }): Promise<FakeStripeWebhook[]>;
  /** A renewal the card refused: an open invoice, `invoice.payment_failed`, then the subscription `past_due`. */
  failPayment(subscriptionId: string): Promise<FakeStripeWebhook[]>;
  /** Builds an event of `type` around `object`, signs it and delivers it (unless `deliver` is false). */
  webhook(type: string, object: StripeObject, options?: { deliver?: boolean; previousAttributes?: Record<string, unknown> }): Promise<FakeStripeWebhook>;
  /** Sends an event already built once more, signed anew, as Stripe retries a delivery. */
  redeliver(eventId: string): Promise<FakeStripeWebhook>;
  /** The `Stripe-Signature` header for a payload: `t=<ts>,v1=<HMAC-SHA256 of "<ts>.<payload>">`. */
  sign(payload: string, timestamp?: number): string;
  close(): Promise<void>;
}

const API_VERSION = "2026-10-28.endive";
const now = () => Math.floor(Date.now() / 1000);
const token = (bytes = 12) => randomBytes(bytes).toString("base64url").replace(/[-_]/g, "x");
const newId = (prefix: string) => `${prefix}_${token()}`;

class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; message: string; code?: string; param?: string; decline_code?: string },
  ) {
    super(body.message);
  }
}

const invalid = (message: string, param?: string, code?: string) =>
  new StripeApiError(400, { type: "invalid_request_error", message, ...(param ? { param } : {}), ...(code ? { code } : {}) });
const missing = (kind: string, id: string, param: string) =>
  new StripeApiError(404, { type: "invalid_request_error", code: "resource_missing", param, message: `No such ${kind}: '${id}'` });

function defaultType(status: number): string {
  if (status === 402) return "card_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

/**
 * A loopback server that answers like the Stripe API for what Reposite's provider uses: prices,
 * Checkout Sessions, billing portal sessions (and reading customers and subscriptions). Bodies are
 * form-encoded as the `stripe` client sends them, the bearer secret key is checked, objects and
 * errors have Stripe's shapes, and a POST repeated with the same `Idempotency-Key` gets the first
 * answer. It also serves the hosted checkout page at each session's `url` (Pay, Cancel) and the
 * portal at each portal session's `url`, and signs events exactly as Stripe signs webhooks.
 */
export async function startFakeStripe(options: FakeStripeOptions = {}): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? `sk_test_${token(18)}`;
  const webhookSecret = options.webhookSecret ?? `whsec_${token(24)}`;
  const prices = new Map<string, StripeObject>();
  const sessions = new Map<string, StripeObject>();
  const customers = new Map<string, StripeObject>();
  const subscriptions = new Map<string, StripeObject>();
  const invoices = new Map<string, StripeObject>();
  const portalSessions = new Map<string, StripeObject>();
  const requests: FakeStripeRequest[] = [];
  const webhooks: FakeStripeWebhook[] = [];
  const failures: (FakeStripeFailure & { left: number })[] = [];
  const idempotent = new Map<string, { status: number; body: unknown }>();
  let url = "";

  const addPrice = (input: FakeStripePriceInput): StripeObject => {
    const interval = input.interval === undefined ? "month" : input.interval;
    const price: StripeObject = {
      id: input.id,
      object: "price",
      active: true,
      billing_scheme: "per_unit",
      created: now(),
      currency: input.currency ?? "usd",
      livemode: false,
      lookup_key: null,
      metadata: {},
      nickname: null,
      product: newId("prod"),
      recurring: interval ? { interval, interval_count: 1, meter: null, trial_period_days: null, usage_type: "licensed" } : null,
      tax_behavior: "unspecified",
      tiers_mode: null,
      transform_quantity: null,
      type: interval ? "recurring" : "one_time",
      unit_amount: input.unitAmount,
      unit_amount_decimal: input.unitAmount === null ? null : String(input.unitAmount),
    };
    prices.set(price.id, price);
    return price;
  };
  for (const price of options.prices ?? Object.values(FAKE_STRIPE_PRICES)) addPrice(price);

  const createCustomer = (email: string | null): StripeObject => {
    const customer: StripeObject = { id: newId("cus"), object: "customer", created: now(), email, livemode: false, metadata: {}, name: null };
    customers.set(customer.id, customer);
    return customer;
  };

  // ---- the API -------------------------------------------------------------------------------

  // Kept beside each session, as Stripe keeps them for the subscription it will make; not part of the object.
  const hidden = new Map<string, { lines: { price: StripeObject; quantity: number }[]; subscriptionMetadata: Record<string, string> }>();

  const createSession = (body: FormObject): StripeObject => {
    const mode = formString(body, "mode");
    if (mode !== "payment" && mode !== "subscription" && mode !== "setup") {
      throw invalid(mode === undefined ? "Missing required param: mode." : `Invalid mode: must be one of payment, setup, or subscription`, "mode");
    }
    const items = formList(body, "line_items") ?? [];
    if (mode !== "setup" && items.length === 0) throw invalid("`line_items` is required in `payment` and `subscription` mode.", "line_items");
    const lines = items.map((item, index) => {
      const priceId = formString(item, "price");
      if (!priceId) throw invalid("You must specify either `price` or `price_data` for each line item.", `line_items[${index}][price]`);
      const price = prices.get(priceId);
      if (!price) throw new StripeApiError(400, { type: "invalid_request_error", code: "resource_missing", param: `line_items[${index}][price]`, message: `No such price: '${priceId}'` });
      const quantity = Number(formString(item, "quantity") ?? "1");
      if (!Number.isInteger(quantity) || quantity < 1) throw invalid("Invalid positive integer", `line_items[${index}][quantity]`);
      return { price, quantity };
    });
    const recurring = lines.filter((line) => line.price.recurring !== null);
    if (mode === "payment" && recurring.length > 0) {
      throw invalid("You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.", "line_items");
    }
    if (mode === "subscription" && recurring.length === 0) {
      throw invalid("You must provide at least one recurring price in `subscription` mode when using prices.", "line_items");
    }
    const currencies = new Set(lines.map((line) => line.price.currency));
    if (currencies.size > 1) throw invalid("All prices must be in the same currency.", "line_items");
    const customerId = formString(body, "customer");
    const customerEmail = formString(body, "customer_email");
    if (customerId && customerEmail) throw invalid("You may only specify one of these parameters: customer, customer_email.", "customer_email");
    if (customerId && !customers.has(customerId)) throw invalid(`No such customer: '${customerId}'`, "customer", "resource_missing");
    const subscriptionData = formObject(body, "subscription_data");
    if (subscriptionData && mode !== "subscription") throw invalid(`You can not pass \`subscription_data\` in \`${mode}\` mode.`, "subscription_data");
    const customerCreation = formString(body, "customer_creation");
    if (customerCreation && mode !== "payment") throw invalid("`customer_creation` can only be used in `payment` mode.", "customer_creation");
    if (customerCreation && customerId) throw invalid("You may only specify one of these parameters: customer, customer_creation.", "customer_creation");
    const id = `cs_test_${token(24)}`;
    const created = now();
    const total = lines.reduce((sum, line) => sum + (Number(line.price.unit_amount) || 0) * line.quantity, 0);
    const session: StripeObject = {
      id,
      object: "checkout.session",
      amount_subtotal: total,
      amount_total: total,
      cancel_url: formString(body, "cancel_url") ?? null,
      client_reference_id: formString(body, "client_reference_id") ?? null,
      created,
      currency: (lines[0]?.price.currency as string | undefined) ?? null,
      customer: customerId ?? null,
      customer_creation: customerId ? null : (customerCreation ?? (mode === "payment" ? "if_required" : "always")),
      customer_details: null,
      customer_email: customerEmail ?? null,
      expires_at: created + 24 * 3600,
      invoice: null,
      livemode: false,
      metadata: formRecord(body, "metadata") ?? {},
      mode,
      payment_intent: null,
      payment_status: "unpaid",
      status: "open",
      subscription: null,
      success_url: formString(body, "success_url") ?? null,
      ui_mode: "hosted",
      url: `${url}/c/pay/${id}`,
    };
    hidden.set(id, { lines, subscriptionMetadata: formRecord(subscriptionData, "metadata") ?? {} });
    sessions.set(id, session);
    return session;
  };

  const createPortalSession = (body: FormObject): StripeObject => {
    const customer = formString(body, "customer");
    if (!customer) throw invalid("Missing required param: customer.", "customer");
    if (!customers.has(customer)) throw invalid(`No such customer: '${customer}'`, "customer", "resource_missing");
    const id = `bps_${token(18)}`;
    const session: StripeObject = {
      id,
      object: "billing_portal.session",
      configuration: "bpc_test_default",
      created: now(),
      customer,
      flow: null,
      livemode: false,
      locale: null,
      on_behalf_of: null,
      return_url: formString(body, "return_url") ?? null,
      url: `${url}/p/session/${id}`,
    };
    portalSessions.set(id, session);
    return session;
  };

  const find = (map: Map<string, StripeObject>, kind: string, param: string, id: string) => {
    const found = map.get(id);
    if (!found) throw missing(kind, id, param);
    return found;
  };

  const answerApi = (method: string, path: string, body: FormObject): unknown => {
    const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
    const [, resource, second, third] = parts;
    if (method === "GET" && resource === "prices" && second && !third) return find(prices, "price", "price", second);
    if (resource === "checkout" && second === "sessions") {
      const id = parts[3];
      if (method === "POST" && !id) return createSession(body);
      if (method === "GET" && id && parts.length === 4) return find(sessions, "checkout.session", "session", id);
      if (method === "POST" && id && parts[4] === "expire") {
        const session = find(sessions, "checkout.session", "session", id);
        if (session.status !== "open") throw invalid(`Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${String(session.status)}".`);
        session.status = "expired";
        return session;
      }
    }
    if (method === "POST" && resource === "billing_portal" && second === "sessions" && parts.length === 3) return createPortalSession(body);
    if (method === "GET" && resource === "customers" && second && !third) return find(customers, "customer", "id", second);
    if (method === "GET" && resource === "subscriptions" && second && !third) return find(subscriptions, "subscription", "id", second);
    throw new StripeApiError(404, {
      type: "invalid_request_error",
      message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    });
  };

  const handleApi = async (req: IncomingMessage, res: ServerResponse, target: URL, raw: string) => {
    const method = req.method ?? "GET";
    const record: FakeStripeRequest = {
      method,
      path: target.pathname,
      headers: req.headers,
      query: parseStripeForm(target.search.slice(1)),
      body: method === "GET" ? {} : parseStripeForm(raw),
      status: 200,
    };
    requests.push(record);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      sendJson(res, status, body, headers);
    };

    const presented = /^Bearer (.*)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (presented === undefined) {
      return send(401, { error: { type: "invalid_request_error", message: "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY')." } });
    }
    if (presented !== secretKey) {
      // Stripe masks most of the key; the fake echoes it whole, so tests prove a client keeps it out of its errors.
      return send(401, { error: { type: "invalid_request_error", message: `Invalid API Key provided: ${presented}` } });
    }

    const failure = failures.find((f) => f.left > 0 && (f.path === undefined || target.pathname.includes(f.path)));
    if (failure) {
      failure.left -= 1;
      const type = failure.type ?? defaultType(failure.status);
      const error = {
        type,
        message: failure.message ?? (failure.status >= 500 ? "An unknown error occurred" : "Your card was declined."),
        ...(failure.code ? { code: failure.code } : {}),
        ...(failure.declineCode ? { decline_code: failure.declineCode } : {}),
      };
      return send(failure.status, { error }, failure.status === 402 ? { "stripe-should-retry": "false" } : {});
    }

    const key = method === "POST" ? req.headers["idempotency-key"] : undefined;
    const replay = typeof key === "string" ? idempotent.get(key) : undefined;
    if (replay) return send(replay.status, replay.body, { "idempotent-replayed": "true" });
    let status = 200;
    let answer: unknown;
    try {
      answer = answerApi(method, target.pathname, record.body);
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error;
      status = error.status;
      answer = { error: { ...error.body, doc_url: "https://docs.stripe.com/error-codes" } };
    }
    if (typeof key === "string" && status < 500) idempotent.set(key, { status, body: answer });
    send(status, answer);
  };

  // ---- what people do on Stripe's pages, and the events that follow ---------------------------

  const subscriptionOf = (id: string) => {
    const subscription = subscriptions.get(id);
    if (!subscription) throw new Error(`[fake-stripe] no subscription ${id}`);
    return subscription;
  };

  const sign = (payload: string, timestamp = now()) =>
    `t=${timestamp},v1=${createHmac("sha256", webhookSecret).update(`${timestamp}.${payload}`, "utf8").digest("hex")}`;

  const deliver = async (built: FakeStripeWebhook): Promise<FakeStripeWebhook> => {
    const target = fake.webhookUrl;
    if (!target) return built;
    const response = await fetch(target, {
      method: "POST",
      headers: {
        "content-type": "application/json; charset=utf-8",
        "stripe-signature": built.signature,
        "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
      },
      body: built.payload,
    });
    built.delivery = { status: response.status, body: await response.text() };
    return built;
  };

  const webhook: FakeStripe["webhook"] = async (type, object, webhookOptions = {}) => {
    const event = {
      id: newId("evt"),
      object: "event",
      api_version: API_VERSION,
      created: now(),
      data: { object: structuredClone(object), ...(webhookOptions.previousAttributes ? { previous_attributes: webhookOptions.previousAttributes } : {}) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    // Pretty-printed as Stripe sends it: the signature is over these exact bytes, not over re-serialized JSON.
    const payload = JSON.stringify(event, null, 2);
    const built: FakeStripeWebhook = { event, payload, signature: sign(payload) };
    webhooks.push(built);
    return webhookOptions.deliver === false ? built : deliver(built);
  };

  const redeliver = async (eventId: string) => {
    const first = webhooks.find((item) => item.event.id === eventId);
    if (!first) throw new Error(`[fake-stripe] no event ${eventId}`);
    return deliver({ event: first.event, payload: first.payload, signature: sign(first.payload) });
  };

  const pay = async (sessionId: string) => {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`[fake-stripe] no checkout session ${sessionId}`);
    if (session.status !== "open") throw new Error(`[fake-stripe] checkout session ${sessionId} is ${String(session.status)}, not open`);
    const extra = hidden.get(sessionId);
    let customerId = session.customer as string | null;
    if (!customerId && (session.mode === "subscription" || session.customer_creation === "always")) {
      customerId = createCustomer((session.customer_email as string | null) ?? "person@example.com").id;
    }
    const customer = customerId ? customers.get(customerId) : undefined;
    session.customer = customerId;
    session.customer_details = { email: (customer?.email as string | null | undefined) ?? (session.customer_email as string | null) ?? "person@example.com", name: null };
    session.status = "complete";
    session.payment_status = session.amount_total === 0 ? "no_payment_required" : "paid";
    let subscription: StripeObject | undefined;
    if (session.mode === "subscription" && customerId) {
      const created = now();
      const id = newId("sub");
      subscription = {
        id,
        object: "subscription",
        cancel_at_period_end: false,
        canceled_at: null,
        collection_method: "charge_automatically",
        created,
        currency: session.currency,
        customer: customerId,
        ended_at: null,
        items: {
          object: "list",
          data: (extra?.lines ?? []).map((line) => ({
            id: newId("si"),
            object: "subscription_item",
            created,
            current_period_start: created,
            current_period_end: created + 30 * 24 * 3600,
            metadata: {},
            price: line.price,
            quantity: line.quantity,
            subscription: id,
          })),
          has_more: false,
          url: `/v1/subscription_items?subscription=${id}`,
        },
        latest_invoice: newId("in"),
        livemode: false,
        metadata: extra?.subscriptionMetadata ?? {},
        start_date: created,
        status: "active",
      };
      subscriptions.set(id, subscription);
      session.subscription = id;
      session.invoice = subscription.latest_invoice;
    } else {
      session.payment_intent = newId("pi");
    }
    const sent = [await webhook("checkout.session.completed", session)];
    if (subscription) sent.push(await webhook("customer.subscription.created", subscription));
    return sent;
  };

  const expire = async (sessionId: string) => {
    const session = sessions.get(sessionId);
    if (!session || session.status !== "open") throw new Error(`[fake-stripe] no open checkout session ${sessionId}`);
    session.status = "expired";
    return [await webhook("checkout.session.expired", session)];
  };

  const cancelSubscription = async (subscriptionId: string) => {
    const subscription = subscriptionOf(subscriptionId);
    const previous = { status: subscription.status };
    subscription.status = "canceled";
    subscription.canceled_at = now();
    subscription.ended_at = now();
    return [await webhook("customer.subscription.deleted", subscription, { previousAttributes: previous })];
  };

  const updateSubscription: FakeStripe["updateSubscription"] = async (subscriptionId, change) => {
    const subscription = subscriptionOf(subscriptionId);
    const previous: Record<string, unknown> = {};
    if (change.status !== undefined) {
      previous.status = subscription.status;
      subscription.status = change.status;
      if (change.status === "canceled" || change.status === "incomplete_expired") subscription.ended_at = now();
    }
    if (change.metadata !== undefined) {
      previous.metadata = subscription.metadata;
      subscription.metadata = change.metadata;
    }
    if (change.quantity !== undefined) {
      const items = (subscription.items as { data: { price: StripeObject; quantity: number }[] }).data;
      const item = change.price === undefined ? items[0] : items.find((each) => each.price.id === change.price);
      if (change.price !== undefined && !item) throw new Error(`[fake-stripe] subscription ${subscriptionId} has no item on ${change.price}`);
      if (item) {
        previous.items = structuredClone(subscription.items);
        item.quantity = change.quantity;
      }
    }
    return [await webhook("customer.subscription.updated", subscription, { previousAttributes: previous })];
  };

  const failPayment = async (subscriptionId: string) => {
    const subscription = subscriptionOf(subscriptionId);
    const items = (subscription.items as { data: { price: StripeObject; quantity: number }[] }).data;
    const invoice: StripeObject = {
      id: newId("in"),
      object: "invoice",
      amount_due: items.reduce((sum, item) => sum + (Number(item.price.unit_amount) || 0) * item.quantity, 0),
      amount_paid: 0,
      attempt_count: 1,
      attempted: true,
      billing_reason: "subscription_cycle",
      collection_method: "charge_automatically",
      created: now(),
      currency: subscription.currency,
      customer: subscription.customer,
      livemode: false,
      next_payment_attempt: now() + 3 * 24 * 3600,
      parent: { type: "subscription_details", quote_details: null, subscription_details: { metadata: subscription.metadata, subscription: subscription.id } },
      status: "open",
    };
    invoices.set(invoice.id, invoice);
    subscription.latest_invoice = invoice.id;
    const sent = [await webhook("invoice.payment_failed", invoice)];
    sent.push(...(await updateSubscription(subscriptionId, { status: "past_due" })));
    return sent;
  };

  // ---- the hosted pages ------------------------------------------------------------------------

  /** Answers the hosted checkout and portal pages; false when the path is neither. */
  const handlePage = async (req: IncomingMessage, res: ServerResponse, target: URL): Promise<boolean> => {
    const checkout = /^\/c\/pay\/([^/]+)$/.exec(target.pathname);
    const portal = /^\/p\/session\/([^/]+)(?:\/cancel\/([^/]+))?$/.exec(target.pathname);
    if (checkout) {
      await checkoutAction(req, res, decodeURIComponent(checkout[1] as string));
    } else if (portal) {
      await portalAction(req, res, decodeURIComponent(portal[1] as string), portal[2] ? decodeURIComponent(portal[2]) : undefined);
    } else {
      return false;
    }
    return true;
  };

  // Pay completes the session and goes to success_url with the session id put in, as Stripe does.
  const checkoutAction = async (req: IncomingMessage, res: ServerResponse, sessionId: string) => {
    const session = sessions.get(sessionId);
    if (!session) return sendHtml(res, 404, messagePage("Something went wrong", "This checkout session does not exist."));
    if (req.method !== "POST") return sendHtml(res, 200, checkoutPage(session, hidden.get(session.id)?.lines ?? []));
    if (session.status !== "open") return sendHtml(res, 409, messagePage("Not payable", `This checkout session is ${String(session.status)}.`));
    await pay(session.id);
    const success = session.success_url as string | null;
    if (!success) return sendHtml(res, 200, messagePage("Thanks for your payment", "You can close this page."));
    res.writeHead(303, { location: success.split("{CHECKOUT_SESSION_ID}").join(session.id) }).end();
  };

  // The portal lists the customer's subscriptions; cancelling one ends it at once and shows the portal again.
  const portalAction = async (req: IncomingMessage, res: ServerResponse, portalId: string, cancel: string | undefined) => {
    const session = portalSessions.get(portalId);
    if (!session) return sendHtml(res, 404, messagePage("Something went wrong", "This portal session does not exist."));
    if (cancel !== undefined && req.method === "POST") {
      const subscription = subscriptions.get(cancel);
      if (!subscription || subscription.customer !== session.customer) return sendHtml(res, 404, messagePage("Not found", "No such subscription."));
      if (subscription.status !== "canceled") await cancelSubscription(cancel);
      res.writeHead(303, { location: session.url as string }).end();
      return;
    }
    const own = [...subscriptions.values()].filter((subscription) => subscription.customer === session.customer);
    sendHtml(res, 200, portalPage(session, customers.get(session.customer as string), own));
  };

  const server = createServer((req, res) => {
    const run = async () => {
      const raw = await readBody(req);
      const target = new URL(req.url ?? "/", "http://fake");
      if (target.pathname.startsWith("/v1/")) return handleApi(req, res, target, raw);
      if (await handlePage(req, res, target)) return;
      sendHtml(res, 404, messagePage("Not found", "Nothing here."));
    };
    run().catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { type: "api_error", message: `[fake-stripe] ${String(error)}` } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}`;

  const fake: FakeStripe = {
    url,
    clientOptions: { host: "127.0.0.1", port, protocol: "http" },
    secretKey,
    webhookSecret,
    webhookUrl: options.webhookUrl,
    priceIds: Object.fromEntries(Object.entries(FAKE_STRIPE_PRICES).map(([product, price]) => [product, price.id])) as Record<Product, string>,
    prices,
    sessions,
    customers,
    subscriptions,
    invoices,
    portalSessions,
    requests,
    webhooks,
    addPrice,
    failNext: (failure) => {
      failures.push({ ...failure, left: failure.times ?? 1 });
    },
    pay,
    expire,
    cancelSubscription,
    updateSubscription,
    failPayment,
    webhook,
    redeliver,
    sign,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return fake;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": "application/json",
    "request-id": `req_${token(10)}`,
    "stripe-version": API_VERSION,
    ...headers,
  });
  res.end(JSON.stringify(body, null, 2));
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
  res.end(html);
}
