import type { PurchaseStatus } from "@reposite/contract";
import type { Product } from "../ports/payments.js";

/**
 * Where a purchase stands (`pending`, `active`, `past_due`, `ended`): the contract's, as the
 * account summary shows it.
 */
export { PURCHASE_STATUSES, type PurchaseStatus } from "@reposite/contract";

/**
 * One thing bought for one project: hosting one app (`embed`), memory or disk units for one app,
 * or one domain. A checkout with resources makes several purchases on one session (and later one
 * subscription). Stored by `PurchaseStore`, changed only under its lock.
 */
export interface PurchaseRecord {
  id: string;
  account_id: string;
  product: Product;
  /**
   * The project it is for. A hosting purchase is a seat: when this project has no app any more,
   * the next app set up on the account takes it (and it moves here).
   */
  site_id: string;
  /** Memory/disk: the size the app should end up with, in units (the number asked for); others 1. */
  units: number;
  /** What this purchase charges: memory/disk the units not yet paid when it was bought; others 1. */
  quantity: number;
  status: PurchaseStatus;
  /** The provider's checkout session that sells it. */
  session_id: string;
  /** The provider's customer and subscription, once the checkout completed (one-time products have no subscription). */
  customer_id: string | null;
  subscription_id: string | null;
  /** `created` (seconds) of the newest provider event applied: an older one never undoes it. */
  event_at: number | null;
  /** Why it is `past_due` or `ended`, in the provider's words (`past_due`, `canceled`, `payment_failed`, …). */
  provider_status: string | null;
  created_at: string;
  updated_at: string;
}

/** Paid for and not ended: the purchase gives what it sells. */
export const counts = (purchase: Pick<PurchaseRecord, "status">) => purchase.status === "active" || purchase.status === "past_due";
