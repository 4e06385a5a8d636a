import { createStorage, type Storage } from "unstorage";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createInProcessEvents,
  createReposite,
  EVENTS,
  MEMBER_SESSION_CACHE_SETTINGS,
  MEMBER_SESSION_TTL_MS,
  MemberSessionCache,
  MembersService,
  type Clock,
  type EventBus,
  type Reposite,
} from "../src/index.js";

type TestClock = Clock & { time: number };
const newClock = (): TestClock => ({
  time: Date.parse("2026-03-04T05:06:07Z"),
  now() {
    return new Date(this.time);
  },
});

const READS = ["getItem", "getItems", "getItemRaw", "hasItem", "getKeys"] as const;

/** A Reposite on memory storage with a clock the test moves; `events` and `storage` may be shared (replicas). */
function compose(options: { storage?: Storage; events?: EventBus; clock?: TestClock; ttlMs?: number } = {}) {
  const storage = options.storage ?? createStorage();
  const clock = options.clock ?? newClock();
  const reposite = createReposite({
    storage,
    clock,
    repoHosts: [],
    events: options.events ?? createInProcessEvents(),
    register: (container) => {
      if (options.ttlMs !== undefined) container.register(MEMBER_SESSION_CACHE_SETTINGS, { useValue: { ttlMs: options.ttlMs } });
    },
  });
  const spies = READS.map((method) => vi.spyOn(storage, method));
  return {
    reposite,
    storage,
    clock,
    members: reposite.container.resolve(MembersService),
    cache: reposite.container.resolve(MemberSessionCache),
    reads: () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0),
    resetReads: () => spies.forEach((spy) => spy.mockClear()),
  };
}

const SITE = "site_aaaa1111";
const OTHER_SITE = "site_bbbb2222";

async function signedIn(rig: ReturnType<typeof compose>, email = "ada@example.com", siteId = SITE) {
  const member = await rig.members.register(siteId, { email, password: "analytical-engine" });
  const { secret, session } = await rig.members.createSession(siteId, member.id);
  return { member, secret, session };
}

