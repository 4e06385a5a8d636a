import { inject, injectable } from "tsyringe";
import { CLOCK, type Clock } from "../ports/clock.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { sha256 } from "./secrets.js";

export interface RateLimit {
  /** Names the limit in storage keys, for example `agent-login-ip`. */
  name: string;
  max: number;
  windowMs: number;
}

const counterKey = (limit: RateLimit, key: string) => `rate-limits:${limit.name}:${sha256(key)}`;

/**
 * Sliding-window counters kept in storage, so every server replica sharing the storage counts
 * the same events. Keys are hashed: they may be email or IP addresses.
 */
@injectable()
export class RateLimiter {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(LOCKS) private readonly locks: Locks,
  ) {}

  /**
   * Counts one event for `key` when under the limit. Answers whether it was allowed and, when not,
   * how many seconds until the oldest event leaves the window.
   */
  async take(limit: RateLimit, key: string): Promise<{ allowed: true } | { allowed: false; retryAfter: number }> {
    const storageKey = counterKey(limit, key);
    return this.locks.withLock(storageKey, async () => {
      const now = this.clock.now().getTime();
      const recent = ((await this.storage.getItem<number[]>(storageKey)) ?? []).filter((time) => time > now - limit.windowMs);
      if (recent.length >= limit.max) {
        return { allowed: false, retryAfter: Math.ceil((recent[0]! + limit.windowMs - now) / 1000) };
      }
      await this.storage.setItem(storageKey, [...recent, now]);
      return { allowed: true };
    });
  }

  /** Forgets the events counted for `key`, as after a successful sign-in: only failures should add up. */
  async reset(limit: RateLimit, key: string): Promise<void> {
    const storageKey = counterKey(limit, key);
    await this.locks.withLock(storageKey, () => this.storage.removeItem(storageKey));
  }
}
