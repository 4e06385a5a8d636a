import { createStorage } from "unstorage";
import { describe, expect, it } from "vitest";
import { createReposite, MAX_WORKING_TOKENS, TOKEN_PREFIX, type Clock } from "../src/index.js";
import { hashTokenSecret, looksLikeTokenSecret } from "../src/tokens/token-secret.js";

function setup() {
  const clock = { time: new Date("2026-01-01T00:00:00Z"), now() { return new Date(this.time); } } satisfies Clock & { time: Date };
  const storage = createStorage();
  const reposite = createReposite({ storage, clock, repoHosts: [] });
  return { reposite, storage, clock };
}

const advance = (clock: { time: Date }, ms: number) => (clock.time = new Date(clock.time.getTime() + ms));

describe("tokens", () => {
  it("have the service prefix, 178 random bits and a checksum, and only their hash is stored", async () => {
    const { reposite, storage } = setup();
    const { account } = await reposite.accounts.findOrCreate("Ada@Example.com");
    const { secret, token } = await reposite.tokens.create(account.id, { name: "ci", lifetime: "30d" });
    expect(secret).toMatch(new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{36}$`));
    expect(token.hint).toBe(secret.slice(-4));
    const dump = JSON.stringify(await Promise.all((await storage.getKeys()).map(async (key) => [key, await storage.getItem(key)])));
    expect(dump).not.toContain(secret);
    expect(dump).toContain(hashTokenSecret(secret));
    const second = await reposite.tokens.create(account.id, { name: "ci", lifetime: "30d" });
    expect(second.secret).not.toBe(secret);
  });

  it("reject a secret whose checksum does not match without looking it up", () => {
    const body = "A".repeat(30);
    expect(looksLikeTokenSecret(`${TOKEN_PREFIX}${body}AAAAAA`)).toBe(false);
    expect(looksLikeTokenSecret("ghp_something")).toBe(false);
  });

  it("authenticate their owner and keep last_used_at in the API's timestamp shape", async () => {
    const { reposite, clock } = setup();
    const { account } = await reposite.accounts.findOrCreate("ada@example.com");
    const { secret, token } = await reposite.tokens.create(account.id, { name: "laptop", lifetime: "90d" });
    expect(token).toMatchObject({ last_used_at: null, expires_at: "2026-04-01 00:00:00", source: "account" });
    advance(clock, 5_000);
    const who = await reposite.tokens.authenticate(secret);
    expect(who.account.email).toBe("ada@example.com");
    expect(who.token.last_used_at).toBe("2026-01-01 00:00:05");
    expect((await reposite.tokens.list(account.id))[0]!.last_used_at).toBe("2026-01-01 00:00:05");
  });

  it("write last_used_at at most once a minute, not on every request", async () => {
    const { reposite, clock, storage } = setup();
    const { account } = await reposite.accounts.findOrCreate("ada@example.com");
    const { secret, token } = await reposite.tokens.create(account.id, { name: "busy", lifetime: "90d" });
    let writes = 0;
    const setItem = storage.setItem.bind(storage);
    storage.setItem = ((key: string, ...rest: [never]) => {
      if (key === `tokens:${token.id}`) writes++;
      return setItem(key, ...rest);
    }) as typeof storage.setItem;
    await reposite.tokens.authenticate(secret);
    for (let i = 0; i < 50; i++) {
      advance(clock, 1_000);
      await reposite.tokens.authenticate(secret);
    }
    expect(writes).toBe(1);
    advance(clock, 10_000);
    expect((await reposite.tokens.authenticate(secret)).token.last_used_at).toBe("2026-01-01 00:01:00");
    expect(writes).toBe(2);
    expect((await reposite.tokens.list(account.id))[0]!.last_used_at).toBe("2026-01-01 00:01:00");
  });

  it("never undo a revocation when a request with the token races it", async () => {
    const { reposite, clock } = setup();
    const { account } = await reposite.accounts.findOrCreate("ada@example.com");
    const { secret, token } = await reposite.tokens.create(account.id, { name: "raced", lifetime: "90d" });
    advance(clock, 120_000);
    await Promise.all([reposite.tokens.authenticate(secret), reposite.tokens.revoke(account.id, token.id)]);
    await expect(reposite.tokens.authenticate(secret)).rejects.toMatchObject({ status: 401 });
  });

  it("stop working when revoked or expired (401)", async () => {
    const { reposite, clock } = setup();
    const { account } = await reposite.accounts.findOrCreate("ada@example.com");
    const revoked = await reposite.tokens.create(account.id, { name: "a", lifetime: "never" });
    const expiring = await reposite.tokens.create(account.id, { name: "b", lifetime: "30d" });
    expect(revoked.token.expires_at).toBeNull();
    await reposite.tokens.revoke(account.id, revoked.token.id);
    await expect(reposite.tokens.authenticate(revoked.secret)).rejects.toMatchObject({ status: 401 });
    await reposite.tokens.authenticate(expiring.secret);
    advance(clock, 30 * 86_400_000);
    await expect(reposite.tokens.authenticate(expiring.secret)).rejects.toMatchObject({ status: 401 });
    await expect(reposite.tokens.authenticate(`${TOKEN_PREFIX}nonsense`)).rejects.toMatchObject({ status: 401 });
  });

  it("cannot be revoked by another account", async () => {
    const { reposite } = setup();
    const { account: ada } = await reposite.accounts.findOrCreate("ada@example.com");
    const { account: bob } = await reposite.accounts.findOrCreate("bob@example.com");
    const { secret, token } = await reposite.tokens.create(ada.id, { name: "a", lifetime: "30d" });
    await expect(reposite.tokens.revoke(bob.id, token.id)).rejects.toMatchObject({ status: 404 });
    await expect(reposite.tokens.authenticate(secret)).resolves.toBeTruthy();
  });

  it(`are limited to ${MAX_WORKING_TOKENS} working ones per account; revoking one makes room`, async () => {
    const { reposite } = setup();
    const { account } = await reposite.accounts.findOrCreate("ada@example.com");
    const created = await Promise.all(
      Array.from({ length: MAX_WORKING_TOKENS }, (_, i) => reposite.tokens.create(account.id, { name: `t${i}`, lifetime: "30d" })),
    );
    await expect(reposite.tokens.create(account.id, { name: "one more", lifetime: "30d" })).rejects.toMatchObject({
      status: 409,
      code: "token_limit",
    });
    await reposite.tokens.revoke(account.id, created[0]!.token.id);
    await expect(reposite.tokens.create(account.id, { name: "one more", lifetime: "30d" })).resolves.toBeTruthy();
  });

  it("validate name and lifetime", async () => {
    const { reposite } = setup();
    const { account } = await reposite.accounts.findOrCreate("ada@example.com");
    await expect(reposite.tokens.create(account.id, { name: " ", lifetime: "30d" })).rejects.toMatchObject({ status: 422, code: "invalid_request" });
    await expect(reposite.tokens.create(account.id, { name: "x", lifetime: "2d" as never })).rejects.toMatchObject({ status: 422 });
  });
});

describe("accounts", () => {
  it("are found by email whatever its case, and created once when two requests race", async () => {
    const { reposite } = setup();
    const [a, b] = await Promise.all([
      reposite.accounts.findOrCreate("Ada@Example.com"),
      reposite.accounts.findOrCreate("ada@example.com "),
    ]);
    expect(a.account.id).toBe(b.account.id);
    expect([a.created, b.created].sort()).toEqual([false, true]);
    expect((await reposite.accounts.findByEmail("ADA@example.com"))?.id).toBe(a.account.id);
    await expect(reposite.accounts.findOrCreate("not an email")).rejects.toMatchObject({ status: 422 });
  });
});
