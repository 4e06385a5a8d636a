import type pg from "pg";
import { defineDriver } from "unstorage";
import { openPool } from "./connection.js";
import { migrate } from "./migrate.js";

export interface PostgresStorageOptions {
  /** The database (`postgres://…`); the driver opens its own pool and closes it on `dispose`. */
  url?: string;
  /** A pool to use instead of `url` (shared with locks and events by `createPostgresPorts`). */
  pool?: pg.Pool;
  /** What `dispose` lets go of; default: the pool opened from `url` (a given `pool` is left open). */
  close?: () => Promise<void>;
}

const DRIVER_NAME = "postgres";

/** `LIKE` treats `%`, `_` and `\` specially; a key prefix means itself. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/**
 * unstorage driver for records in PostgreSQL (`reposite_records`: key, value, updated_at). Every
 * write is one statement, so a reader in any replica sees the old record or the new one, and a
 * writer killed mid-write leaves the old one. The schema is brought up to date before the first
 * operation (`migrate`).
 */
export const postgresStorageDriver = defineDriver((options: PostgresStorageOptions) => {
  if (!options?.pool && !options?.url) throw new Error(`[unstorage] [${DRIVER_NAME}] the "url" or "pool" option is required.`);
  const pool = options.pool ?? openPool({ url: options.url! });
  const close = options.close ?? (options.pool ? async () => {} : () => pool.end());
  let ready: Promise<unknown> | undefined;
  const query = async <Row extends pg.QueryResultRow>(sql: string, values: unknown[]) => {
    await (ready ??= migrate(pool).catch((error) => {
      ready = undefined; // the database may come back: try again at the next operation
      throw error;
    }));
    return pool.query<Row>(sql, values);
  };

  const read = async (key: string) => {
    const { rows } = await query<{ value: Buffer }>("SELECT value FROM reposite_records WHERE key = $1", [key]);
    return rows[0]?.value ?? null;
  };
  const write = async (key: string, value: string | Uint8Array) => {
    const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.from(value);
    await query(
      `INSERT INTO reposite_records (key, value, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      [key, bytes],
    );
  };

  return {
    name: DRIVER_NAME,
    options,
    async hasItem(key) {
      const { rows } = await query("SELECT 1 FROM reposite_records WHERE key = $1", [key]);
      return rows.length > 0;
    },
    getItem: async (key) => (await read(key))?.toString("utf8") ?? null,
    getItemRaw: (key) => read(key),
    setItem: (key, value) => write(key, value),
    setItemRaw: (key, value) => write(key, value as Uint8Array),
    async removeItem(key) {
      await query("DELETE FROM reposite_records WHERE key = $1", [key]);
    },
    async getKeys(base) {
      const { rows } = await query<{ key: string }>("SELECT key FROM reposite_records WHERE key LIKE $1 ORDER BY key", [likePrefix(base ?? "")]);
      return rows.map((row) => row.key);
    },
    async clear(base) {
      await query("DELETE FROM reposite_records WHERE key LIKE $1", [likePrefix(base ?? "")]);
    },
    dispose: () => close(),
  };
});
