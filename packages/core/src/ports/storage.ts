import type { InjectionToken } from "tsyringe";
import type { Driver, Storage } from "unstorage";

/**
 * Key-value records. Any unstorage driver works: the embedded default is the `fs` driver under
 * the data directory; production setups use redis or db0 drivers. Keys use `:` as separator.
 */
export type RecordStorage = Storage;

export const STORAGE: InjectionToken<RecordStorage> = Symbol.for("reposite.Storage");

/**
 * An optional capability a driver declares the way unstorage drivers declare theirs (`flags`):
 * `flags.transactions` with a `transaction` method that runs `work` against a driver whose reads
 * and writes all belong to one transaction, committed when `work` resolves and rolled back when it
 * throws (or when the process dies first). Core reaches it through `withTransaction`, never directly.
 */
export interface TransactionalDriver extends Driver {
  flags: NonNullable<Driver["flags"]> & { transactions: true };
  transaction<T>(work: (driver: Driver) => Promise<T>): Promise<T>;
}

/** True when `driver` declares the transaction capability. */
export function isTransactionalDriver(driver: Driver): driver is TransactionalDriver {
  const flags = driver.flags as { transactions?: unknown } | undefined;
  return flags?.transactions === true && typeof (driver as Partial<TransactionalDriver>).transaction === "function";
}
