import { createHash } from "node:crypto";
import { inject, injectable } from "tsyringe";
import { EVENTS, type EventBus } from "../ports/events.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import type { Product } from "../ports/payments.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { withTransaction } from "../util/storage-transactions.js";
import { APP_LIMITS_CHANNEL, type AppLimitsChanged } from "./app-limit-events.js";
import { counts, type PurchaseRecord } from "./purchase.js";

/** A provider's id as part of a storage key: as it is when it is plain, else its hash (keys never carry `:`, `/` or `.`). */
const keyPart = (id: string) => (/^[A-Za-z0-9_-]{1,200}$/.test(id) ? id : `h-${createHash("sha256").update(id).digest("hex")}`);

const purchaseKey = (id: string) => `billing-purchases:${id}`;
const accountIndex = (accountId: string) => `billing-account-purchases:${accountId}`;
const siteIndex = (siteId: string) => `billing-site-purchases:${siteId}`;
const sessionIndex = (sessionId: string) => `billing-session-purchases:${keyPart(sessionId)}`;
const subscriptionIndex = (subscriptionId: string) => `billing-subscription-purchases:${keyPart(subscriptionId)}`;
const subscriptionStateKey = (subscriptionId: string) => `billing-subscriptions:${keyPart(subscriptionId)}`;
/** Guards every change to an account's purchases, so two claims of one free seat never both win. */
export const accountLock = (accountId: string) => `billing-account:${accountId}`;

/** The newest state a provider reported of a subscription, kept even before its purchases are known. */
export interface SubscriptionState {
  status: string;
  ended: boolean;
  /** `created` of the event that said so (seconds). */
  event_at: number;
  /** What it charges per product, when the provider said (see `PaymentEvent`). */
  quantities?: Partial<Record<Product, number>>;
}

/**
 * Where purchases live, with their indexes by account, project, checkout session and
 * subscription. The only place that knows their storage keys. Says on `APP_LIMITS_CHANNEL` when a
 * change alters what a project's purchases give.
 */
@injectable()
export class PurchaseStore {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(EVENTS) private readonly events: EventBus,
  ) {}

  get(id: string): Promise<PurchaseRecord | null> {
    return this.storage.getItem<PurchaseRecord>(purchaseKey(id));
  }

  /** Stores new purchases (one checkout's) and lists them in their indexes, together (one transaction where the storage has them). */
  async insert(purchases: PurchaseRecord[]): Promise<void> {
    const listings = purchases.flatMap((purchase) =>
      [accountIndex(purchase.account_id), siteIndex(purchase.site_id), sessionIndex(purchase.session_id)].map((index) => ({ index, id: purchase.id })),
    );
    await this.withIndexLocks(listings, async (tx) => {
      for (const purchase of purchases) await tx.setItem(purchaseKey(purchase.id), purchase);
      for (const { index, id } of listings) await addTo(tx, index, id);
    });
  }

  /**
   * Changes a purchase under its lock, so a webhook and a confirm never undo each other. Answers
   * the changed record, or null when it is gone. A change of `site_id` or `subscription_id` moves
   * it in those indexes.
   */
  async modify(id: string, change: (purchase: PurchaseRecord) => PurchaseRecord): Promise<PurchaseRecord | null> {
    return this.locks.withLock(purchaseKey(id), async () => {
      const before = await this.get(id);
      if (!before) return null;
      const after = change(before);
      if (after === before) return before;
      // An activation and the subscription's index (a move and the projects' indexes) hold together.
      const added = [
        ...(after.site_id !== before.site_id ? [siteIndex(after.site_id)] : []),
        ...(after.subscription_id && after.subscription_id !== before.subscription_id ? [subscriptionIndex(after.subscription_id)] : []),
      ].map((index) => ({ index, id }));
      const removed = after.site_id !== before.site_id ? [{ index: siteIndex(before.site_id), id }] : [];
      await this.withIndexLocks([...added, ...removed], async (tx) => {
        await tx.setItem(purchaseKey(id), after);
        for (const listing of added) await addTo(tx, listing.index, listing.id);
        for (const listing of removed) await removeFrom(tx, listing.index, listing.id);
      });
      if (givesOtherwise(before, after)) {
        for (const site of new Set([before.site_id, after.site_id])) this.events.publish(APP_LIMITS_CHANNEL, { site_id: site } satisfies AppLimitsChanged);
      }
      return after;
    });
  }

  /** The account's purchases, oldest first. */
  byAccount(accountId: string): Promise<PurchaseRecord[]> {
    return this.listed(accountIndex(accountId));
  }

  /** The purchases made for (or moved to) one project, oldest first. */
  bySite(siteId: string): Promise<PurchaseRecord[]> {
    return this.listed(siteIndex(siteId));
  }

  /** The purchases one checkout session sells. */
  bySession(sessionId: string): Promise<PurchaseRecord[]> {
    return this.listed(sessionIndex(sessionId));
  }

  /** The purchases one subscription pays for. */
  bySubscription(subscriptionId: string): Promise<PurchaseRecord[]> {
    return this.listed(subscriptionIndex(subscriptionId));
  }

  subscriptionState(subscriptionId: string): Promise<SubscriptionState | null> {
    return this.storage.getItem<SubscriptionState>(subscriptionStateKey(subscriptionId));
  }

  /** Keeps `state` unless a newer one is kept already; answers the one kept. */
  async noteSubscription(subscriptionId: string, state: SubscriptionState): Promise<SubscriptionState> {
    return this.locks.withLock(subscriptionStateKey(subscriptionId), async () => {
      const kept = await this.subscriptionState(subscriptionId);
      if (kept && kept.event_at > state.event_at) return kept;
      await this.storage.setItem(subscriptionStateKey(subscriptionId), state);
      return state;
    });
  }

  private async listed(index: string): Promise<PurchaseRecord[]> {
    const ids = (await this.storage.getItem<string[]>(index)) ?? [];
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((record): record is PurchaseRecord => record !== null);
  }

  /**
   * Takes the locks of the indexes `listings` change (in one order, so two writers never wait on
   * each other), then runs `write` in one transaction: locks first, since a transaction holds a
   * database connection while it waits.
   */
  private withIndexLocks(listings: { index: string }[], write: (tx: RecordStorage) => Promise<void>): Promise<void> {
    const names = [...new Set(listings.map((listing) => listing.index))].sort();
    const locked = names.reduceRight<() => Promise<void>>(
      (inner, name) => () => this.locks.withLock(name, inner),
      () => withTransaction(this.storage, write),
    );
    return locked();
  }
}

async function addTo(storage: RecordStorage, index: string, id: string): Promise<void> {
  const ids = (await storage.getItem<string[]>(index)) ?? [];
  if (!ids.includes(id)) await storage.setItem(index, [...ids, id]);
}

async function removeFrom(storage: RecordStorage, index: string, id: string): Promise<void> {
  const ids = (await storage.getItem<string[]>(index)) ?? [];
  if (ids.includes(id)) await storage.setItem(index, ids.filter((each) => each !== id));
}

/** Whether a change alters what the purchase gives, and to which project. */
const givesOtherwise = (before: PurchaseRecord, after: PurchaseRecord) =>
  counts(before) !== counts(after) || (counts(after) && (before.quantity !== after.quantity || before.site_id !== after.site_id));
