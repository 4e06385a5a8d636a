import pg from "pg";

export interface PostgresConnectionOptions {
  /** `postgres://user:password@host:5432/database` (libpq's URL form; `?sslmode=…` is honoured by `pg`). */
  url: string;
  /** Most connections this pool opens; default 10. */
  max?: number;
}

/**
 * A pool whose sessions the server drops when their machine goes silent: TCP keepalives on both
 * sides (first probe after 10 s, then every 5 s, 3 misses), so an advisory lock held by a replica
 * whose host died frees itself within about 25 s. A killed process frees its locks at once (its
 * sockets close).
 */
export function openPool({ url, max = 10 }: PostgresConnectionOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    application_name: "reposite",
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    options: "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3",
    idleTimeoutMillis: 30_000,
  });
  // An idle connection the server closed must not crash the process; the next query opens another.
  pool.on("error", (error) => console.error("[reposite] [postgres] an idle connection failed:", error.message));
  return pool;
}

/** A single session (LISTEN, ordered NOTIFY), with the same keepalives as the pool. */
export function openClient(url: string): pg.Client {
  return new pg.Client({
    connectionString: url,
    application_name: "reposite",
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    options: "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3",
  });
}

/** Checks a REPOSITE_DATABASE_URL-like value: `postgres://` or `postgresql://` with a host. */
export function isPostgresUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "postgres:" || url.protocol === "postgresql:") && url.hostname !== "";
  } catch {
    return false;
  }
}
