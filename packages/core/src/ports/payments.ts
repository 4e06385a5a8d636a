import type { InjectionToken } from "tsyringe";

/**
 * What Reposite sells: `embed` (hosting one app; a subscription), `memory` and `disk` (an app's
 * size, subscriptions billed per unit), `domain` (one project on its own domain; paid once).
 */
export const PRODUCTS = ["embed", "memory", "disk", "domain"] as const;
export type Product = (typeof PRODUCTS)[number];

/** How a product is paid: every month, or once. */
export type BillingInterval = "month" | "once";

/** One product's price as the provider sells it. For memory and disk the amount is per unit. */
export interface ProductPrice {
  /** In the currency's smallest unit (cents). */
  amount: number;
  /** ISO 4217, lower case, as Stripe writes it (`usd`, `eur`). */
  currency: string;
  interval: BillingInterval;
}

/** What the provider sells and for how much; a product it does not sell is absent. */
export type Catalog = Partial<Record<Product, ProductPrice>>;

/** A hosted payment page to send a person to. */
export interface CheckoutRequest {
  /** What is bought, with quantities (memory/disk: units not yet paid; others: 1). */
  items: { product: Product; quantity: number }[];
  /** The account paying: kept on the session, so a webhook can tell whose it is. */
  accountId: string;
  email: string;
  /** The provider's customer of this account when one exists already (the portal lists all its purchases). */
  customerId?: string | null;
  /** Where the person lands after paying (`{CHECKOUT_SESSION_ID}` is replaced by the session id) or cancelling. */
  successUrl: string;
  cancelUrl: string;
  /** Reposite's own facts (purchase id, site id, product, units), given back on the session and in events. */
  metadata: Record<string, string>;
}

export interface CheckoutSession {
  id: string;
  url: string;
}

/** A checkout session as the provider sees it now. */
export interface CheckoutState {
  id: string;
  /** `complete` once the person finished it; `expired` when it can no longer be paid. */
  status: "open" | "complete" | "expired";
  /** The money was received (a subscription's first payment included). */
  paid: boolean;
  customerId: string | null;
  /** The subscription the session started (subscription products). */
  subscriptionId: string | null;
  metadata: Record<string, string>;
}

/**
 * A provider's webhook event, reduced to what Reposite acts on. `id` identifies the event (the same
 * event delivered twice has the same id) and `created` orders events (seconds since the epoch).
 */
export type PaymentEvent =
  | { id: string; created: number; type: "checkout_completed"; session: CheckoutState }
  | {
      id: string;
      created: number;
      type: "subscription_changed";
      subscriptionId: string;
      customerId: string | null;
      /** The provider's status: `active`, `trialing`, `past_due`, `unpaid`, `canceled`, `incomplete`, … */
      status: string;
      /** Set when the subscription has ended (cancelled or not paid for good). */
      ended: boolean;
      metadata: Record<string, string>;
      /**
       * The quantity the subscription now charges for each product sold here (its items whose
       * price is that product's price now). A product absent (an item on a price the server no
       * longer names, or none told) leaves its purchases' quantity as it is; ending is the status's.
       */
      quantities?: Partial<Record<Product, number>>;
    }
  | { id: string; created: number; type: "payment_failed"; subscriptionId: string | null; customerId: string | null }
  | { id: string; created: number; type: "ignored"; providerType: string };

/**
 * Why a webhook is refused: its signature does not hold or cannot be read (`invalid_signature`),
 * or it is signed with a time later than the server's clock allows (`webhook_from_future`).
 */
export type WebhookRejection = "invalid_signature" | "webhook_from_future";

/** A webhook refused before anything is read from it: answered `400` with `reason` as its `code`, nothing changes. */
export class WebhookRejected extends Error {
  constructor(
    message: string,
    readonly reason: WebhookRejection = "invalid_signature",
  ) {
    super(message);
    this.name = "WebhookRejected";
  }
}

/**
 * Where payments happen. Reposite never sees card details: it sends the person to the provider's
 * hosted checkout and billing portal, and learns of payments from the session and signed webhooks.
 * The embedded default (`freePayments`) is always there: payments off, every product free.
 * `@reposite/provider-stripe` implements it on Stripe.
 */
export interface PaymentProvider {
  /** Names the provider in start-up output and errors (`stripe`, `free`). */
  readonly name: string;
  /** False: payments are off, nothing is charged and every product is free to use. */
  readonly enabled: boolean;
  catalog(): Promise<Catalog>;
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
  /** The session now, or null when the provider does not know it. */
  getCheckout(id: string): Promise<CheckoutState | null>;
  /** Checks the signature over the raw body and reads the event; rejects with `WebhookRejected`. */
  parseWebhook(rawBody: string, signature: string | undefined): Promise<PaymentEvent>;
  /** The customer's billing portal (cards, invoices, cancelling), returning to `returnUrl`. */
  portalUrl(customerId: string, returnUrl: string): Promise<string>;
}

export const PAYMENT_PROVIDER: InjectionToken<PaymentProvider> = Symbol.for("reposite.PaymentProvider");
