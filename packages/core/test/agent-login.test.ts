import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastMailTo, linkIn, readOutbox } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CODE_ALPHABET,
  createOutboxMailer,
  createReposite,
  LOGINS_PER_ADDRESS_PER_HOUR,
  MAX_WORKING_TOKENS,
  SIGN_IN_EMAILS_PER_HOUR,
  type Mailer,
  type Reposite,
} from "../src/index.js";

let dir: string;
let reposite: Reposite;
let clock: { time: number; now(): Date };
const origin = { address: "203.0.113.7" };

function compose(mailer?: Mailer) {
  clock = { time: Date.parse("2026-03-01T10:00:00Z"), now: () => new Date(clock.time) };
  return createReposite({
    storage: createStorage(),
    clock,
    repoHosts: [],
    config: { baseUrl: "https://reposite.test", dataDir: dir },
    mailer: mailer ?? createOutboxMailer({ dir: join(dir, "outbox"), from: "Reposite <no-reply@reposite.test>", log: () => {} }),
  });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "reposite-agent-"));
  reposite = compose();
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** The person's side: the verification id from the URL, and a signed-in account. */
async function person(email: string) {
  return (await reposite.accounts.findOrCreate(email)).account;
}
const verificationId = (url: string) => url.split("/").pop()!;

