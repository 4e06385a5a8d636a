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
  /** Whether this process held each lease at its last `asLeader` turn: a change is said once in the log. */
  private readonly leading = new Map<string, boolean>();

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

  /**
   * One turn of periodic work every replica schedules but one should do for all (disk checks,
   * expiry sweeps): runs `work` when `holder` has the lease `name` (taken when free or expired,
   * renewed when its own) and answers true; answers false, running nothing, while another holder's
   * lease is current. With `ttlMs` longer than the period, one replica does the work at a time and
   * another takes over within `ttlMs` once the holder dies (or stops taking its turns).
   */
  async asLeader(name: string, holder: string, ttlMs: number, work: () => Promise<void>): Promise<boolean> {
    const leads = await this.acquire(name, holder, ttlMs);
    if (this.leading.get(name) !== leads) {
      this.leading.set(name, leads);
      console.log(leads ? `[reposite] this replica (${holder}) now runs ${name}` : `[reposite] another replica runs ${name} now`);
    }
    if (leads) await work();
    return leads;
  }

  /** Who holds `name` now; null when nobody does (never taken, given up, or expired). */
  async holder(name: string): Promise<string | null> {
    const current = await this.storage.getItem<LeaseRecord>(leaseKey(name));
    return current && current.expires_at > this.clock.now().getTime() ? current.holder : null;
  }
}
