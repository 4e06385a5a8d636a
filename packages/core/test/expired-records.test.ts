import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastMailTo, linkIn } from "@reposite/test-support";
import { createStorage, type Driver } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createOutboxMailer,
  createReposite,
  ExpiringRecords,
  EXPIRY_SWEEP_MS,
  JOB_RETENTION_MS,
  JOB_SETTINGS,
  JobsService,
  LOGIN_REQUEST_KEPT_MS,
  LOGIN_REQUEST_TTL_SECONDS,
  RateLimiter,
  type JobWork,
  type Reposite,
} from "../src/index.js";

/**
 * A memory store that notes every key the service touches and every listing it asks for, so a
 * test can show what a sweep reads: never the whole store.
 */
function countingStorage() {
  const inner = memoryDriver();
  const touched: string[] = [];
  const listings: string[] = [];
  const driver: Driver = {
    ...inner,
    name: "counting",
    hasItem: (key, options) => (touched.push(key), inner.hasItem(key, options)),
    getItem: (key, options) => (touched.push(key), inner.getItem(key, options)),
    setItem: (key, value, options) => (touched.push(key), inner.setItem!(key, value, options)),
    removeItem: (key, options) => (touched.push(key), inner.removeItem!(key, options)),
    getKeys: (base, options) => (listings.push(base), inner.getKeys(base, options)),
  };
  const storage = createStorage({ driver });
  return {
    storage,
    touched,
    listings,
    /** Every key in the store, read straight from the driver (the test's view, not the service's). */
    keys: async () => [...(inner.getInstance!() as Map<string, unknown>).keys()],
    reset() {
      touched.length = 0;
      listings.length = 0;
    },
  };
}

/** Lots of records that have nothing to do with what is swept. */
async function unrelatedRecords(storage: ReturnType<typeof countingStorage>["storage"], count: number) {
  for (let i = 0; i < count; i++) {
    await storage.setItem(`projects:site_${i}`, { id: `site_${i}`, name: "x".repeat(50) });
    await storage.setItem(`published-sites:slug-${i}`, { slug: `slug-${i}` });
  }
}

const EXPIRING_PREFIXES = ["login-requests:", "login-verifications:", "sign-in-links:", "rate-limits:"];
const expiringKeys = (keys: string[]) => keys.filter((key) => EXPIRING_PREFIXES.some((prefix) => key.startsWith(prefix)));

describe("expired records are removed from storage", () => {
  let dir: string;
  let reposite: Reposite;
  let store: ReturnType<typeof countingStorage>;
  const clock = { time: 0, now: () => new Date(clock.time) };
  const minutes = (n: number) => (clock.time += n * 60_000);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "reposite-expiry-"));
    clock.time = Date.parse("2026-06-01T10:00:00Z");
    store = countingStorage();
    reposite = createReposite({
      storage: store.storage,
      clock,
      repoHosts: [],
      config: { baseUrl: "https://reposite.test", dataDir: dir },
      mailer: createOutboxMailer({ dir: join(dir, "outbox"), from: "Reposite <no-reply@reposite.test>", log: () => {} }),
    });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await reposite.close();
    await rm(dir, { recursive: true, force: true });
  });

  const sweep = () => reposite.container.resolve(ExpiringRecords).sweep();

  it("removes sign-in links, login requests and rate-limit counters once their time is up, reading only the index", async () => {
    await unrelatedRecords(store.storage, 500);
    await reposite.agentLogin.start({ client: "cli", email: "ada@example.com" }, { address: "203.0.113.7" });
    await reposite.signInLinks.send("bob@example.com", { address: "203.0.113.8" });
    const written = expiringKeys(await store.keys());
    expect(written.filter((key) => key.startsWith("login-requests:"))).toHaveLength(1);
    expect(written.filter((key) => key.startsWith("login-verifications:"))).toHaveLength(1);
    expect(written.filter((key) => key.startsWith("sign-in-links:"))).toHaveLength(2);
    // Per address for logins, per client and per recipient for sign-in mail.
    expect(written.filter((key) => key.startsWith("rate-limits:"))).toHaveLength(5);

    // Sign-in links work 15 minutes: then they are gone, unused.
    minutes(LOGIN_REQUEST_TTL_SECONDS / 60 + 1);
    store.reset();
    await sweep();
    expect(store.listings).toEqual([]);
    expect(store.touched.filter((key) => !key.startsWith("expiring") && !written.includes(key))).toEqual([]);
    let left = expiringKeys(await store.keys());
    expect(left.filter((key) => key.startsWith("sign-in-links:"))).toEqual([]);
    // The request's page still says "expired" for an hour.
    expect(left.filter((key) => key.startsWith("login-requests:"))).toHaveLength(1);

    // An hour later the counters' windows have passed and the request is kept no longer.
    minutes(LOGIN_REQUEST_KEPT_MS / 60_000);
    store.reset();
    expect(await sweep()).toBeGreaterThan(0);
    expect(store.listings).toEqual([]);
    expect(store.touched.filter((key) => !key.startsWith("expiring") && !written.includes(key))).toEqual([]);
    left = expiringKeys(await store.keys());
    expect(left).toEqual([]);
    // The index is empty again: nothing is left to find.
    expect((await store.keys()).filter((key) => key.startsWith("expiring:"))).toEqual([]);
    expect(await store.storage.getItem("expiring-buckets")).toEqual([]);
  });

  it("keeps a rate-limit counter while it still counts, and removes it once its last event leaves the window", async () => {
    const limiter = reposite.container.resolve(RateLimiter);
    const limit = { name: "test-limit", max: 2, windowMs: 60 * 60_000 };
    expect(await limiter.take(limit, "key")).toEqual({ allowed: true });
    minutes(50);
    expect(await limiter.take(limit, "key")).toEqual({ allowed: true });
    expect((await limiter.take(limit, "key")).allowed).toBe(false);

    // Past the first event's window: the counter still holds the second event.
    minutes(15);
    await sweep();
    expect(expiringKeys(await store.keys())).toHaveLength(1);
    expect(await limiter.take(limit, "key")).toEqual({ allowed: true });
    expect((await limiter.take(limit, "key")).allowed).toBe(false);

    minutes(61);
    await sweep();
    expect(expiringKeys(await store.keys())).toEqual([]);
  });

  it("removes a used or expired sign-in link when it is read", async () => {
    await reposite.signInLinks.send("bob@example.com");
    const token = new URL(linkIn(await lastMailTo(join(dir, "outbox"), "bob@example.com"))).searchParams.get("token")!;
    minutes(16);
    await expect(reposite.signInLinks.consume(token)).rejects.toMatchObject({ status: 410 });
    expect((await store.keys()).filter((key) => key.startsWith("sign-in-links:"))).toEqual([]);
  });

  it("sweeps by itself every minute, with nobody calling", async () => {
    await reposite.close();
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    reposite = createReposite({ storage: store.storage, clock, repoHosts: [], config: { baseUrl: "https://reposite.test", dataDir: dir } });
    await reposite.container.resolve(RateLimiter).take({ name: "test-limit", max: 1, windowMs: 60_000 }, "key");
    expect(expiringKeys(await store.keys())).toHaveLength(1);
    minutes(3);
    await vi.advanceTimersByTimeAsync(EXPIRY_SWEEP_MS);
    await vi.waitFor(async () => expect(expiringKeys(await store.keys())).toEqual([]));
  });
});

