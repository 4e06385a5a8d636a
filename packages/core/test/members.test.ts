import { scryptSync } from "node:crypto";
import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { createStorage, type Storage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authRedirectRefusal,
  createReposite,
  DEFAULT_SCRYPT_PARAMS,
  hashPassword,
  MEMBER_SESSION_TTL_MS,
  MEMBER_SIGN_INS_PER_ADDRESS,
  MEMBER_SIGN_INS_PER_EMAIL,
  MembersService,
  needsRehash,
  RateLimiter,
  verifyPassword,
  type Clock,
  type Reposite,
} from "../src/index.js";

describe("member passwords", () => {
  it("encodes scrypt$N$r$p$salt$hash with a fresh salt per password, and the hash is scrypt's own", async () => {
    const encoded = await hashPassword("correct horse battery");
    expect(encoded).toMatch(/^scrypt\$32768\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
    const [, N, r, p, salt, hash] = encoded.split("$");
    // Recomputed here with node:crypto directly, from the parts the string carries.
    const expected = scryptSync("correct horse battery", Buffer.from(salt!, "base64url"), 32, {
      N: Number(N),
      r: Number(r),
      p: Number(p),
      maxmem: 256 * 1024 * 1024,
    });
    expect(Buffer.from(hash!, "base64url").equals(expected)).toBe(true);

    const again = await hashPassword("correct horse battery");
    expect(again).not.toBe(encoded);
    expect(again.split("$")[4]).not.toBe(salt);
    expect(DEFAULT_SCRYPT_PARAMS).toEqual({ N: 2 ** 15, r: 8, p: 3 });
  });

  it("verifies the right password only; malformed or absurd encodings are no match", async () => {
    const encoded = await hashPassword("s3cret-enough", { N: 2 ** 12, r: 8, p: 1 });
    expect(await verifyPassword("s3cret-enough", encoded)).toBe(true);
    expect(await verifyPassword("s3cret-enougH", encoded)).toBe(false);
    expect(await verifyPassword("", encoded)).toBe(false);
    // Typed on another keyboard: the composed and decomposed "é" are one password (NFKC).
    const accented = await hashPassword("caf\u00e9-au-lait", { N: 2 ** 12, r: 8, p: 1 });
    expect(await verifyPassword("cafe\u0301-au-lait", accented)).toBe(true);

    const [, , , , salt, hash] = encoded.split("$");
    expect(await verifyPassword("s3cret-enough", `scrypt$4096$8$1$${salt}`)).toBe(false);
    expect(await verifyPassword("s3cret-enough", `bcrypt$4096$8$1$${salt}$${hash}`)).toBe(false);
    expect(await verifyPassword("s3cret-enough", `scrypt$4095$8$1$${salt}$${hash}`)).toBe(false); // not a power of two
    expect(await verifyPassword("s3cret-enough", `scrypt$1073741824$8$1$${salt}$${hash}`)).toBe(false); // 2^30: would take gigabytes
    await expect(hashPassword("x", { N: 3, r: 8, p: 1 })).rejects.toThrow(/out of range/);

    expect(needsRehash(encoded)).toBe(true);
    expect(needsRehash(await hashPassword("another-one"))).toBe(false);
  });
});

describe("members service", () => {
  let github: FakeGitHub;
  let reposite: Reposite;
  let members: MembersService;
  let storage: Storage;
  let offset = 0;
  const clock: Clock = { now: () => new Date(Date.UTC(2026, 2, 1, 12, 0, 0) + offset) };
  let siteId: string;
  let ownerId: string;

  beforeAll(async () => {
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "widget", description: "Widgets", topics: [], readme: "# Widget" }] });
    storage = createStorage();
    reposite = createReposite({ storage, clock, github: { apiUrl: github.url, webHosts: ["github.com"] } });
    members = reposite.container.resolve(MembersService);
    const { account } = await reposite.accounts.findOrCreate("owner@example.com");
    ownerId = account.id;
    siteId = (await reposite.projects.create(ownerId, { repohost_url: "github.com/acme/widget" })).id;
  });
  afterAll(async () => {
    await reposite.close();
    await github.close();
  });

  it("registers with a normalised email and answers a view without the hash", async () => {
    const member = await members.register(siteId, { email: "  Ada@Example.COM ", password: "analytical-engine" });
    expect(member).toEqual({ id: expect.stringMatching(/^member_/), site_id: siteId, email: "ada@example.com", created_at: "2026-03-01 12:00:00", last_sign_in_at: null });
    expect(JSON.stringify(member)).not.toContain("scrypt");
    const stored = await storage.getItem<Record<string, unknown>>(`members:${siteId}:${member.id}`);
    expect(stored?.password_hash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(stored)).not.toContain("analytical-engine");
  });

  it("refuses a taken email (any case) with 409 member_exists, and bad input with 422", async () => {
    await expect(members.register(siteId, { email: "ADA@example.com", password: "another-password" })).rejects.toMatchObject({
      status: 409,
      code: "member_exists",
    });
    await expect(members.register(siteId, { email: "short@example.com", password: "1234567" })).rejects.toMatchObject({
      status: 422,
      code: "invalid_request",
      message: "password: the password needs at least 8 characters",
    });
    await expect(members.register(siteId, { email: "long@example.com", password: "x".repeat(201) })).rejects.toMatchObject({ status: 422 });
    await expect(members.register(siteId, { email: "not-an-email", password: "long-enough" })).rejects.toMatchObject({
      status: 422,
      message: "email: a valid email address is required",
    });
    // 8 and 200 characters are fine; the same email on another site is another member.
    await members.register(siteId, { email: "eight@example.com", password: "12345678" });
    await members.register(siteId, { email: "twohundred@example.com", password: "y".repeat(200) });
    const elsewhere = await members.register("site_other", { email: "ada@example.com", password: "analytical-engine" });
    expect(elsewhere.site_id).toBe("site_other");
  });

  it("signs in with the right password; unknown email and wrong password get the same 401", async () => {
    const member = await members.signIn(siteId, { email: "Ada@example.com ", password: "analytical-engine" }, { address: "203.0.113.1" });
    expect(member.email).toBe("ada@example.com");
    expect(JSON.stringify(member)).not.toContain("scrypt");

    const wrong = await members.signIn(siteId, { email: "ada@example.com", password: "difference-engine" }).catch((e: unknown) => e);
    const unknown = await members.signIn(siteId, { email: "nobody@example.com", password: "analytical-engine" }).catch((e: unknown) => e);
    const otherSite = await members.signIn("site_third", { email: "ada@example.com", password: "analytical-engine" }).catch((e: unknown) => e);
    for (const error of [wrong, unknown, otherSite]) {
      expect(error).toMatchObject({ status: 401, code: "invalid_credentials", message: "The email or password is wrong." });
    }
    await expect(members.signIn(siteId, { email: "ada@example.com", password: "" })).rejects.toMatchObject({ code: "invalid_credentials" });
    await expect(members.signIn(siteId, { email: "ada@example.com", password: "z".repeat(10_000) })).rejects.toMatchObject({ code: "invalid_credentials" });
  });

  it("limits sign-in attempts per site and email, and per client address, with 429 rate_limited", async () => {
    await members.register(siteId, { email: "grace@example.com", password: "compiler-one" });
    for (let i = 0; i < MEMBER_SIGN_INS_PER_EMAIL.max; i++) {
      await expect(members.signIn(siteId, { email: "grace@example.com", password: `guess-${i}-xx` })).rejects.toMatchObject({ status: 401 });
    }
    const limited = await members.signIn(siteId, { email: "GRACE@example.com", password: "compiler-one" }).catch((e: unknown) => e);
    expect(limited).toMatchObject({ status: 429, code: "rate_limited", details: { retry_after: expect.any(Number) } });
    // Another email on the same site, and the same email on another site, are not held back.
    await expect(members.signIn(siteId, { email: "ada@example.com", password: "analytical-engine" })).resolves.toMatchObject({ email: "ada@example.com" });
    await expect(members.signIn("site_other", { email: "grace@example.com", password: "x-whatever" })).rejects.toMatchObject({ status: 401 });
    // The window passes.
    offset += MEMBER_SIGN_INS_PER_EMAIL.windowMs;
    await expect(members.signIn(siteId, { email: "grace@example.com", password: "compiler-one" })).resolves.toMatchObject({ email: "grace@example.com" });

    // One address spraying many emails: its quota used up, even the right password waits.
    const limiter = reposite.container.resolve(RateLimiter);
    for (let i = 0; i < MEMBER_SIGN_INS_PER_ADDRESS.max; i++) await limiter.take(MEMBER_SIGN_INS_PER_ADDRESS, "198.51.100.7");
    await expect(
      members.signIn(siteId, { email: "ada@example.com", password: "analytical-engine" }, { address: "198.51.100.7" }),
    ).rejects.toMatchObject({ status: 429, code: "rate_limited" });
    await expect(
      members.signIn(siteId, { email: "ada@example.com", password: "analytical-engine" }, { address: "198.51.100.8" }),
    ).resolves.toMatchObject({ email: "ada@example.com" });
  });

  it("lists a site's members for its owner only, newest first, without hashes", async () => {
    const list = await members.list(ownerId, siteId);
    expect(list.map((m) => m.email)).toEqual(["grace@example.com", "twohundred@example.com", "eight@example.com", "ada@example.com"]);
    expect(Object.keys(list[0]!).sort()).toEqual(["created_at", "email", "id", "last_sign_in_at", "site_id"]);
    expect(JSON.stringify(list)).not.toMatch(/scrypt|password/);
    const { account: stranger } = await reposite.accounts.findOrCreate("stranger@example.com");
    await expect(members.list(stranger.id, siteId)).rejects.toMatchObject({ status: 404 });
    await expect(members.list(ownerId, "site_missing")).rejects.toMatchObject({ status: 404 });
  });

  it("counts only failed sign-ins against an email: a member who signs in often is never held back", async () => {
    const frequent = "site_frequent"; // its own site, so the other tests' member lists stay as they are
    await members.register(frequent, { email: "often@example.com", password: "every-single-day" });
    for (let i = 0; i < MEMBER_SIGN_INS_PER_EMAIL.max * 2; i++) {
      await expect(members.signIn(frequent, { email: "often@example.com", password: "every-single-day" })).resolves.toMatchObject({ email: "often@example.com" });
    }
    // A success starts the count again: nine failures after it still leave the right password through.
    for (let i = 0; i < MEMBER_SIGN_INS_PER_EMAIL.max - 1; i++) {
      await expect(members.signIn(frequent, { email: "often@example.com", password: `guess-${i}-xx` })).rejects.toMatchObject({ status: 401 });
    }
    await expect(members.signIn(frequent, { email: "often@example.com", password: "every-single-day" })).resolves.toMatchObject({ email: "often@example.com" });
  });

  it("keeps site sessions by hash for 30 days, for their own site only, until they end", async () => {
    const [ada] = (await members.list(ownerId, siteId)).filter((m) => m.email === "ada@example.com");
    const { secret, session } = await members.createSession(siteId, ada!.id);
    expect(session).toMatchObject({ site_id: siteId, member_id: ada!.id, csrf: expect.any(String) });
    expect(session.expires_at).toBe(clock.now().getTime() + MEMBER_SESSION_TTL_MS);
    const keys = await storage.getKeys("member-sessions");
    expect(keys.join(",")).not.toContain(secret);

    const found = await members.findSession(siteId, secret);
    expect(found?.member).toMatchObject({ id: ada!.id, email: "ada@example.com", last_sign_in_at: expect.stringMatching(/^2026-03-01 12:15/) });
    expect(JSON.stringify(found)).not.toContain("scrypt");
    expect(await members.findSession("site_other", secret)).toBeNull();
    expect(await members.findSession(siteId, `${secret}x`)).toBeNull();
    expect(await members.findSession(siteId, undefined)).toBeNull();

    await members.endSession(secret);
    expect(await members.findSession(siteId, secret)).toBeNull();

    const later = await members.createSession(siteId, ada!.id);
    offset += MEMBER_SESSION_TTL_MS - 1000;
    expect(await members.findSession(siteId, later.secret)).not.toBeNull();
    offset += 1000;
    expect(await members.findSession(siteId, later.secret)).toBeNull();
    await expect(members.createSession(siteId, "member_nobody")).rejects.toMatchObject({ status: 404 });
  });
});

