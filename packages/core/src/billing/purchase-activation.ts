import { inject, injectable } from "tsyringe";
import { CLOCK, type Clock } from "../ports/clock.js";
import type { CheckoutState } from "../ports/payments.js";
import { formatTimestamp } from "../util/timestamps.js";
import type { PurchaseRecord, PurchaseStatus } from "./purchase.js";
import { PurchaseStore, type SubscriptionState } from "./purchase-store.js";

/**
 * The status a subscription's purchases take from the provider's subscription status: `active`
 * and `trialing` count; `past_due` still counts while the provider retries the payment; ended,
 * `canceled`, `unpaid` and `incomplete_expired` end it. Anything else (`incomplete`, `paused`)
 * leaves it as it is.
 */
export function statusFromSubscription(state: Pick<SubscriptionState, "status" | "ended">, current: PurchaseStatus): PurchaseStatus {
  if (state.ended || ["canceled", "unpaid", "incomplete_expired"].includes(state.status)) return "ended";
  if (state.status === "past_due") return current === "pending" ? current : "past_due";
  if (state.status === "active" || state.status === "trialing") return current === "pending" ? current : "active";
  return current;
}

/**
 * How purchases change with what the provider reports, shared by webhooks and confirm so both
 * make the same, repeatable change. Every change is skipped when the purchase already applied a
 * newer event (`event_at`): events out of order never undo a newer state.
 */
@injectable()
export class PurchaseActivation {
  constructor(
    @inject(PurchaseStore) private readonly purchases: PurchaseStore,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * A checkout was paid: its `pending` purchases become `active` with the provider's customer and
   * subscription (others only note the event's time, so a repeat changes nothing). `eventAt` is the
   * event's `created`, or null when confirm read the session. A subscription state the provider
   * reported before (its events may come first) is applied after.
   */
  async completed(session: CheckoutState, eventAt: number | null): Promise<PurchaseRecord[]> {
    if (!session.paid) return this.purchases.bySession(session.id);
    const changed: PurchaseRecord[] = [];
    for (const purchase of await this.purchases.bySession(session.id)) {
      const after = await this.purchases.modify(purchase.id, (record) => {
        if (isOlder(eventAt, record.event_at)) return record;
        // Activated already (by confirm, or this event before): only the event's time is kept.
        if (record.status !== "pending") return eventAt === null || record.event_at === newest(record.event_at, eventAt) ? record : { ...record, event_at: newest(record.event_at, eventAt) };
        return {
          ...record,
          status: "active",
          customer_id: session.customerId ?? record.customer_id,
          // A one-time product (a domain) has no subscription.
          subscription_id: record.product === "domain" ? null : (session.subscriptionId ?? record.subscription_id),
          event_at: newest(record.event_at, eventAt),
          provider_status: null,
          updated_at: this.now(),
        };
      });
      if (after) changed.push(after);
    }
    for (const subscriptionId of new Set(changed.map((purchase) => purchase.subscription_id).filter((id): id is string => Boolean(id)))) {
      const known = await this.purchases.subscriptionState(subscriptionId);
      if (known) await this.subscriptionChanged(subscriptionId, known);
    }
    return this.purchases.bySession(session.id);
  }

  /**
   * The subscription's purchases take the status it reports (`statusFromSubscription`), and memory
   * and disk the quantity it now charges: a quantity lowered (or raised) in the billing portal
   * changes the units the app has, as a purchase does (`AppLimits` counts quantities).
   */
  async subscriptionChanged(subscriptionId: string, state: SubscriptionState): Promise<void> {
    for (const purchase of await this.purchases.bySubscription(subscriptionId)) {
      await this.purchases.modify(purchase.id, (record) => {
        if (isOlder(state.event_at, record.event_at)) return record;
        const status = statusFromSubscription(state, record.status);
        const quantity = chargedQuantity(record, state);
        if (status === record.status && quantity === record.quantity && record.event_at === state.event_at) return record;
        return {
          ...record,
          status,
          // The size wanted moves with what is charged: the units other purchases pay stay.
          units: Math.max(quantity, record.units + quantity - record.quantity),
          quantity,
          provider_status: status === "active" ? null : state.status,
          event_at: newest(record.event_at, state.event_at),
          updated_at: this.now(),
        };
      });
    }
  }

  /**
   * A renewal failed: the subscription's counting purchases become `past_due`. They keep counting
   * while the provider retries; its subscription update ends or restores them.
   */
  async paymentFailed(subscriptionId: string, eventAt: number): Promise<void> {
    for (const purchase of await this.purchases.bySubscription(subscriptionId)) {
      await this.purchases.modify(purchase.id, (record) =>
        record.status !== "active" || isOlder(eventAt, record.event_at)
          ? record
          : { ...record, status: "past_due", provider_status: "payment_failed", event_at: newest(record.event_at, eventAt), updated_at: this.now() },
      );
    }
  }

  private now(): string {
    return formatTimestamp(this.clock.now());
  }
}

/** What a memory or disk purchase charges now by the subscription's report; others keep theirs (one each). */
function chargedQuantity(record: PurchaseRecord, state: SubscriptionState): number {
  if (record.product !== "memory" && record.product !== "disk") return record.quantity;
  const charged = state.quantities?.[record.product];
  return charged === undefined || !Number.isInteger(charged) || charged < 0 ? record.quantity : charged;
}

/** An event older than the newest one applied. */
const isOlder = (eventAt: number | null, applied: number | null) => eventAt !== null && applied !== null && eventAt < applied;
const newest = (applied: number | null, eventAt: number | null) => (eventAt === null ? applied : Math.max(applied ?? eventAt, eventAt));
