import { describe, expect, it } from "vitest";
import { agentLoginSchema, agentTokenExchangeSchema, meSchema, tokenSchema } from "../src/index.js";

const token = { id: "tok_1", name: "cli", hint: "x9Zq", source: "agent", created_at: "2026-01-01 00:00:00", expires_at: null, last_used_at: null };

describe("agent login and token schemas", () => {
  it("a login needs the client's name; the email is trimmed and lower-cased", () => {
    expect(agentLoginSchema.safeParse({}).error?.issues[0]?.path).toEqual(["client"]);
    expect(agentLoginSchema.parse({ client: " Claude ", email: " Ada@Example.COM " })).toEqual({ client: "Claude", email: "ada@example.com" });
    expect(agentLoginSchema.safeParse({ client: "x", email: "not an email" }).error?.issues[0]?.path).toEqual(["email"]);
  });

  it.each(["..", "login_a/b", "login_", "ver_4k9x2m8q", ""])("the exchange refuses request_id %j (an id no login can have)", (requestId) => {
    expect(agentTokenExchangeSchema.safeParse({ request_id: requestId, code: "ABCD-EFGH" }).error?.issues[0]?.path).toEqual(["request_id"]);
  });

  it("the exchange takes a login id and a code", () => {
    expect(agentTokenExchangeSchema.safeParse({ request_id: "login_4k9x2m8q7w3n5p1z", code: "abcd-efgh" }).success).toBe(true);
  });

  it("a token as the API shows it never carries its secret or hash", () => {
    expect(tokenSchema.safeParse(token).success).toBe(true);
    expect(tokenSchema.safeParse({ ...token, hash: "ab12" }).success).toBe(false);
    expect(tokenSchema.safeParse({ ...token, secret: "rps_x" }).success).toBe(false);
    expect(tokenSchema.safeParse({ ...token, source: "browser" }).success).toBe(false);
  });

  it("me is the user, auth `token` and the token", () => {
    expect(meSchema.safeParse({ user: { id: "acct_1", email: "a@b.c" }, auth: "token", token }).success).toBe(true);
    expect(meSchema.safeParse({ user: { id: "acct_1", email: "a@b.c" }, auth: "session", token }).success).toBe(false);
  });
});