describe("auth_redirect_to_app rule", () => {
  const published = { site_id: "site_a", pages: ["template", "auth"] as ("template" | "auth")[] };
  const running = { status: "running" as const, url: "https://a.sites.test/app/" };

  it("allows the switch with a published sign-in page and a running app", () => {
    expect(authRedirectRefusal({ id: "site_a", slug: "a-site", deployment: running }, published)).toBeNull();
  });

  it("names what is missing with 409 auth_redirect_unavailable", () => {
    const noApp = authRedirectRefusal({ id: "site_a", slug: "a-site", deployment: { ...running, status: "stopped" } }, published);
    expect(noApp).toMatchObject({ status: 409, code: "auth_redirect_unavailable", details: { missing: ["app"] } });
    const noPage = authRedirectRefusal({ id: "site_a", slug: "a-site", deployment: running }, { ...published, pages: ["template"] });
    expect(noPage).toMatchObject({ details: { missing: ["sign_in_page"] } });
    expect(noPage?.message).toMatch(/publish the site with its sign-in page/);
    expect(authRedirectRefusal({ id: "site_a", slug: null, deployment: null }, null)).toMatchObject({ details: { missing: ["sign_in_page", "app"] } });
    // Another project's snapshot at that address is not this project's sign-in page.
    expect(authRedirectRefusal({ id: "site_b", slug: "a-site", deployment: running }, published)).toMatchObject({ details: { missing: ["sign_in_page"] } });
  });
});
