import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startHarness, type Harness } from "./harness.js";

/**
 * A contract-bound route authenticates before it validates: a caller without a valid token learns
 * nothing about what the request should look like, and is told the one thing to fix (401).
 */
describe("a contract-bound route checks the token first", () => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startHarness("in-process");
    ({ token } = await h.signUp("first@example.com"));
  });
  afterAll(() => h.close());

  it("answers 401 to a bad body without a token, and to one with a wrong token", async () => {
    for (const auth of [undefined, "rp_not-a-real-token"]) {
      const res = await h.call("/app/sites", json({ no: "such field" }, auth));
      expect(res.status, String(auth)).toBe(401);
    }
  });

  it("answers 401 to a bad query without a token", async () => {
    const res = await h.call("/app/sites/x?purge=maybe", { method: "DELETE" });
    expect(res.status).toBe(401);
  });

  it("validates once the token is good", async () => {
    const res = await h.call("/app/sites", json({ no: "such field" }, token));
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ code: "invalid_request" });
  });
});
