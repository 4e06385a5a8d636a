import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { bearer, json, startHarness, type Harness, type Transport } from "./harness.js";

/** Ids as they appear in a URL path (fetch keeps these as they are; `.`/`..` it would resolve). */
const BAD_PATH_IDS = ["..%2F..", "..%5C..", "a%00b", "site_a%3Ab", "site_a%2Fb", "site_%2e%2e", "%E2%80%AE", "site_a.b", "%20"];

describe.each<Transport>(["in-process", "socket"])("bad ids and odd input are client errors (%s)", (transport) => {
  let h: Harness;
  let token: string;
  let siteId: string;
  let logged: MockInstance;

  beforeAll(async () => {
    h = await startHarness(transport);
    ({ token } = await h.signUp("ada@example.com"));
    const created = await h.call("/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli" }, token));
    siteId = ((await created.json()) as { id: string }).id;
  });
  afterAll(() => h.close());
  // The server runs in this process either way, so what it logs is seen here.
  beforeEach(() => {
    logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
  });
  afterEach(() => {
    const calls = logged.mock.calls;
    logged.mockRestore();
    expect(calls).toEqual([]);
  });

  async function answer(response: Response) {
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  const routes: [string, string, (id: string) => string, unknown?][] = [
    ["GET", "a project", (id) => `/app/sites/${id}`],
    ["PATCH", "a project", (id) => `/app/sites/${id}`, { name: "Renamed" }],
    ["DELETE", "a project", (id) => `/app/sites/${id}`],
    ["DELETE", "a project, purged", (id) => `/app/sites/${id}?purge=1`],
    ["GET", "a project's versions", (id) => `/app/sites/${id}/versions`],
    ["PUT", "a project's current page", (id) => `/app/sites/${id}/actual`, { kind: "template", version_id: "ver_0000000000000000" }],
    ["GET", "a project's members", (id) => `/app/sites/${id}/members`],
    ["GET", "a project's repository check", (id) => `/app/sites/${id}/repo-check`],
    ["POST", "a project's generation", (id) => `/app/sites/${id}/generate`, {}],
    ["POST", "a project's slug", (id) => `/app/sites/${id}/slug`, { slug: "rocket-site" }],
    ["POST", "a project's publishing", (id) => `/app/sites/${id}/publish`, {}],
    ["GET", "a page version", (id) => `/app/versions/${id}`],
    ["DELETE", "a token", (id) => `/app/tokens/${id}`],
    ["GET", "a job", (id) => `/app/jobs/${id}`],
    ["POST", "a job's cancel", (id) => `/app/jobs/${id}/cancel`],
    ["GET", "a job's stream", (id) => `/app/jobs/${id}/stream`],
  ];

  it.each(routes)("%s %s: a malformed id answers exactly as a missing one", async (method, _what, path, body) => {
    const send = (id: string) => h.call(path(id), body === undefined ? bearer(token, method) : json(body, token, method));
    const missing = await answer(await send("site_0000000000000000"));
    expect(missing.status).toBe(404);
    for (const bad of BAD_PATH_IDS) expect(await answer(await send(bad))).toEqual(missing);
  });

  it("a malformed agent login link is an unknown one (404 page)", async () => {
    const missing = await h.call("/agent/verify/verify_0000000000000000");
    expect(missing.status).toBe(404);
    for (const bad of BAD_PATH_IDS) expect((await h.call(`/agent/verify/${bad}`)).status).toBe(404);
  });

  it.each(["..", "\u0000", "login_..", "login_a/b", "login_a:b", ""])("POST /agent/token with request_id %j is 422 invalid_request, without any token", async (bad) => {
    const response = await h.call("/agent/token", json({ request_id: bad, code: "ABCD-EFGH" }));
    expect(await answer(response)).toMatchObject({ status: 422, body: { code: "invalid_request", field: "request_id" } });
  });

  it.each(["..", "\u0000", "ver_..", "ver_a%2Fb", "site_0000000000000000"])("PUT actual with version_id %j is 422 invalid_request", async (bad) => {
    const response = await h.call(`/app/sites/${siteId}/actual`, json({ kind: "template", version_id: bad }, token, "PUT"));
    expect(await answer(response)).toMatchObject({ status: 422, body: { code: "invalid_request", field: "version_id" } });
  });

  it.each(["http://127.0.0.1%2509:4103/x", "http://exa mple.com/logo.png", "https://[::1/logo.png", "http://example.com:99999/logo.png"])(
    "PATCH with logo_url %j (no valid URL) is 422 invalid_request on logo_url",
    async (logoUrl) => {
      const response = await h.call(`/app/sites/${siteId}`, json({ logo_url: logoUrl }, token, "PATCH"));
      expect(await answer(response)).toMatchObject({ status: 422, body: { code: "invalid_request", field: "logo_url" } });
    },
  );

  it("answers h3's own refusal of bad percent-encoding as 400 bad_request", async () => {
    for (const path of ["/app/sites/%E0%A4%A", "/agent/verify/%E0%A4%A", "/app/versions/%FF"]) {
      expect(await answer(await h.call(path, bearer(token)))).toEqual({
        status: 400,
        body: { error: "The request is malformed.", code: "bad_request" },
      });
    }
  });
});
