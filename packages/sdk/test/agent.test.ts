import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type RunningServer } from "@reposite/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createClient,
  GoneError,
  PermissionDeniedError,
  RateLimitError,
} from "../src/index.js";

// Agent login and tokens through the SDK, against a real server. The person's side (opening the
// link and continuing) is played through core here; the browser tests play it in Chromium.
let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "reposite-sdk-agent-"));
  server = await startServer({
    settings: {
      listen: { port: 0, hostname: "127.0.0.1" },
      reposite: { config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" }, repoHosts: [] },
    },
  });
});
afterAll(async () => {
  await server?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const anonymous = () => createClient({ baseURL: server.url, maxRetries: 0 });

async function personContinues(verificationUrl: string, email: string) {
  const { account } = await server.reposite.accounts.findOrCreate(email);
  const page = await server.reposite.agentLogin.approve(verificationUrl.split("/").pop()!, account);
  return { account, code: page.code! };
}

describe("agent login through the SDK", () => {
  it("logs in, acts as the person, lists tokens, and logs out", async () => {
    const login = await anonymous().agent.login({ client: "sdk test agent" });
    expect(login).toMatchObject({ expires_in: 900, email_sent: false, verification_url: expect.stringContaining("/agent/verify/") });

    await expect(login.complete("BCDF-GHJK")).rejects.toSatisfy(
      (error) => ConflictError.isInstance(error) && (error as ConflictError).code === "not_opened",
    );
    const { account, code } = await personContinues(login.verification_url, "ada@example.com");
    const issued = await login.complete(code.toLowerCase());
    expect(issued).toMatchObject({ token_type: "Bearer", user: { id: account.id, email: "ada@example.com" } });

    const agent = createClient({ baseURL: server.url, token: issued.token });
    const me = await agent.agent.me();
    expect(me).toMatchObject({ user: { email: "ada@example.com" }, auth: "token", token: { id: issued.token_id, source: "agent", name: "sdk test agent" } });
    expect(me.token.expires_at).toBe(issued.expires_at);

    const tokens = await agent.tokens.list();
    expect(tokens.map((token) => token.id)).toContain(issued.token_id);
    expect(JSON.stringify(tokens)).not.toContain(issued.token);

    await agent.agent.logout();
    await expect(agent.agent.me()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it("revokes another token of the account, effective on its next request", async () => {
    const { account } = await server.reposite.accounts.findOrCreate("bob@example.com");
    const a = await server.reposite.tokens.create(account.id, { name: "a", lifetime: "30d" });
    const b = await server.reposite.tokens.create(account.id, { name: "b", lifetime: "30d" });
    const clientA = createClient({ baseURL: server.url, token: a.secret });
    const clientB = createClient({ baseURL: server.url, token: b.secret, maxRetries: 0 });
    await clientB.agent.me();
    await clientA.tokens.revoke(b.token.id);
    await expect(clientB.agent.me()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(clientA.tokens.revoke("tok_someoneelses")).rejects.toMatchObject({ status: 404 });
  });

  it("reports wrong codes with attempts_left, then expiry", async () => {
    const login = await anonymous().agent.login({ client: "guesser" });
    const { code } = await personContinues(login.verification_url, "carol@example.com");
    const wrong = code === "BBBB-BBBB" ? "CCCC-CCCC" : "BBBB-BBBB";
    const error = await login.complete(wrong).catch((caught) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, code: "invalid_code", body: { attempts_left: 4 } });
    for (let i = 0; i < 4; i++) await login.complete(wrong).catch(() => undefined);
    await expect(login.complete(code)).rejects.toBeInstanceOf(GoneError);
  });

  it("refuses a 51st working token with ConflictError token_limit", async () => {
    const { account } = await server.reposite.accounts.findOrCreate("full@example.com");
    for (let i = 0; i < 50; i++) await server.reposite.tokens.create(account.id, { name: `t${i}`, lifetime: "30d" });
    const login = await anonymous().agent.login({ client: "one too many" });
    const { code } = await personContinues(login.verification_url, "full@example.com");
    const error = await login.complete(code).catch((caught) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ status: 409, code: "token_limit" });
  });

  it("reports a declined login as PermissionDeniedError denied", async () => {
    const login = await anonymous().agent.login({ client: "unwanted" });
    const { account } = await server.reposite.accounts.findOrCreate("dave@example.com");
    await server.reposite.agentLogin.decline(login.verification_url.split("/").pop()!, account);
    await expect(login.complete("BCDFGHJK")).rejects.toMatchObject({ constructor: PermissionDeniedError, code: "denied" });
  });

  it("answers 422 for a login without client, and 429 rate_limited with Retry-After past the per-address limit", async () => {
    await expect(anonymous().agent.login({} as never)).rejects.toMatchObject({ status: 422 });
    let limited: unknown;
    for (let i = 0; i < 20 && !limited; i++) {
      await anonymous()
        .agent.login({ client: `burst ${i}` })
        .catch((error) => (limited = error));
    }
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited).toMatchObject({ code: "rate_limited" });
    expect(Number((limited as RateLimitError).headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
