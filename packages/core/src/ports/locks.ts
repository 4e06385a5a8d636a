import type { InjectionToken } from "tsyringe";

/**
 * Mutual exclusion by name. The embedded default works inside one process; several server
 * replicas need a shared implementation (for example on Redis).
 */
export interface Locks {
  /** Runs `work` while holding the lock `name`; others asking for the same name wait their turn. */
  withLock<T>(name: string, work: () => Promise<T>): Promise<T>;
}

export const LOCKS: InjectionToken<Locks> = Symbol.for("reposite.Locks");
