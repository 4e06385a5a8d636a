import { createHash } from "node:crypto";
import { WebhookRejected, type Catalog, type CheckoutRequest, type CheckoutState, type PaymentEvent, type PaymentProvider } from "@reposite/core";

/** What the in-memory provider sells unless told otherwise: hosting $9/month, memory $3 and disk $2 a unit a month, a domain $12 once. */
export const MEMORY_PAYMENTS_CATALOG: Catalog = {
  embed: { amount: 900, currency: "usd", interval: "month" },
  memory: { amount: 300, currency: "usd", interval: "month" },
  disk: { amount: 200, currency: "usd", interval: "month" },
  domain: { amount: 1200, currency: "usd", interval: "once" },
};

/** The header the webhook route reads the signature from (Stripe's name, so routes need nothing else). */
export const MEMORY_SIGNATURE_HEADER = "stripe-signature";

export interface MemoryPaymentsOptions {
  /** What is sold; default `MEMORY_PAYMENTS_CATALOG`. A product left out is not sold. */
  catalog?: Catalog;
  /** False acts like payments off (`enabled` false). Default true. */
  enabled?: boolean;
  /** Signs webhook bodies; default a fixed test secret. */
  secret?: string;
  /** Where the fake payment pages are; default `https://pay.memory.test`. */
  pageUrl?: string;
}

/** A checkout session kept in memory, with the request that made it. */
export interface MemoryCheckout {
  request: CheckoutRequest;
  state: CheckoutState;
  url: string;
}

/** A webhook as the provider would post it: the raw body and its headers. */
export interface WebhookDelivery {
  event: PaymentEvent;
  body: string;
  headers: Record<string, string>;
}

/** A payment event to deliver; `id` and `created` are made up when left out (`created` grows with each event). */
export type EventInput = PaymentEvent extends infer E ? (E extends PaymentEvent ? Omit<E, "id" | "created"> & { id?: string; created?: number } : never) : never;

export interface MemoryPayments extends PaymentProvider {
  /** Every checkout session made, oldest first. */
  readonly checkouts: MemoryCheckout[];
  /** Every billing portal opened: the customer and the return address. */
  readonly portals: { customerId: string; returnUrl: string }[];
  /** Changes what is sold from now on. */
  setCatalog(catalog: Catalog): void;
  /**
   * Acts as the person paying on the hosted page: the session becomes `complete` and paid (or
   * `complete` unpaid with `paid: false`), with a customer (the one the checkout named, else one
   * per account) and, when anything sold is monthly, a new subscription. Answers its
   * `checkout_completed` webhook, ready to post.
   */
  complete(sessionId: string, options?: { paid?: boolean; created?: number }): WebhookDelivery;
  /** The session can no longer be paid. */
  expire(sessionId: string): void;
  /** A webhook for any event, signed. */
  event(input: EventInput): WebhookDelivery;
  /** A signature for `body` as `parseWebhook` checks it. */
  sign(body: string): string;
}

/**
 * A scriptable PaymentProvider in memory, for fast tests: sells every product at set prices,
 * `complete(sessionId)` acts as a person paying, `event(…)` makes webhook deliveries signed with a
 * trivial signature (`v1=<sha256 of secret and body>`) that `parseWebhook` checks.
 */
export function createMemoryPayments(options: MemoryPaymentsOptions = {}): MemoryPayments {
  let catalog: Catalog = { ...(options.catalog ?? MEMORY_PAYMENTS_CATALOG) };
  const secret = options.secret ?? "memory-payments-webhook-secret";
  const pageUrl = (options.pageUrl ?? "https://pay.memory.test").replace(/\/+$/, "");
  const checkouts: MemoryCheckout[] = [];
  const portals: { customerId: string; returnUrl: string }[] = [];
  const customers = new Map<string, string>();
  let counter = 0;
  let clock = 1_700_000_000;
  const next = (prefix: string) => `${prefix}_mem${String(++counter).padStart(6, "0")}`;
  const find = (id: string) => checkouts.find((checkout) => checkout.state.id === id);
  const sign = (body: string) => `v1=${createHash("sha256").update(`${secret}.${body}`).digest("hex")}`;
  const deliver = (event: PaymentEvent): WebhookDelivery => {
    const body = JSON.stringify(event);
    return { event, body, headers: { "content-type": "application/json", [MEMORY_SIGNATURE_HEADER]: sign(body) } };
  };
  const stamp = (input: { id?: string; created?: number }) => {
    clock = Math.max(clock + 1, input.created ?? 0);
    return { id: input.id ?? next("evt"), created: input.created ?? clock };
  };

  return {
    name: "memory",
    enabled: options.enabled ?? true,
    checkouts,
    portals,
    setCatalog(next) {
      catalog = { ...next };
    },
    async catalog() {
      return { ...catalog };
    },
    async createCheckout(request) {
      for (const item of request.items) {
        if (!catalog[item.product]) throw new Error(`[memory-payments] ${item.product} is not sold`);
        if (!Number.isInteger(item.quantity) || item.quantity < 1) throw new Error(`[memory-payments] bad quantity ${item.quantity}`);
      }
      const id = next("cs");
      const checkout: MemoryCheckout = {
        request,
        url: `${pageUrl}/c/${id}`,
        state: { id, status: "open", paid: false, customerId: request.customerId ?? null, subscriptionId: null, metadata: { ...request.metadata } },
      };
      checkouts.push(checkout);
      return { id, url: checkout.url };
    },
    async getCheckout(id) {
      const checkout = find(id);
      return checkout ? { ...checkout.state, metadata: { ...checkout.state.metadata } } : null;
    },
    async parseWebhook(rawBody, signature) {
      if (!signature || signature !== sign(rawBody)) throw new WebhookRejected("No signatures found matching the expected signature for payload.");
      try {
        return JSON.parse(rawBody) as PaymentEvent;
      } catch {
        throw new WebhookRejected("The payload is not JSON.");
      }
    },
    async portalUrl(customerId, returnUrl) {
      portals.push({ customerId, returnUrl });
      return `${pageUrl}/portal/${customerId}?return=${encodeURIComponent(returnUrl)}`;
    },
    complete(sessionId, { paid = true, created } = {}) {
      const checkout = find(sessionId);
      if (!checkout) throw new Error(`[memory-payments] no checkout ${sessionId}`);
      const { request } = checkout;
      let customerId = request.customerId ?? customers.get(request.accountId);
      if (!customerId) customers.set(request.accountId, (customerId = next("cus")));
      const monthly = request.items.some((item) => catalog[item.product]?.interval === "month");
      checkout.state = {
        ...checkout.state,
        status: "complete",
        paid,
        customerId,
        subscriptionId: monthly ? (checkout.state.subscriptionId ?? next("sub")) : null,
      };
      return deliver({ ...stamp({ created }), type: "checkout_completed", session: { ...checkout.state, metadata: { ...checkout.state.metadata } } });
    },
    expire(sessionId) {
      const checkout = find(sessionId);
      if (checkout) checkout.state = { ...checkout.state, status: "expired" };
    },
    event(input) {
      return deliver({ ...input, ...stamp(input) } as PaymentEvent);
    },
    sign,
  };
}
