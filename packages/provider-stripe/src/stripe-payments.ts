import {
  PRODUCTS,
  RepositeError,
  WebhookRejected,
  type Catalog,
  type CheckoutRequest,
  type CheckoutState,
  type PaymentEvent,
  type PaymentProvider,
  type Product,
  type ProductPrice,
} from "@reposite/core";
import Stripe from "stripe";
import { checkoutState, toPaymentEvent } from "./stripe-events.js";
import { isMissing, redact, toRepositeError } from "./stripe-error.js";

/** Products sold as a monthly subscription; the rest (`domain`) is paid once. */
const SUBSCRIPTION_PRODUCTS: ReadonlySet<Product> = new Set(["embed", "memory", "disk"]);

/** What the `stripe` client may be told besides the key: where the API is, retries, a timeout, an HTTP client. */
export type StripeClientOptions = Pick<Stripe.StripeConfig, "host" | "port" | "protocol" | "maxNetworkRetries" | "timeout" | "httpClient" | "httpAgent">;

export interface StripePaymentsOptions {
  /** The operator's secret (`sk_…`) or restricted (`rk_…`) key: STRIPE_SECRET_KEY. Never logged, never in an error. */
  secretKey: string;
  /** The signing secret of the webhook endpoint (`whsec_…`): STRIPE_WEBHOOK_SECRET. */
  webhookSecret: string;
  /** The Stripe price of each product sold (`price_…`); a product without one is not sold on this server. */
  prices: Partial<Record<Product, string>>;
  /** For the `stripe` client: `host`/`port`/`protocol` point it at another server (a loopback fake in tests). */
  client?: StripeClientOptions;
  /** How long the catalog read from Stripe is reused. Default 5 minutes; 0 reads it every time. */
  catalogTtlMs?: number;
  /** How old a signed webhook may be, in seconds, before it is refused as a replay. Default Stripe's 300. */
  webhookToleranceSeconds?: number;
  /**
   * How far ahead of this server's clock a webhook's signed time may be, in seconds (clocks drift);
   * later ones are refused (`webhook_from_future`). Default 300. Stripe's own check only bounds the age.
   */
  webhookClockSkewSeconds?: number;
}

/**
 * Reposite's PaymentProvider on Stripe, with the official `stripe` client: the catalog from the
 * configured prices, Checkout Sessions (a subscription for hosting and memory/disk, a one-time
 * payment for a domain), reading a session, webhooks verified with the client's signature check,
 * and the customer billing portal. Stripe's failures become RepositeErrors (see `toRepositeError`).
 */
