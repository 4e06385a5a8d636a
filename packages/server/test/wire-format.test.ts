import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, json, startHarness, type Harness, type Transport } from "./harness.js";

describe.each<Transport>(["in-process", "socket"])("wire format and authentication (%s)", (transport) => {
  let h: Harness;
  let token: string;
  let accountId: string;

  beforeAll(async () => {
    h = await startHarness(transport);
    ({ token, accountId } = await h.signUp("ada@example.com"));
  });
  afterAll(() => h.close());

  async function expectError(response: Response, status: number, code?: string) {
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await response.json();
    expect(typeof body.error).toBe("string");
    expect(body.error.length).toBeGreaterThan(5);
    if (code) expect(body.code).toBe(code);
    expect(body).not.toHaveProperty("stack");
    expect(body).not.toHaveProperty("status");
    return body;
  }

  it.each([
    ["no header", undefined],
    ["not bearer", "Basic YWRhOnB3"],
    ["wrong token", "Bearer rps_thisisnotarealtokenatallreallynotatall"],
    ["empty bearer", "Bearer "],
  ])("answers 401 with %s", async (_, authorization) => {
    const response = await h.call("/app/sites", authorization ? { headers: { authorization } } : {});
    await expectError(response, 401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("answers 401 for a revoked token from the very next request", async () => {
    const { secret, token: record } = await h.reposite.tokens.create(accountId, { name: "short-lived", lifetime: "30d" });
    expect((await h.call("/app/sites", bearer(secret))).status).toBe(200);
    await h.reposite.tokens.revoke(accountId, record.id);
    await expectError(await h.call("/app/sites", bearer(secret)), 401);
  });

  it("needs no token for the designs and health endpoints", async () => {
    expect((await h.call("/app/designs")).status).toBe(200);
    const health = await h.call("/healthz");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
  });

  it("answers unknown routes with a JSON 404", async () => {
    await expectError(await h.call("/no/such/route", bearer(token)), 404, "not_found");
    await expectError(await h.call("/app/sites/x/y/z", bearer(token)), 404, "not_found");
  });

  it("refuses malformed JSON with 400 invalid_json", async () => {
    const response = await h.call("/app/sites", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: '{"repohost_url": ',
    });
    await expectError(response, 400, "invalid_json");
  });

  it("refuses a body that is not JSON with 415", async () => {
    const response = await h.call("/app/sites", {
      method: "POST",
      headers: { "content-type": "text/plain", authorization: `Bearer ${token}` },
      body: "repohost_url=https://github.com/acme/rocket-cli",
    });
    await expectError(response, 415, "unsupported_media_type");
  });

  it("refuses a body over the size limit with 413", async () => {
    const response = await h.call("/app/sites", json({ repohost_url: "x".repeat(2 * 1024 * 1024) }, token));
    await expectError(response, 413, "body_too_large");
  });

  it("refuses a JSON body that is not an object", async () => {
    await expectError(await h.call("/app/sites", json([1, 2], token)), 422, "invalid_request");
  });

  it("refuses CORS preflights and never sends CORS headers", async () => {
    const preflight = await h.call("/app/sites", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    await expectError(preflight, 403, "cors_refused");
    const responses = [
      preflight,
      await h.call("/app/designs", { headers: { origin: "https://evil.example" } }),
      await h.call("/app/sites", { headers: { origin: "https://evil.example", authorization: `Bearer ${token}` } }),
      await h.call("/nowhere", { headers: { origin: "https://evil.example" } }),
    ];
    for (const response of responses) {
      for (const name of response.headers.keys()) expect(name).not.toMatch(/^access-control-/);
    }
  });

  it("does not leak internals when something unexpected fails", async () => {
    h.github.setRateLimited(true);
    try {
      const response = await h.call("/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli" }, token));
      const body = await expectError(response, 503, "repohost_rate_limited");
      expect(body.error).not.toContain(token);
    } finally {
      h.github.setRateLimited(false);
    }
  });
});