describe("agent login", () => {
  it("starts a request without email: the person opens the link, continues, reads the code; the agent gets a 90-day agent token", async () => {
    const started = await reposite.agentLogin.start({ client: "Claude Code" }, origin);
    expect(started).toMatchObject({
      request_id: expect.stringMatching(/^login_/),
      verification_url: expect.stringMatching(/^https:\/\/reposite\.test\/agent\/verify\/verify_/),
      expires_in: 900,
      email_sent: false,
      next_step: expect.stringContaining(started.verification_url),
    });
    expect(started).not.toHaveProperty("email_error");
    expect(started.verification_url).not.toContain(started.request_id);

    const ada = await person("ada@example.com");
    const vid = verificationId(started.verification_url);
    expect(await reposite.agentLogin.page(vid, ada)).toMatchObject({ client: "Claude Code", status: "pending", code: null });
    await expect(reposite.agentLogin.exchange({ request_id: started.request_id, code: "BCDF-GHJK" })).rejects.toMatchObject({
      status: 409,
      code: "not_opened",
    });

    const page = await reposite.agentLogin.approve(vid, ada);
    expect(page.code).toMatch(new RegExp(`^[${CODE_ALPHABET}]{4}-[${CODE_ALPHABET}]{4}$`));

    const spoken = page.code!.toLowerCase().replace("-", " ");
    const issued = await reposite.agentLogin.exchange({ request_id: started.request_id, code: spoken });
    expect(issued).toMatchObject({
      token: expect.stringMatching(/^rps_/),
      token_type: "Bearer",
      token_id: expect.stringMatching(/^tok_/),
      expires_at: "2026-05-30 10:00:00",
      user: { id: ada.id, email: "ada@example.com" },
    });
    const who = await reposite.tokens.authenticate(issued.token);
    expect(who.token).toMatchObject({ source: "agent", name: "Claude Code" });

    await expect(reposite.agentLogin.exchange({ request_id: started.request_id, code: page.code! })).rejects.toMatchObject({
      status: 410,
      code: "expired",
    });
  });

  it("counts wrong codes: 400 invalid_code with attempts_left, then 410 after five", async () => {
    const started = await reposite.agentLogin.start({ client: "cli" }, origin);
    const page = await reposite.agentLogin.approve(verificationId(started.verification_url), await person("ada@example.com"));
    const wrong = page.code === "BBBB-BBBB" ? "CCCC-CCCC" : "BBBB-BBBB";
    for (let left = 4; left >= 1; left--) {
      await expect(reposite.agentLogin.exchange({ request_id: started.request_id, code: wrong })).rejects.toMatchObject({
        status: 400,
        code: "invalid_code",
        details: { attempts_left: left },
      });
    }
    await expect(reposite.agentLogin.exchange({ request_id: started.request_id, code: wrong })).rejects.toMatchObject({ status: 410, code: "expired" });
    await expect(reposite.agentLogin.exchange({ request_id: started.request_id, code: page.code! })).rejects.toMatchObject({ status: 410 });
  });

  it("expires after 15 minutes", async () => {
    const started = await reposite.agentLogin.start({ client: "cli" }, origin);
    const ada = await person("ada@example.com");
    const page = await reposite.agentLogin.approve(verificationId(started.verification_url), ada);
    clock.time += 900_000;
    await expect(reposite.agentLogin.exchange({ request_id: started.request_id, code: page.code! })).rejects.toMatchObject({ status: 410, code: "expired" });
    expect((await reposite.agentLogin.page(verificationId(started.verification_url), ada)).status).toBe("expired");
    await expect(reposite.agentLogin.exchange({ request_id: "login_unknown", code: "BCDFGHJK" })).rejects.toMatchObject({ status: 410 });
  });

  it("answers 403 denied once the person declines, and revokes a token already issued", async () => {
    const ada = await person("ada@example.com");
    const before = await reposite.agentLogin.start({ client: "cli" }, origin);
    await reposite.agentLogin.decline(verificationId(before.verification_url), ada);
    await expect(reposite.agentLogin.exchange({ request_id: before.request_id, code: "BCDFGHJK" })).rejects.toMatchObject({ status: 403, code: "denied" });

    const after = await reposite.agentLogin.start({ client: "cli" }, origin);
    const page = await reposite.agentLogin.approve(verificationId(after.verification_url), ada);
    const issued = await reposite.agentLogin.exchange({ request_id: after.request_id, code: page.code! });
    await reposite.tokens.authenticate(issued.token);
    await reposite.agentLogin.decline(verificationId(after.verification_url), ada);
    await expect(reposite.tokens.authenticate(issued.token)).rejects.toMatchObject({ status: 401 });
  });

  it("does not let another account take back a request the person approved", async () => {
    const started = await reposite.agentLogin.start({ client: "cli" }, origin);
    const page = await reposite.agentLogin.approve(verificationId(started.verification_url), await person("ada@example.com"));
    await reposite.agentLogin.decline(verificationId(started.verification_url), await person("mallory@example.com"));
    await expect(reposite.agentLogin.exchange({ request_id: started.request_id, code: page.code! })).resolves.toMatchObject({ token_type: "Bearer" });
  });

  it("with an email: mails a sign-in link that leads to the verification page, and refuses another account (409 wrong_account)", async () => {
    const started = await reposite.agentLogin.start({ client: "cli", email: "Ada@Example.com" }, origin);
    expect(started).toMatchObject({ email_sent: true, next_step: expect.stringContaining("ada@example.com") });
    const mail = await lastMailTo(join(dir, "outbox"), "ada@example.com");
    expect(mail.text).toContain('"cli" asks');
    const link = new URL(linkIn(mail));
    const { account, next } = await reposite.signInLinks.consume(link.searchParams.get("token")!);
    expect(account.email).toBe("ada@example.com");
    expect(next).toBe(new URL(started.verification_url).pathname);

    const mallory = await person("mallory@example.com");
    const seen = await reposite.agentLogin.approve(verificationId(started.verification_url), mallory);
    expect(seen).toMatchObject({ wrong_account: true, code: null });
    await expect(reposite.agentLogin.exchange({ request_id: started.request_id, code: "BCDFGHJK" })).rejects.toMatchObject({
      status: 409,
      code: "wrong_account",
    });
    const page = await reposite.agentLogin.approve(verificationId(started.verification_url), account);
    await expect(reposite.agentLogin.exchange({ request_id: started.request_id, code: page.code! })).resolves.toMatchObject({
      user: { email: "ada@example.com" },
    });
  });

  it("limits sign-in emails per address: past the limit email_sent is false with the reason", async () => {
    for (let i = 0; i < SIGN_IN_EMAILS_PER_HOUR; i++) {
      expect((await reposite.agentLogin.start({ client: "cli", email: "ada@example.com" }, { address: `198.51.100.${i}` })).email_sent).toBe(true);
    }
    const limited = await reposite.agentLogin.start({ client: "cli", email: "ada@example.com" }, { address: "198.51.100.99" });
    expect(limited).toMatchObject({ email_sent: false, email_error: expect.stringContaining("Too many sign-in emails") });
    expect((await readOutbox(join(dir, "outbox"))).length).toBe(SIGN_IN_EMAILS_PER_HOUR);
    clock.time += 3_600_000;
    expect((await reposite.agentLogin.start({ client: "cli", email: "ada@example.com" }, origin)).email_sent).toBe(true);
  });

  it("says so when the mail cannot be sent", async () => {
    reposite = compose({ send: async () => { throw new Error("connection refused"); } });
    const started = await reposite.agentLogin.start({ client: "cli", email: "ada@example.com" }, origin);
    expect(started).toMatchObject({ email_sent: false, email_error: "The email could not be sent." });
  });

  it("limits logins started from one address (429 rate_limited)", async () => {
    for (let i = 0; i < LOGINS_PER_ADDRESS_PER_HOUR; i++) await reposite.agentLogin.start({ client: "cli" }, origin);
    await expect(reposite.agentLogin.start({ client: "cli" }, origin)).rejects.toMatchObject({ status: 429, code: "rate_limited" });
    await expect(reposite.agentLogin.start({ client: "cli" }, { address: "203.0.113.8" })).resolves.toBeTruthy();
  });

  it("answers 409 token_limit when the account has no room for another token", async () => {
    const ada = await person("ada@example.com");
    for (let i = 0; i < MAX_WORKING_TOKENS; i++) await reposite.tokens.create(ada.id, { name: `t${i}`, lifetime: "30d" });
    const started = await reposite.agentLogin.start({ client: "cli" }, origin);
    const page = await reposite.agentLogin.approve(verificationId(started.verification_url), ada);
    await expect(reposite.agentLogin.exchange({ request_id: started.request_id, code: page.code! })).rejects.toMatchObject({
      status: 409,
      code: "token_limit",
    });
  });

  it("validates its input", async () => {
    await expect(reposite.agentLogin.start({}, origin)).rejects.toMatchObject({ status: 422 });
    await expect(reposite.agentLogin.start({ client: "x", email: "nope" }, origin)).rejects.toMatchObject({ status: 422 });
    await expect(reposite.agentLogin.exchange({ request_id: "x" })).rejects.toMatchObject({ status: 422 });
  });
});

