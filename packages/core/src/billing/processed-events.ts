import { createHash } from "node:crypto";
import { inject, injectable } from "tsyringe";
import { CLOCK, type Clock } from "../ports/clock.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { ExpiringRecords } from "../util/expiring-records.js";

/** How long an event id is remembered: a provider stops redelivering long before (Stripe: 3 days). */
export const PROCESSED_EVENTS_KEPT_MS = 30 * 24 * 60 * 60_000;

const eventKey = (id: string) => `billing-events:${createHash("sha256").update(id).digest("hex").slice(0, 40)}`;

/** The provider events already handled, so one delivered twice changes nothing the second time. */
@injectable()
export class ProcessedEvents {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(ExpiringRecords) private readonly expiring: ExpiringRecords,
  ) {}

  /**
   * Runs `handle` unless the event was handled already, one delivery of it at a time; the event
   * counts as handled only once `handle` succeeded (a failure leaves it for the provider's retry).
   * Answers whether it ran.
   */
  once(eventId: string, handle: () => Promise<void>): Promise<boolean> {
    const key = eventKey(eventId);
    return this.locks.withLock(key, async () => {
      if (await this.storage.getItem(key)) return false;
      await handle();
      const expiresAt = this.clock.now().getTime() + PROCESSED_EVENTS_KEPT_MS;
      await this.expiring.write(key, { event_id: eventId, expires_at: expiresAt }, expiresAt);
      return true;
    });
  }
}
