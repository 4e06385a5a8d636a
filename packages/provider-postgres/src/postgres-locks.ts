import { createInProcessLocks, type Locks } from "@reposite/core";
import type pg from "pg";
import { openPool } from "./connection.js";

export interface PostgresLocksOptions {
  /** The database (`postgres://…`); the locks open their own pool and close it on `close`. */
  url?: string;
  /** A pool to use instead of `url`; each lock held takes one of its connections for as long as it is held. */
  pool?: pg.Pool;
}

export interface PostgresLocks extends Locks {
  /** Closes the pool opened from `url` (a given `pool` is left open). */
  close(): Promise<void>;
}

/** Advisory lock keys are 64-bit numbers: names are hashed by the server, under a prefix of ours. */
const KEY = "hashtextextended('reposite:lock:' || $1, 0)";

/**
 * Locks shared by every process on the database: session advisory locks, each held on its own
 * connection while the work runs. A holder whose process dies frees its locks when its session
 * ends (at once for a killed process; within the keepalive bound, about 25 s, for a dead machine).
 * Inside one process, callers of a name take turns first (in the order they asked), so one
 * connection per name and process waits on the database.
 */
export function createPostgresLocks(options: PostgresLocksOptions): PostgresLocks {
  if (!options?.pool && !options?.url) throw new Error(`[reposite] [postgres] locks need the "url" or "pool" option.`);
  const pool = options.pool ?? openPool({ url: options.url!, max: 50 });
  const local = createInProcessLocks();
  return {
    withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
      return local.withLock(name, async () => {
        const client = await pool.connect();
        // Unless the unlock goes through, the session may still hold the lock: it is closed, not reused.
        let closeSession: Error | undefined = new Error("the lock's session was interrupted");
        try {
          await client.query(`SELECT pg_advisory_lock(${KEY})`, [name]);
          try {
            return await work();
          } finally {
            try {
              await client.query(`SELECT pg_advisory_unlock(${KEY})`, [name]);
              closeSession = undefined;
            } catch (error) {
              console.error(`[reposite] [postgres] unlocking ${name} failed; closing its session frees it:`, (error as Error).message);
            }
          }
        } finally {
          client.release(closeSession);
        }
      });
    },
    close: () => (options.pool ? Promise.resolve() : pool.end()),
  };
}
