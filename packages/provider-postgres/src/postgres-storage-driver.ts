import type { TransactionalDriver } from "@reposite/core";
import type pg from "pg";
import { defineDriver, type Driver } from "unstorage";
import { openPool } from "./connection.js";
import { migrate } from "./migrate.js";

export interface PostgresStorageOptions {
  /** The database (`postgres://…`); the driver opens its own pool and closes it on `dispose`. */
  url?: string;
  /** A pool to use instead of `url` (shared with locks and events by `createPostgresPorts`). */
  pool?: pg.Pool;
  /** What `dispose` lets go of; default: the pool opened from `url` (a given `pool` is left open). */
  close?: () => Promise<void>;
  /** How often expired records are deleted (they are never read once due); default 60 s. */
  sweepEveryMs?: number;
}

const DRIVER_NAME = "postgres";
const SWEEP_EVERY_MS = 60_000;

/** `LIKE` treats `%`, `_` and `\` specially; a key prefix means itself. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
/** A record whose `expires_at` has passed is gone for every read, before the sweep deletes it. */
const LIVE = "(expires_at IS NULL OR expires_at > now())";

type Run = <Row extends pg.QueryResultRow>(sql: string, values: unknown[]) => Promise<pg.QueryResult<Row>>;

/** unstorage's `ttl` option (seconds), as `expires_at`; none (or not positive) keeps the record. */
const ttlOf = (opts: { ttl?: unknown } | undefined) => (typeof opts?.ttl === "number" && opts.ttl > 0 ? opts.ttl : null);

/** The record operations, on the pool or on one transaction's session. */
function recordOperations(run: Run) {
  const read = async (key: string) => {
    const { rows } = await run<{ value: Buffer }>(`SELECT value FROM reposite_records WHERE key = $1 AND ${LIVE}`, [key]);
    return rows[0]?.value ?? null;
  };
  const write = async (key: string, value: string | Uint8Array, opts?: { ttl?: unknown }) => {
    const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.from(value);
    await run(
      `INSERT INTO reposite_records (key, value, updated_at, expires_at)
       VALUES ($1, $2, now(), now() + make_interval(secs => $3::double precision))
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, expires_at = excluded.expires_at`,
      [key, bytes, ttlOf(opts)],
    );
  };
  return {
    async hasItem(key: string) {
      const { rows } = await run(`SELECT 1 FROM reposite_records WHERE key = $1 AND ${LIVE}`, [key]);
      return rows.length > 0;
    },
    getItem: async (key: string) => (await read(key))?.toString("utf8") ?? null,
    getItemRaw: (key: string) => read(key),
    setItem: (key: string, value: string, opts: { ttl?: unknown }) => write(key, value, opts),
    setItemRaw: (key: string, value: unknown, opts: { ttl?: unknown }) => write(key, value as Uint8Array, opts),
    async removeItem(key: string) {
      await run("DELETE FROM reposite_records WHERE key = $1", [key]);
    },
    async getKeys(base: string) {
      const { rows } = await run<{ key: string }>(`SELECT key FROM reposite_records WHERE key LIKE $1 AND ${LIVE} ORDER BY key`, [likePrefix(base ?? "")]);
      return rows.map((row) => row.key);
    },
    async clear(base: string) {
      await run("DELETE FROM reposite_records WHERE key LIKE $1", [likePrefix(base ?? "")]);
    },
  };
}

/**
 * unstorage driver for records in PostgreSQL (`reposite_records`: key, value, updated_at,
 * expires_at). Every write is one statement, so a reader in any replica sees the old record or
 * the new one, and a writer killed mid-write leaves the old one. Declares two capabilities:
 * `ttl` (unstorage's option, in seconds: the record is gone for reads once due and deleted by a
 * sweep) and `transactions` (core's `withTransaction`: several writes commit together or not at
 * all). The schema is brought up to date before the first operation (`migrate`).
 */
export const postgresStorageDriver = defineDriver((options: PostgresStorageOptions) => {
  if (!options?.pool && !options?.url) throw new Error(`[unstorage] [${DRIVER_NAME}] the "url" or "pool" option is required.`);
  const pool = options.pool ?? openPool({ url: options.url! });
  let ready: Promise<unknown> | undefined;
  const migrated = () =>
    (ready ??= migrate(pool).catch((error) => {
      ready = undefined; // the database may come back: try again at the next operation
      throw error;
    }));
  const onPool: Run = async (sql, values) => {
    await migrated();
    return pool.query(sql, values);
  };

  // Expired rows are invisible already; deleting them now and then keeps the table small.
  const sweep = setInterval(() => {
    onPool(`DELETE FROM reposite_records WHERE expires_at <= now()`, []).catch((error: Error) =>
      console.error(`[reposite] [postgres] deleting expired records failed:`, error.message),
    );
  }, options.sweepEveryMs ?? SWEEP_EVERY_MS);
  sweep.unref();
  const closePool = options.close ?? (options.pool ? async () => {} : () => pool.end());

  const flags = { maxDepth: false, ttl: true, transactions: true as const };
  const driver: TransactionalDriver = {
    name: DRIVER_NAME,
    options,
    flags,
    ...recordOperations(onPool),
    async transaction(work) {
      await migrated();
      const client = await pool.connect();
      // A session whose ROLLBACK failed may still be inside the transaction: it is closed, not reused.
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const inside: Driver = {
          name: DRIVER_NAME,
          flags,
          ...recordOperations((sql, values) => client.query(sql, values)),
          // Nested calls join this transaction.
          transaction: (nested: (driver: Driver) => Promise<unknown>) => nested(inside),
        } as Driver;
        const result = await work(inside);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async dispose() {
      clearInterval(sweep);
      await closePool();
    },
  };
  return driver;
});