describe("member sessions in memory (MemberSessionCache)", () => {
  const open: Reposite[] = [];
  afterEach(async () => {
    for (const reposite of open.splice(0)) await reposite.close();
    vi.restoreAllMocks();
  });
  const rig = (options?: Parameters<typeof compose>[0]) => {
    const made = compose(options);
    open.push(made.reposite);
    return made;
  };

  it("is one composition-wide cache: the container hands out the same instance", () => {
    const { reposite, cache } = rig();
    expect(reposite.container.resolve(MemberSessionCache)).toBe(cache);
  });

  it("reads storage once for a session, then answers from memory only", async () => {
    const r = rig();
    const { member, secret } = await signedIn(r);
    expect(r.cache.peek(SITE, secret)).toBeUndefined();

    r.resetReads();
    const first = await r.cache.find(SITE, secret);
    expect(first?.member.id).toBe(member.id);
    expect(r.reads()).toBeGreaterThan(0);

    r.resetReads();
    for (let i = 0; i < 50; i++) {
      expect(r.cache.peek(SITE, secret)?.member.email).toBe("ada@example.com");
      expect((await r.cache.find(SITE, secret))?.member.id).toBe(member.id);
    }
    expect(r.reads()).toBe(0);
  });

  it("shares one storage read between concurrent first requests", async () => {
    const r = rig();
    const { secret } = await signedIn(r);
    const findSession = vi.spyOn(r.members, "findSession");
    const answers = await Promise.all(Array.from({ length: 20 }, () => r.cache.find(SITE, secret)));
    expect(answers.every((answer) => answer?.member.email === "ada@example.com")).toBe(true);
    expect(findSession).toHaveBeenCalledTimes(1);
  });

  it("drops a session at once on sign-out, and then knows it is gone", async () => {
    const r = rig();
    const { secret } = await signedIn(r);
    await r.cache.find(SITE, secret);
    expect(r.cache.peek(SITE, secret)).not.toBeNull();

    await r.members.endSession(secret);
    expect(r.cache.peek(SITE, secret)).toBeUndefined();
    expect(await r.cache.find(SITE, secret)).toBeNull();
    expect(r.cache.peek(SITE, secret)).toBeNull();
  });

  it("drops every session of a site when its members are removed", async () => {
    const r = rig();
    const ada = await signedIn(r, "ada@example.com");
    const bob = await signedIn(r, "bob@example.com");
    const elsewhere = await signedIn(r, "eve@example.com", OTHER_SITE);
    for (const [site, secret] of [[SITE, ada.secret], [SITE, bob.secret], [OTHER_SITE, elsewhere.secret]] as const) await r.cache.find(site, secret);

    await r.members.purgeSite(SITE);
    expect(r.cache.peek(SITE, ada.secret)).toBeUndefined();
    expect(r.cache.peek(SITE, bob.secret)).toBeUndefined();
    expect(await r.cache.find(SITE, ada.secret)).toBeNull();
    expect(r.cache.peek(OTHER_SITE, elsewhere.secret)?.member.email).toBe("eve@example.com");
  });

  it("believes a checked session for the TTL only, and never past the session's own end", async () => {
    const r = rig({ ttlMs: 30_000 });
    const { secret, session } = await signedIn(r);
    await r.cache.find(SITE, secret);
    r.clock.time += 29_000;
    expect(r.cache.peek(SITE, secret)).not.toBeUndefined();
    r.clock.time += 2_000;
    expect(r.cache.peek(SITE, secret)).toBeUndefined();
    r.resetReads();
    expect(await r.cache.find(SITE, secret)).not.toBeNull();
    expect(r.reads()).toBeGreaterThan(0);

    // A TTL longer than the session: the entry still ends with the session.
    const long = rig({ ttlMs: 10 * MEMBER_SESSION_TTL_MS });
    const late = await signedIn(long);
    await long.cache.find(SITE, late.secret);
    long.clock.time = late.session.expires_at - 1;
    expect(long.cache.peek(SITE, late.secret)).not.toBeUndefined();
    long.clock.time = late.session.expires_at;
    expect(long.cache.peek(SITE, late.secret)).toBeUndefined();
    expect(await long.cache.find(SITE, late.secret)).toBeNull();
    expect(session.expires_at).toBeGreaterThan(0);
  });

  it("remembers unknown secrets and other sites' sessions as no session, one read per TTL", async () => {
    const r = rig({ ttlMs: 30_000 });
    const { secret } = await signedIn(r);
    expect(r.cache.peek(SITE, undefined)).toBeNull();
    expect(r.cache.peek(SITE, "x".repeat(201))).toBeNull();

    r.resetReads();
    expect(await r.cache.find(SITE, "made-up-secret")).toBeNull();
    const once = r.reads();
    expect(once).toBeGreaterThan(0);
    for (let i = 0; i < 20; i++) expect(await r.cache.find(SITE, "made-up-secret")).toBeNull();
    expect(r.reads()).toBe(once);

    // The cookie of one site means nothing on another.
    expect(await r.cache.find(OTHER_SITE, secret)).toBeNull();
    expect((await r.cache.find(SITE, secret))?.member.email).toBe("ada@example.com");
  });

  it("keeps no answer read while the session ended", async () => {
    const r = rig();
    const { secret } = await signedIn(r);
    const original = r.members.findSession.bind(r.members);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    vi.spyOn(r.members, "findSession").mockImplementationOnce(async (siteId, value) => {
      const answer = await original(siteId, value);
      await gate;
      return answer;
    });
    const pending = r.cache.find(SITE, secret);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await r.members.endSession(secret);
    release();
    expect(await pending).not.toBeNull(); // read before the sign-out: that request may pass
    expect(r.cache.peek(SITE, secret)).toBeUndefined(); // but it is not remembered
    expect(await r.cache.find(SITE, secret)).toBeNull();
  });

  it("follows a sign-out on another replica through the shared events port", async () => {
    const storage = createStorage();
    const events = createInProcessEvents();
    const a = rig({ storage, events });
    const b = rig({ storage, events, clock: a.clock });
    const { secret } = await signedIn(a);
    expect((await b.cache.find(SITE, secret))?.member.email).toBe("ada@example.com");

    await a.members.endSession(secret);
    expect(b.cache.peek(SITE, secret)).toBeUndefined();
    expect(await b.cache.find(SITE, secret)).toBeNull();
  });

  it("stays within maxEntries, forgetting the oldest", async () => {
    const r = rig();
    const small = new MemberSessionCache(r.members, r.reposite.container.resolve(EVENTS), r.clock, { maxEntries: 3 });
    for (let i = 0; i < 5; i++) await small.find(SITE, `unknown-${i}`);
    expect(small.size()).toBe(3);
    expect(small.peek(SITE, "unknown-0")).toBeUndefined();
    expect(small.peek(SITE, "unknown-4")).toBeNull();
    small.close();
  });
});

describe("sign-out events", () => {
  it("carry the hash of the secret, never the secret", async () => {
    const events = createInProcessEvents();
    const seen: unknown[] = [];
    events.subscribe("members:sessions-ended", (event) => seen.push(event));
    const reposite = createReposite({ storage: createStorage(), repoHosts: [], register: (c) => c.register(EVENTS, { useValue: events }) });
    try {
      const members = reposite.container.resolve(MembersService);
      const member = await members.register(SITE, { email: "ada@example.com", password: "analytical-engine" });
      const { secret } = await members.createSession(SITE, member.id);
      await members.endSession(secret);
      expect(seen).toHaveLength(1);
      expect(JSON.stringify(seen)).not.toContain(secret);
      expect(seen[0]).toEqual({ session: expect.stringMatching(/^[0-9a-f]{64}$/) });
    } finally {
      await reposite.close();
    }
  });
});
