import type { RecordStorage } from "@reposite/core";
import { createStorage } from "unstorage";
import { openPool } from "./connection.js";
import { createPostgresEvents, type PostgresEvents } from "./postgres-events.js";
import { createPostgresLocks, type PostgresLocks } from "./postgres-locks.js";
import { postgresStorageDriver } from "./postgres-storage-driver.js";

export interface PostgresPortsOptions {
  /** The database, for example `postgres://reposite:secret@db.internal:5432/reposite`. */
  url: string;
  /** Connections for records and large events; default 10. Locks have a pool of their own (one connection per lock held). */
  poolSize?: number;
}

export interface PostgresPorts {
  storage: RecordStorage;
  locks: PostgresLocks;
  events: PostgresEvents;
  /** Closes every session; `storage.dispose()` (what `reposite.close()` ends with) calls it too. */
  close(): Promise<void>;
}

/**
 * Records, locks and events on one database, ready to pass to `createReposite`. Nothing connects
 * until the first use; the schema is brought up to date then (`migrate`).
 */
export function createPostgresPorts(options: PostgresPortsOptions): PostgresPorts {
  const pool = openPool({ url: options.url, ...(options.poolSize ? { max: options.poolSize } : {}) });
  const locks = createPostgresLocks({ url: options.url });
  const events = createPostgresEvents({ url: options.url, pool });
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      await events.close();
      await locks.close();
      await pool.end();
    })());
  const storage = createStorage({ driver: postgresStorageDriver({ pool, close }) });
  return { storage, locks, events, close };
}