export function createStripePayments(options: StripePaymentsOptions): PaymentProvider {
  const stripe = new Stripe(options.secretKey, { ...options.client, telemetry: false, appInfo: { name: "Reposite" } });
  const secrets = [options.secretKey, options.webhookSecret];
  const ttl = options.catalogTtlMs ?? 5 * 60_000;
  const skew = options.webhookClockSkewSeconds ?? 300;
  const productOfPrice = new Map(Object.entries(options.prices).map(([product, priceId]) => [priceId, product as Product]));
  let cached: { catalog: Catalog; until: number } | undefined;

  const call = async <T>(doing: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw toRepositeError(error, doing, { secrets });
    }
  };

  const readPrice = async (product: Product, priceId: string): Promise<ProductPrice> => {
    const price = await call(`reading the ${product} price ${priceId}`, () => stripe.prices.retrieve(priceId));
    const wrong = (why: string) =>
      new RepositeError(502, `[payments] [stripe] the ${product} price ${priceId} ${why}; check STRIPE_PRICE_${product.toUpperCase()}.`, "payments_rejected");
    if (price.unit_amount === null) throw wrong("has no fixed amount (Reposite sells per-unit prices)");
    const interval = price.recurring ? price.recurring.interval : null;
    if (SUBSCRIPTION_PRODUCTS.has(product)) {
      if (interval !== "month" || price.recurring?.interval_count !== 1) throw wrong("is not billed every month (the product is a monthly subscription)");
    } else if (interval !== null) {
      throw wrong("is recurring (the product is paid once)");
    }
    return { amount: price.unit_amount, currency: price.currency, interval: interval === "month" ? "month" : "once" };
  };

  const catalog = async (): Promise<Catalog> => {
    if (cached && Date.now() < cached.until) return cached.catalog;
    const entries = await Promise.all(
      PRODUCTS.flatMap((product) => {
        const priceId = options.prices[product];
        return priceId ? [readPrice(product, priceId).then((price) => [product, price] as const)] : [];
      }),
    );
    const read: Catalog = Object.fromEntries(entries);
    cached = { catalog: read, until: Date.now() + ttl };
    return read;
  };

  const createCheckout = async (request: CheckoutRequest) => {
    if (request.items.length === 0) throw new RepositeError(400, "A checkout needs at least one product.", "invalid_items");
    for (const item of request.items) {
      if (!options.prices[item.product]) throw new RepositeError(503, `${item.product} is not sold on this server.`, "not_on_sale");
      if (!Number.isInteger(item.quantity) || item.quantity < 1) throw new RepositeError(400, `The quantity of ${item.product} must be a whole number of at least 1.`, "invalid_items");
    }
    const subscription = request.items.every((item) => SUBSCRIPTION_PRODUCTS.has(item.product));
    if (!subscription && request.items.length > 1) {
      // A Stripe subscription checkout could add a one-time price to its first invoice, but then the
      // domain would be paid inside a subscription's life: Reposite keeps one payment per purchase kind.
      throw new RepositeError(409, "A domain is paid once and cannot be bought together with a subscription; buy it on its own.", "not_bundleable");
    }
    const metadata = { ...request.metadata };
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: subscription ? "subscription" : "payment",
      line_items: request.items.map((item) => ({ price: options.prices[item.product] as string, quantity: item.quantity })),
      client_reference_id: request.accountId,
      success_url: request.successUrl,
      cancel_url: request.cancelUrl,
      metadata,
      ...(request.customerId ? { customer: request.customerId } : { customer_email: request.email }),
      // The events about the subscription (renewals, cancelling) then carry Reposite's purchase too.
      ...(subscription ? { subscription_data: { metadata } } : { payment_intent_data: { metadata } }),
      // A one-time payment makes no customer by default; one is needed for the billing portal.
      ...(!subscription && !request.customerId ? { customer_creation: "always" as const } : {}),
    };
    const session = await call("creating a checkout session", () => stripe.checkout.sessions.create(params));
    if (!session.url) throw new RepositeError(502, "[payments] [stripe] creating a checkout session: Stripe gave no payment page address.", "payments_unavailable");
    return { id: session.id, url: session.url };
  };

  const getCheckout = async (id: string): Promise<CheckoutState | null> => {
    // Stripe's session ids; anything else (a person's typo, a path) is not asked for.
    if (!/^cs_[A-Za-z0-9_]{1,250}$/.test(id)) return null;
    try {
      return checkoutState(await stripe.checkout.sessions.retrieve(id));
    } catch (error) {
      if (isMissing(error)) return null;
      throw toRepositeError(error, "reading a checkout session", { secrets });
    }
  };

  const parseWebhook = async (rawBody: string, signature: string | undefined): Promise<PaymentEvent> => {
    if (!signature) throw new WebhookRejected("The Stripe-Signature header is missing.");
    let event: Stripe.Event;
    try {
      event = await stripe.webhooks.constructEventAsync(rawBody, signature, options.webhookSecret, options.webhookToleranceSeconds);
    } catch (error) {
      const reason = redact(error instanceof Error ? error.message : String(error), secrets);
      throw new WebhookRejected(`The Stripe webhook's signature does not hold: ${reason}`);
    }
    // The signature held, so its time is Stripe's (or someone holding the secret's): one far ahead
    // would stay replayable for as long as it is ahead.
    const ahead = signedAt(signature) - Math.floor(Date.now() / 1000);
    if (ahead > skew) {
      throw new WebhookRejected(`The Stripe webhook is signed ${ahead} seconds ahead of this server's clock (at most ${skew} are allowed): check the server's clock.`, "webhook_from_future");
    }
    return toPaymentEvent(event, productOfPrice);
  };

  const portalUrl = async (customerId: string, returnUrl: string) => {
    const session = await call("opening the billing portal", () => stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl }));
    return session.url;
  };

  return { name: "stripe", enabled: true, catalog, createCheckout, getCheckout, parseWebhook, portalUrl };
}

/** The `t=` of a `Stripe-Signature` header (seconds), as Stripe's own check reads it (the first one). */
function signedAt(header: string): number {
  const part = header.split(",").find((item) => item.trim().startsWith("t="));
  return part ? Number(part.trim().slice(2)) : Number.NaN;
}
