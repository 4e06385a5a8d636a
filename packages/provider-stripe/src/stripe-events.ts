import type { CheckoutState, PaymentEvent, Product } from "@reposite/core";
import type Stripe from "stripe";

/** Subscription statuses after which it never charges again: Reposite treats the purchase as ended. */
const ENDED_STATUSES = new Set(["canceled", "incomplete_expired"]);

/** A Checkout Session as the port reads it. `paid` also covers a session that cost nothing. */
export function checkoutState(session: Stripe.Checkout.Session): CheckoutState {
  return {
    id: session.id,
    status: sessionStatus(session.status),
    paid: session.payment_status === "paid" || session.payment_status === "no_payment_required",
    customerId: idOf(session.customer),
    subscriptionId: idOf(session.subscription),
    metadata: { ...(session.metadata ?? {}) },
  };
}

/**
 * The verified Stripe event, reduced to what Reposite acts on. The event's own id and creation
 * time travel along, so the core can drop a second delivery and ignore an older state.
 * - `checkout.session.completed`, `checkout.session.async_payment_succeeded` → `checkout_completed`
 *   (`paid` is false for a completed session whose delayed payment has not arrived yet);
 * - `customer.subscription.created|updated|deleted` → `subscription_changed` (`ended` when deleted,
 *   `canceled` or `incomplete_expired`), with the subscription's metadata (Reposite's purchase id)
 *   and, given `productOfPrice`, the quantity it charges per product (a quantity lowered in the
 *   billing portal lowers what the purchase gives);
 * - `invoice.payment_failed` → `payment_failed`;
 * - anything else → `ignored`.
 */
export function toPaymentEvent(event: Stripe.Event, productOfPrice?: ReadonlyMap<string, Product>): PaymentEvent {
  const base = { id: event.id, created: event.created };
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      return { ...base, type: "checkout_completed", session: checkoutState(event.data.object) };
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted": {
      const subscription = event.data.object;
      return {
        ...base,
        type: "subscription_changed",
        subscriptionId: subscription.id,
        customerId: idOf(subscription.customer),
        status: subscription.status,
        ended: event.type === "customer.subscription.deleted" || ENDED_STATUSES.has(subscription.status),
        metadata: { ...(subscription.metadata ?? {}) },
        ...(productOfPrice ? quantitiesOf(subscription, productOfPrice) : {}),
      };
    }
    case "invoice.payment_failed": {
      const invoice = event.data.object;
      return {
        ...base,
        type: "payment_failed",
        subscriptionId: idOf(invoice.parent?.subscription_details?.subscription ?? legacySubscription(invoice)),
        customerId: idOf(invoice.customer),
      };
    }
    default:
      return { ...base, type: "ignored", providerType: event.type };
  }
}

/**
 * What the subscription charges per product, from its items' prices and quantities; nothing when
 * Stripe sent only part of the items (then quantities are left as they are).
 */
function quantitiesOf(subscription: Stripe.Subscription, productOfPrice: ReadonlyMap<string, Product>): { quantities?: Partial<Record<Product, number>> } {
  const items = subscription.items;
  if (!items || items.has_more) return {};
  const quantities: Partial<Record<Product, number>> = {};
  for (const item of items.data) {
    const product = productOfPrice.get(item.price.id);
    if (product) quantities[product] = (quantities[product] ?? 0) + (item.quantity ?? 1);
  }
  return { quantities };
}

/** A status Stripe may add later reads as `open`: not paid, not over. */
function sessionStatus(status: string | null): CheckoutState["status"] {
  return status === "complete" || status === "expired" ? status : "open";
}

/** Stripe sends either an id or, when expanded, the object. */
function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === "string" ? value : value.id;
}

/** Accounts on API versions before 2025-03-31 still send `invoice.subscription`; the webhook endpoint's version decides. */
function legacySubscription(invoice: Stripe.Invoice): string | null {
  const old = (invoice as unknown as { subscription?: unknown }).subscription;
  return typeof old === "string" ? old : null;
}
