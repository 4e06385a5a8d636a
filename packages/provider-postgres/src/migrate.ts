import type pg from "pg";

/**
 * The schema, one step per version, applied in order and recorded in `reposite_schema_migrations`.
 * Never edit a step that shipped: add the next one. docs/deploy/postgres.md describes the tables.
 */
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: "records and large event payloads",
    sql: `
      -- Records: unstorage keys (":"-separated) and their bytes. COLLATE "C" lets the primary key's
      -- index answer prefix listings (key LIKE 'projects:%').
      CREATE TABLE reposite_records (
        key text COLLATE "C" PRIMARY KEY,
        value bytea NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      -- Events too large for NOTIFY (8000 bytes): the notification carries the row's id.
      CREATE TABLE reposite_event_payloads (
        id bigserial PRIMARY KEY,
        body text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX reposite_event_payloads_created_at ON reposite_event_payloads (created_at);
    `,
  },
  {
    version: 2,
    name: "record expiry",
    sql: `
      -- unstorage's ttl option: a record is gone for reads once expires_at has passed, and swept.
      ALTER TABLE reposite_records ADD COLUMN expires_at timestamptz;
      CREATE INDEX reposite_records_expires_at ON reposite_records (expires_at) WHERE expires_at IS NOT NULL;
    `,
  },
];

/** Replicas starting together take turns: the first applies the steps, the others find them done. */
const MIGRATION_LOCK = "reposite:migrations";

/** Brings the database's schema up to date; safe to run from several processes at once. Answers the versions applied now. */
export async function migrate(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS reposite_schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number }>("SELECT version FROM reposite_schema_migrations");
    const done = new Set(rows.map((row) => row.version));
    const applied: number[] = [];
    for (const step of MIGRATIONS) {
      if (done.has(step.version)) continue;
      await client.query(step.sql);
      await client.query("INSERT INTO reposite_schema_migrations (version, name) VALUES ($1, $2)", [step.version, step.name]);
      applied.push(step.version);
    }
    await client.query("COMMIT");
    return applied;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
