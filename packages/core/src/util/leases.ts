import { inject, injectable } from "tsyringe";
import { CLOCK, type Clock } from "../ports/clock.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";

/** What is stored at `leases:<name>`. */
interface LeaseRecord {
  holder: string;
  /** Milliseconds since the epoch; past it the lease is free, whoever held it. */
  expires_at: number;
}

const leaseKey = (name: string) => `leases:${name}`;

/**
 * Leases by name, in storage under the LOCKS port: whoever holds one must renew it before it
 * expires, so a holder that died (a replica killed with SIGKILL, a machine gone) lets go by
 * itself within `ttlMs`. Used for replica liveness and for work one replica does for all.
 */
@injectable()
export class Leases {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(LOCKS) private readonly locks: Locks,
  ) {}

  /** Takes `name` for `holder` when it is free or expired, or renews it when `holder` has it; answers whether `holder` has it now. */
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.locks.withLock(leaseKey(name), async () => {
      const now = this.clock.now().getTime();
      const current = await this.storage.getItem<LeaseRecord>(leaseKey(name));
      if (current && current.holder !== holder && current.expires_at > now) return false;
      await this.storage.setItem(leaseKey(name), { holder, expires_at: now + ttlMs } satisfies LeaseRecord);
      return true;
    });
  }

  /** Gives `name` up, if `holder` has it. */
  release(name: string, holder: string): Promise<void> {
    return this.locks.withLock(leaseKey(name), async () => {
      const current = await this.storage.getItem<LeaseRecord>(leaseKey(name));
      if (current?.holder === holder) await this.storage.removeItem(leaseKey(name));
    });
  }

  /** Who holds `name` now; null when nobody does (never taken, given up, or expired). */
  async holder(name: string): Promise<string | null> {
    const current = await this.storage.getItem<LeaseRecord>(leaseKey(name));
    return current && current.expires_at > this.clock.now().getTime() ? current.holder : null;
  }
}