describe("sweeping old jobs", () => {
  it("reads only the jobs, however many other records the storage holds", async () => {
    const store = countingStorage();
    await unrelatedRecords(store.storage, 1000);
    const start = Date.parse("2026-06-01T10:00:00Z");
    const clock = { time: start, now: () => new Date(clock.time) };
    const stoppedClock = { now: () => new Date(start) };
    // Two replicas (a data directory each): the stopped one's job ends by its lapsed lease, not as
    // a restart of the same replica would end it (at once).
    const dirs = [await mkdtemp(join(tmpdir(), "reposite-jobs-a-")), await mkdtemp(join(tmpdir(), "reposite-jobs-b-"))];
    let compositions = 0;
    const compose = (time: { now(): Date }) =>
      createReposite({
        storage: store.storage,
        clock: time,
        config: { dataDir: dirs[compositions++]! },
        repoHosts: [],
        register: (container) => container.register(JOB_SETTINGS, { useValue: { flushMs: 5, heartbeatMs: 600_000, staleMs: 60_000 } }),
      });
    // A process that stops while its job runs: its job is never ended there.
    const stopped = compose(stoppedClock);
    const hanging: JobWork = () => new Promise(() => {});
    const left = await stopped.jobs.start({ ownerId: "acct_1", type: "deploy" }, hanging);

    const reposite = compose(clock);
    const jobs = reposite.container.resolve(JobsService);
    try {
      const finished = await jobs.start({ ownerId: "acct_1", type: "generate" }, async (job) => job.write("hello"));
      await vi.waitFor(async () => expect((await jobs.get("acct_1", finished.job_id)).status).toBe("done"));

      clock.time += JOB_RETENTION_MS + 1_000;
      store.reset();
      await jobs.sweep();

      expect(store.listings).toEqual([]);
      const outside = store.touched.filter((key) => !/^(jobs:|job-deltas:|job-index$)/.test(key));
      expect(outside).toEqual([]);
      expect(store.touched.length).toBeLessThan(20);
      // The ended job is forgotten, the one whose process stopped ended `aborted`.
      expect(await store.storage.getItem(`jobs:${finished.job_id}`)).toBeNull();
      expect(await store.storage.getItem(`job-deltas:${finished.job_id}:0`)).toBeNull();
      expect(await store.storage.getItem(`jobs:${left.job_id}`)).toMatchObject({ status: "aborted" });
      expect(await store.storage.getItem("job-index")).toEqual([left.job_id]);

      // Ten minutes on, the aborted one is forgotten too and the index is empty.
      clock.time += JOB_RETENTION_MS + 1_000;
      await jobs.sweep();
      expect(await store.storage.getItem(`jobs:${left.job_id}`)).toBeNull();
      expect(await store.storage.getItem("job-index")).toEqual([]);
    } finally {
      await reposite.close();
      await stopped.container.resolve(ExpiringRecords).close();
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    }
  });
});
