import { inject, injectable } from "tsyringe";
import { CLOCK, type Clock } from "../ports/clock.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { ExpiringRecords } from "./expiring-records.js";
import { sha256 } from "./secrets.js";

export interface RateLimit {
  /** Names the limit in storage keys, for example `agent-login-ip`. */
  name: string;
  max: number;
  windowMs: number;
}

const counterKey = (limit: RateLimit, key: string) => `rate-limits:${limit.name}:${sha256(key)}`;

/** A counter: the events in the window, and when the newest leaves it (then the record is removed). */
interface Counter {
  events: number[];
  expires_at: number;
}

/** Counters were plain lists of event times before they expired. */
const eventsOf = (stored: Counter | number[] | null): number[] => (Array.isArray(stored) ? stored : (stored?.events ?? []));

/**
 * Sliding-window counters kept in storage, so every server replica sharing the storage counts
 * the same events. Keys are hashed: they may be email or IP addresses. A counter is removed from
 * storage once its newest event has left the window (`ExpiringRecords`).
 */
@injectable()
export class RateLimiter {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(ExpiringRecords) private readonly expiring: ExpiringRecords,
  ) {}

  /**
   * Counts one event for `key` when under the limit. Answers whether it was allowed and, when not,
   * how many seconds until the oldest event leaves the window.
   */
  async take(limit: RateLimit, key: string): Promise<{ allowed: true } | { allowed: false; retryAfter: number }> {
    const storageKey = counterKey(limit, key);
    const { answer, created } = await this.locks.withLock(storageKey, async () => {
      const now = this.clock.now().getTime();
      const stored = await this.storage.getItem<Counter | number[]>(storageKey);
      const recent = eventsOf(stored).filter((time) => time > now - limit.windowMs);
      if (recent.length >= limit.max) {
        return { answer: { allowed: false as const, retryAfter: Math.ceil((recent[0]! + limit.windowMs - now) / 1000) }, created: null };
      }
      const counter: Counter = { events: [...recent, now], expires_at: now + limit.windowMs };
      await this.storage.setItem(storageKey, counter);
      // A counter already noted for removal is noted again for its new end when that time comes.
      const noted = stored !== null && !Array.isArray(stored);
      return { answer: { allowed: true as const }, created: noted ? null : counter };
    });
    // Outside the counter's lock: a sweep holds the index first and then this lock.
    if (created) await this.expiring.removeAt(created.expires_at, [storageKey]);
    return answer;
  }

  /** Forgets the events counted for `key`, as after a successful sign-in: only failures should add up. */
  async reset(limit: RateLimit, key: string): Promise<void> {
    const storageKey = counterKey(limit, key);
    await this.locks.withLock(storageKey, () => this.storage.removeItem(storageKey));
  }
}
