import { createInProcessEvents, type EventBus } from "@reposite/core";
import type pg from "pg";
import { openClient, openPool } from "./connection.js";
import { migrate } from "./migrate.js";

export interface PostgresEventsOptions {
  /** The database (`postgres://…`): the bus keeps two sessions of its own (one listens, one publishes in order). */
  url: string;
  /** A pool for large payloads and the schema (shared by `createPostgresPorts`); default: one opened from `url`. */
  pool?: pg.Pool;
}

export interface PostgresEvents extends EventBus {
  /** Sends what is still queued, then closes the bus's sessions. */
  close(): Promise<void>;
}

/** The one Postgres channel every replica listens on; each event names its Reposite channel. */
const PG_CHANNEL = "reposite_events";
/** NOTIFY takes payloads below 8000 bytes; larger events go through `reposite_event_payloads`. */
const NOTIFY_LIMIT = 8000;
/** Large payloads are read within moments; older rows are deleted now and then. */
const PAYLOAD_KEEP = "10 minutes";
const CLEANUP_EVERY_MS = 60_000;
const RECONNECT_MS = 1_000;

type Notice = { c: string; e?: unknown; ref?: string };

/**
 * Publish/subscribe between every process on the database, on LISTEN/NOTIFY. All of this bus's
 * events go through one session, in the order published, and Postgres delivers a session's
 * notifications in commit order: so on one channel, listeners everywhere see the order published.
 * Like the port says, nothing is replayed: events sent while the listening session reconnects are
 * missed (jobs keep their deltas in storage).
 */
export function createPostgresEvents(options: PostgresEventsOptions): PostgresEvents {
  if (!options?.url) throw new Error(`[reposite] [postgres] events need the "url" option.`);
  const pool = options.pool ?? openPool({ url: options.url, max: 2 });
  const local = createInProcessEvents();
  let closing = false;
  let listener: pg.Client | undefined;
  let publisher: pg.Client | undefined;
  let lastCleanup = 0;

  // Notices are delivered one after another; a large one's body is fetched while earlier ones wait.
  let delivering: Promise<void> = Promise.resolve();
  const onNotice = (message: pg.Notification) => {
    if (message.channel !== PG_CHANNEL || !message.payload) return;
    let notice: Notice;
    try {
      notice = JSON.parse(message.payload) as Notice;
    } catch {
      return;
    }
    const body = notice.ref ? fetchLarge(notice.ref) : Promise.resolve(notice.e);
    delivering = delivering.then(async () => {
      try {
        local.publish(notice.c, await body);
      } catch (error) {
        console.error(`[reposite] [postgres] an event of ${notice.c} was lost:`, (error as Error).message);
      }
    });
  };
  const fetchLarge = async (ref: string) => {
    const { rows } = await pool.query<{ body: string }>("SELECT body FROM reposite_event_payloads WHERE id = $1", [ref]);
    if (!rows[0]) throw new Error(`its payload ${ref} is gone`);
    return JSON.parse(rows[0].body) as unknown;
  };

  const listen = async (): Promise<void> => {
    const client = openClient(options.url);
    client.on("notification", onNotice);
    client.on("error", (error) => {
      if (closing) return;
      console.error("[reposite] [postgres] the events session failed, reconnecting:", error.message);
      client.end().catch(() => undefined);
      if (listener === client) listener = undefined;
      setTimeout(() => void listen().catch(() => undefined), RECONNECT_MS).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${PG_CHANNEL}`);
    listener = client;
  };
  // Publishing waits until this process listens, so its own subscribers hear what it sends next.
  let ready: Promise<void> | undefined;
  const start = () =>
    (ready ??= (async () => {
      await migrate(pool);
      publisher = openClient(options.url);
      publisher.on("error", (error) => console.error("[reposite] [postgres] the publishing session failed:", error.message));
      await publisher.connect();
      await listen();
    })().catch((error) => {
      ready = undefined;
      throw error;
    }));

  const send = async (channel: string, event: unknown) => {
    await start();
    const text = JSON.stringify({ c: channel, e: event } satisfies Notice);
    if (Buffer.byteLength(text) < NOTIFY_LIMIT) {
      await publisher!.query("SELECT pg_notify($1, $2)", [PG_CHANNEL, text]);
      return;
    }
    // One statement: the notification goes out when the row is committed, so readers find it.
    await publisher!.query(
      `WITH stored AS (INSERT INTO reposite_event_payloads (body) VALUES ($2) RETURNING id)
       SELECT pg_notify($1, json_build_object('c', $3::text, 'ref', id::text)::text) FROM stored`,
      [PG_CHANNEL, JSON.stringify(event), channel],
    );
    if (Date.now() - lastCleanup > CLEANUP_EVERY_MS) {
      lastCleanup = Date.now();
      await publisher!.query(`DELETE FROM reposite_event_payloads WHERE created_at < now() - interval '${PAYLOAD_KEEP}'`);
    }
  };
  // One chain: publishes leave in the order they were made.
  let sending: Promise<void> = Promise.resolve();

  return {
    publish(channel, event) {
      sending = sending.then(() =>
        send(channel, event).catch((error) => console.error(`[reposite] [postgres] publishing on ${channel} failed:`, (error as Error).message)),
      );
    },
    subscribe(channel, listener) {
      void start().catch((error) => console.error("[reposite] [postgres] listening for events failed:", (error as Error).message));
      return local.subscribe(channel, listener);
    },
    async close() {
      await sending;
      closing = true;
      await Promise.all([listener?.end(), publisher?.end()].map((ending) => ending?.catch(() => undefined)));
      if (!options.pool) await pool.end();
    },
  };
}
