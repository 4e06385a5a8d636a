import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOutboxMailer, createReposite, LOGIN_REQUEST_KEPT_MS, LOGIN_REQUEST_TTL_SECONDS, PROCESSED_EVENTS_KEPT_MS, ProcessedEvents, SESSION_TTL_MS, STORAGE, type Reposite } from "@reposite/core";
import { postgresForTests, startPostgres } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPool, postgresStorageDriver } from "../src/index.js";

const postgres = postgresForTests();
const server = postgres.available ? await startPostgres() : null;

/** Seconds from now until `expires_at` of each row under `prefix`. */
async function secondsLeft(pool: ReturnType<typeof openPool>, prefix: string): Promise<number[]> {
  const { rows } = await pool.query<{ left: number | null }>(
    "SELECT extract(epoch FROM expires_at - now())::float AS left FROM reposite_records WHERE key LIKE $1 ORDER BY key",
    [`${prefix}%`],
  );
  return rows.map((row) => row.left ?? Number.NaN);
}

describe.skipIf(!server)("records that expire use PostgreSQL's own expiry", () => {
  let reposite: Reposite;
  let outbox: string;
  const pool = openPool({ url: server?.url ?? "postgres://unavailable", max: 1 });
  const near = (left: number[], seconds: number) => left.every((value) => Math.abs(value - seconds) < 30);

  beforeAll(async () => {
    outbox = await mkdtemp(join(tmpdir(), "reposite-expiry-outbox-"));
    reposite = createReposite({
      storage: createStorage({ driver: postgresStorageDriver({ url: server!.url }) }),
      mailer: createOutboxMailer({ dir: outbox, from: "Reposite <noreply@reposite.test>" }),
      repoHosts: [],
    });
  });
  afterAll(async () => {
    await reposite?.close();
    await pool.end();
    await server?.stop();
    await rm(outbox, { recursive: true, force: true });
  });

  it("sign-in links, login requests, processed webhook events and browser sessions carry expires_at, and no sweep index is written for them", async () => {
    await reposite.signInLinks.send("bob@example.com");
    await reposite.agentLogin.start({ client: "cli", email: "ada@example.com" }, { address: "203.0.113.7" });
    const { account } = await reposite.accounts.findOrCreate("ada@example.com");
    await reposite.sessions.create(account.id);

    await reposite.container.resolve(ProcessedEvents).once("evt_expiry1", async () => {});
    // Agent login mails a sign-in link too.
    const links = await secondsLeft(pool, "sign-in-links:");
    expect(links).toHaveLength(2);
    expect(near(links, 15 * 60)).toBe(true);
    const keptFor = LOGIN_REQUEST_TTL_SECONDS + LOGIN_REQUEST_KEPT_MS / 1000;
    for (const prefix of ["login-requests:", "login-verifications:"]) {
      const left = await secondsLeft(pool, prefix);
      expect(left, prefix).toHaveLength(1);
      expect(near(left, keptFor), `${prefix} ${left} ≈ ${keptFor}`).toBe(true);
    }
    expect(near(await secondsLeft(pool, "sessions:"), SESSION_TTL_MS / 1000)).toBe(true);
    const processed = await secondsLeft(pool, "billing-events:");
    expect(processed).toHaveLength(1);
    expect(near(processed, PROCESSED_EVENTS_KEPT_MS / 1000)).toBe(true);

    // The sweep index is for storages without an expiry of their own (rate-limit counters still use it).
    const { rows } = await pool.query<{ key: string }>("SELECT key FROM reposite_records WHERE key LIKE 'expiring:%'");
    const buckets = await Promise.all(rows.map((row) => reposite.container.resolve(STORAGE).getItem<string[][]>(row.key)));
    const noted = buckets.flatMap((bucket) => (bucket ?? []).flat());
    expect(noted.filter((key) => /^(sign-in-links|login-requests|login-verifications|billing-events):/.test(key))).toEqual([]);
  });

  it("a login request changed later keeps the time it goes at", async () => {
    const before = await secondsLeft(pool, "login-requests:");
    const [id] = (await pool.query<{ key: string }>("SELECT key FROM reposite_records WHERE key LIKE 'login-verifications:%'")).rows.map((row) => row.key.split(":")[1]!);
    const { account } = await reposite.accounts.findOrCreate("ada@example.com");
    await reposite.agentLogin.decline(id!, account);
    const after = await secondsLeft(pool, "login-requests:");
    expect(Math.abs(after[0]! - before[0]!)).toBeLessThan(5);
  });
});
