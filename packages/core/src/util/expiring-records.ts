import { inject, injectable } from "tsyringe";
import type { StorageValue } from "unstorage";
import { CLOCK, type Clock } from "../ports/clock.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { ReplicaIdentity } from "./replica-identity.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { Leases } from "./leases.js";

/** Removals are grouped by the minute they fall due in: one small index record per minute. */
export const EXPIRY_BUCKET_MS = 60_000;
/** How often a process looks for records that fell due. */
export const EXPIRY_SWEEP_MS = 60_000;

/** The records to remove together; the first is the one that says whether it is really time. */
type Entry = string[];

const bucketKey = (bucket: number) => `expiring:${bucket}`;
/** The buckets that hold entries, so a sweep reads only those, never the records at large. */
const BUCKETS_KEY = "expiring-buckets";
/** The lease of the periodic sweep: one replica sweeps for all. */
const SWEEP_LEASE = "expiry-sweep";

/**
 * Removes records once they expire (sign-in links, login requests, rate-limit counters), without
 * ever listing storage: a record is noted in the index bucket of its removal time when it is
 * written, and a sweep reads only the buckets that fell due. Before removing, the sweep reads the
 * first record again: if it now carries a later `expires_at` (a rate-limit counter that kept
 * counting), it is noted for then instead.
 *
 * Each process takes a turn every `EXPIRY_SWEEP_MS` (the timer does not keep it alive), so records
 * written before a restart go too; of the processes sharing one storage, the one holding the
 * `expiry-sweep` lease sweeps (another takes over within two periods of its death). Several
 * sweeping at once would do no harm, only needless work.
 */
@injectable()
export class ExpiringRecords {
  /** Buckets this process knows are listed in `expiring-buckets` (a bucket leaves the list only once due). */
  private readonly listed = new Set<number>();
  private sweeping: Promise<number> | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(Leases) private readonly leases: Leases,
    @inject(ReplicaIdentity) private readonly replica: ReplicaIdentity,
  ) {
    this.timer = setInterval(() => {
      this.leases
        .asLeader(SWEEP_LEASE, this.replica.id, EXPIRY_SWEEP_MS * 2 + 5_000, async () => void (await this.sweep()))
        .catch((error: unknown) => console.error("[reposite] removing expired records failed:", error));
    }, EXPIRY_SWEEP_MS);
    this.timer.unref?.();
  }

  /** Whether the storage removes records itself: its driver declares unstorage's `ttl` (PostgreSQL's `expires_at`). */
  get removedByStorage(): boolean {
    return this.storage.getMounts("").every((mount) => mount.driver.flags?.ttl === true);
  }

  /**
   * Writes a record that is to go at `removeAt` (ms since the epoch): with the driver's own
   * expiry (unstorage's `ttl` option) where it has one, else noted for the sweep. `alsoKeys`,
   * written by the caller with `rewrite`, go at the same time.
   */
  async write(key: string, value: StorageValue, removeAt: number, alsoKeys: string[] = []): Promise<void> {
    await this.rewrite(key, value, removeAt);
    if (!this.removedByStorage) await this.removeAt(removeAt, [key, ...alsoKeys]);
  }

  /** Writes a record `write` (or `removeAt`) noted already: its time to go is kept with the driver's expiry. */
  async rewrite(key: string, value: StorageValue, removeAt: number): Promise<void> {
    if (!this.removedByStorage) return this.storage.setItem(key, value);
    // unstorage's ttl is in whole seconds; a record due already is kept one second more at most.
    const ttl = Math.max(1, Math.ceil((removeAt - this.clock.now().getTime()) / 1000));
    await this.storage.setItem(key, value, { ttl });
  }

  /** Notes that `keys` are to be removed at `removeAt` (ms since the epoch), checked against `keys[0]`. */
  async removeAt(removeAt: number, keys: string[]): Promise<void> {
    // Never into a bucket already due: a sweep may be emptying it.
    const bucket = Math.max(Math.ceil(removeAt / EXPIRY_BUCKET_MS), this.currentBucket() + 1);
    await this.locks.withLock(bucketKey(bucket), async () => {
      if (!this.listed.has(bucket)) {
        await this.locks.withLock(BUCKETS_KEY, async () => {
          const buckets = (await this.storage.getItem<number[]>(BUCKETS_KEY)) ?? [];
          if (!buckets.includes(bucket)) await this.storage.setItem(BUCKETS_KEY, [...buckets, bucket].sort((a, b) => a - b));
        });
        this.listed.add(bucket);
      }
      const entries = (await this.storage.getItem<Entry[]>(bucketKey(bucket))) ?? [];
      await this.storage.setItem(bucketKey(bucket), [...entries, keys]);
    });
  }

  /**
   * Removes every record whose time has come; answers how many entries it removed. Reads the list
   * of buckets and the buckets due, nothing else. Concurrent calls share one sweep.
   */
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepDue().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** Stops the timer and waits for a sweep under way; call before the storage is disposed. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping?.catch(() => undefined);
    await this.leases.release(SWEEP_LEASE, this.replica.id).catch(() => undefined);
  }

  private async sweepDue(): Promise<number> {
    const now = this.clock.now().getTime();
    const due = ((await this.storage.getItem<number[]>(BUCKETS_KEY)) ?? []).filter((bucket) => bucket * EXPIRY_BUCKET_MS <= now);
    // Buckets another process swept are never written again: forget them here too.
    for (const bucket of this.listed) if (bucket * EXPIRY_BUCKET_MS <= now) this.listed.delete(bucket);
    let removed = 0;
    for (const bucket of due) {
      await this.locks.withLock(bucketKey(bucket), async () => {
        for (const keys of (await this.storage.getItem<Entry[]>(bucketKey(bucket))) ?? []) {
          if (await this.removeIfDue(keys, now)) removed++;
        }
        await this.storage.removeItem(bucketKey(bucket));
        await this.locks.withLock(BUCKETS_KEY, async () => {
          const buckets = (await this.storage.getItem<number[]>(BUCKETS_KEY)) ?? [];
          await this.storage.setItem(BUCKETS_KEY, buckets.filter((listed) => listed !== bucket));
        });
        this.listed.delete(bucket);
      });
    }
    return removed;
  }

  /** Under the first record's lock, so a writer that holds it (the rate limiter) never loses a count. */
  private removeIfDue(keys: Entry, now: number): Promise<boolean> {
    const [first] = keys;
    if (!first) return Promise.resolve(false);
    return this.locks.withLock(first, async () => {
      const record = await this.storage.getItem<{ expires_at?: unknown }>(first);
      const expiresAt = record && typeof record === "object" && typeof record.expires_at === "number" ? record.expires_at : null;
      if (expiresAt !== null && expiresAt > now) {
        await this.removeAt(expiresAt, keys);
        return false;
      }
      await Promise.all(keys.map((key) => this.storage.removeItem(key)));
      return record !== null;
    });
  }

  private currentBucket(): number {
    return Math.floor(this.clock.now().getTime() / EXPIRY_BUCKET_MS);
  }
}