describe("sign-in links and sessions", () => {
  it("work once, for 15 minutes, and only redirect within the server", async () => {
    await reposite.signInLinks.send("bob@example.com", { next: "https://evil.example/steal" });
    const first = new URL(linkIn(await lastMailTo(join(dir, "outbox"), "bob@example.com"))).searchParams.get("token")!;
    const { account, next } = await reposite.signInLinks.consume(first);
    expect(next).toBe("/account");
    expect(account.email).toBe("bob@example.com");
    await expect(reposite.signInLinks.consume(first)).rejects.toMatchObject({ status: 410, code: "link_expired" });

    await reposite.signInLinks.send("bob@example.com", { next: "//evil.example" });
    const second = new URL(linkIn(await lastMailTo(join(dir, "outbox"), "bob@example.com"))).searchParams.get("token")!;
    clock.time += 15 * 60_000;
    await expect(reposite.signInLinks.consume(second)).rejects.toMatchObject({ status: 410 });
  });

  it("sessions find their account until they expire or are destroyed", async () => {
    const ada = await person("ada@example.com");
    const { secret, session } = await reposite.sessions.create(ada.id);
    expect(session.csrf).toHaveLength(43);
    expect((await reposite.sessions.find(secret))?.account.id).toBe(ada.id);
    expect(await reposite.sessions.find("nonsense")).toBeNull();
    await reposite.sessions.destroy(secret);
    expect(await reposite.sessions.find(secret)).toBeNull();
    const other = await reposite.sessions.create(ada.id);
    clock.time += 31 * 86_400_000;
    expect(await reposite.sessions.find(other.secret)).toBeNull();
  });
});
