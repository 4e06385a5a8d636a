import { createStorage, type Driver } from "unstorage";
import { isTransactionalDriver, type RecordStorage } from "../ports/storage.js";

/** The one driver behind `storage`, when it has a single mount (Reposite's own shape). */
function onlyDriver(storage: RecordStorage): Driver | null {
  const mounts = storage.getMounts("");
  return mounts.length === 1 ? mounts[0]!.driver : null;
}

/** Whether `withTransaction` on this storage is all-or-nothing. */
export function supportsTransactions(storage: RecordStorage): boolean {
  const driver = onlyDriver(storage);
  return driver !== null && isTransactionalDriver(driver);
}

/**
 * Runs `work` with a storage whose writes hold together: on a driver that declares transactions
 * (PostgreSQL) they are one transaction, so a failure or a crash between two writes leaves
 * neither. Elsewhere (the embedded file store) `work` gets `storage` itself: each write is whole
 * and they happen in the order made, so callers write the record others point to first and the
 * pointers last, under the locks they already take. Take locks before calling this, never inside
 * `work`: a transaction holds a database connection while it waits.
 */
export async function withTransaction<T>(storage: RecordStorage, work: (tx: RecordStorage) => Promise<T>): Promise<T> {
  const driver = onlyDriver(storage);
  if (!driver || !isTransactionalDriver(driver)) return work(storage);
  return driver.transaction((txDriver) => work(createStorage({ driver: txDriver })));
}
