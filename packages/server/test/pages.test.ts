import { safeNextPath } from "@reposite/core";
import { lastMailTo, linkIn } from "@reposite/test-support";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { escapeHtml, html } from "../src/pages/html.js";
import { bearer, startHarness, type Harness } from "./harness.js";

// The browser pages without a browser: headers, escaping, error pages, `next`, form checks.
const ORIGIN = "http://127.0.0.1:3000";
const HOST = "127.0.0.1:3000";

describe("browser pages (in-process)", () => {
  let h: Harness;
  let cookie: string;
  let csrf: string;
  let accountId: string;

  beforeAll(async () => {
    h = await startHarness("in-process");
    const { account } = await h.reposite.accounts.findOrCreate("pat@example.com");
    accountId = account.id;
    const { secret, session } = await h.reposite.sessions.create(account.id);
    cookie = `reposite_session=${secret}`;
    csrf = session.csrf;
  });
  afterAll(() => h.close());

  /** A form post as the account page would send it. */
  const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    h.call(path, {
      method: "POST",
      redirect: "manual",
      headers: { host: HOST, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded", cookie, ...headers },
      body: new URLSearchParams(fields).toString(),
    });

  function expectPageHeaders(response: Response) {
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = response.headers.get("content-security-policy") ?? "";
    const directives = Object.fromEntries(csp.split(/;\s*/).map((part) => [part.split(" ")[0], part.split(" ").slice(1).join(" ")]));
    expect(directives["default-src"]).toBe("'none'");
    expect(directives["style-src"]).toMatch(/^'sha256-[A-Za-z0-9+/]+=*'$/);
    expect(directives["form-action"]).toBe("'self'");
    expect(directives["frame-ancestors"]).toBe("'none'");
    expect(directives["base-uri"]).toBe("'none'");
    expect(csp).not.toContain("script-src");
  }

  it("sends the security headers on every page, signed in or out, and on page errors", async () => {
    const { request_id: _unused, verification_url } = await h.reposite.agentLogin.start({ client: "cli" }, { address: "10.0.0.1" });
    const verify = new URL(verification_url).pathname;
    const pages: Array<[string, RequestInit]> = [
      ["/account", {}],
      ["/account", { headers: { cookie } }],
      ["/account/billing", { headers: { cookie } }],
      ["/account/sign-in/sent", {}],
      ["/account/sign-in/confirm?token=abc", {}],
      [verify, {}],
      [verify, { headers: { cookie } }],
      ["/agent/verify/verify_unknown", { headers: { cookie } }],
      ["/admin", { headers: { cookie } }],
    ];
    for (const [path, init] of pages) {
      const response = await h.call(path, init);
      expect(response.status, path).toBeLessThan(500);
      expectPageHeaders(response);
      const body = await response.text();
      expect(body).toMatch(/^<!doctype html>\n<html lang="en">/);
      expect(body).toContain('<meta name="viewport"');
      expect(body).not.toMatch(/<script|<link /i);
    }
  });

  it("hashes exactly the inline stylesheet it sends", async () => {
    const { createHash } = await import("node:crypto");
    const response = await h.call("/account");
    const style = /<style>([\s\S]*?)<\/style>/.exec(await response.text())![1]!;
    const hash = createHash("sha256").update(style).digest("base64");
    expect(response.headers.get("content-security-policy")).toContain(`'sha256-${hash}'`);
  });

  it("answers page errors as HTML pages with their status, and API errors as JSON", async () => {
    const unknown = await h.call("/agent/verify/verify_nosuchlink", { headers: { cookie } });
    expect(unknown.status).toBe(404);
    expectPageHeaders(unknown);
    expect(await unknown.text()).toContain("This login link is not known");

    const used = await post("/account/sign-in/confirm", { token: "not-a-real-link", csrf });
    expect(used.status).toBe(410);
    expect(await used.text()).toContain("link_expired");

    // Everything else stays JSON.
    const api = await h.call("/app/tokens");
    expect(api.status).toBe(401);
    expect(api.headers.get("content-type")).toMatch(/^application\/json/);
    const unrouted = await h.call("/account/nothing-here");
    expect(unrouted.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("answers a token on the billing portal and the dashboard with JSON 403 session_required", async () => {
    const { token } = await h.signUp("scripted@example.com");
    for (const path of ["/admin", "/account/billing"]) {
      const response = await h.call(path, bearer(token));
      expect(response.status, path).toBe(403);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await response.json()).toMatchObject({ code: "session_required" });
    }
  });

  it("escapes everything interpolated into a page", async () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    const inner = html`<b>${"<i>"}</b>`;
    expect(html`<p>${inner}${["<", html`<br>`]}${null}${false}${undefined}${0}</p>`.value).toBe("<p><b>&lt;i&gt;</b>&lt;<br>0</p>");

    const { verification_url } = await h.reposite.agentLogin.start({ client: `<img src=x onerror="alert(1)">` }, { address: "10.0.0.2" });
    const body = await (await h.call(new URL(verification_url).pathname, { headers: { cookie } })).text();
    expect(body).not.toContain("<img");
    expect(body).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");

    const page = await (await h.call(`/account?next=${encodeURIComponent(`/"><script>x</script>`)}`)).text();
    expect(page).not.toContain("<script");
  });

  describe("`next` goes through safeNextPath", () => {
    const hostile = ["//evil.example", "/\\evil.example", "https://evil.example/", "/\t/evil.example", "/\n/evil.example", "javascript:alert(1)"];

    it("refuses other sites in core's safeNextPath", () => {
      for (const next of hostile) expect(safeNextPath(next), JSON.stringify(next)).toBe("/account");
      expect(safeNextPath("/agent/verify/verify_abc")).toBe("/agent/verify/verify_abc");
      expect(safeNextPath(undefined)).toBe("/account");
    });

    it("on the sign-in form, the check-email page and sign-out", async () => {
      for (const next of hostile) {
        const form = await (await h.call(`/account?next=${encodeURIComponent(next)}`)).text();
        expect(form).toContain('name="next" value="/account"');
        const sent = await (await h.call(`/account/sign-in/sent?next=${encodeURIComponent(next)}`)).text();
        expect(sent).toContain('href="/account"');
        expect(sent).not.toContain("evil");
        const { session, secret } = await h.reposite.sessions.create(accountId);
        const out = await post("/account/sign-out", { next, csrf: session.csrf }, { cookie: `reposite_session=${secret}` });
        expect(out.status).toBe(303);
        expect(out.headers.get("location")).toBe("/account");
      }
      const form = await (await h.call(`/account?next=${encodeURIComponent("/admin")}`)).text();
      expect(form).toContain('name="next" value="/admin"');
    });

    it("on the sign-in link: the mail's next is kept only when it is a path here", async () => {
      const outbox = join(h.dataDir, "outbox");
      for (const [next, expected] of [["//evil.example/x", "/account"], ["/account/billing", "/account/billing"]] as const) {
        const sent = await post("/account/sign-in", { email: "next@example.com", next }, { cookie: "" });
        expect(sent.status).toBe(303);
        expect(sent.headers.get("location")).toBe(`/account/sign-in/sent?next=${encodeURIComponent(expected)}`);
        const link = new URL(linkIn(await lastMailTo(outbox, "next@example.com")));
        const confirmed = await post("/account/sign-in/confirm", { token: link.searchParams.get("token")! }, { cookie: "" });
        expect(confirmed.status).toBe(303);
        expect(confirmed.headers.get("location")).toBe(expected);
        expect(confirmed.headers.get("set-cookie")).toMatch(/^reposite_session=[^;]+;.*HttpOnly/i);
      }
    });
  });

  describe("form posts", () => {
    it("refuses a post from another site, without an origin, or without the CSRF token", async () => {
      const before = (await h.reposite.tokens.list(accountId)).length;
      const evil = await post("/account/tokens", { name: "x", lifetime: "30d", csrf }, { origin: "https://evil.example" });
      expect(evil.status).toBe(403);
      expect(await evil.text()).toContain("cross_site_request");
      const noOrigin = await h.call("/account/tokens", {
        method: "POST",
        headers: { host: HOST, cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ name: "x", lifetime: "30d", csrf }).toString(),
      });
      expect(noOrigin.status).toBe(403);
      const noCsrf = await post("/account/tokens", { name: "x", lifetime: "30d" });
      expect(noCsrf.status).toBe(403);
      expect(await noCsrf.text()).toContain("invalid_csrf_token");
      expect((await h.reposite.tokens.list(accountId)).length).toBe(before);
    });

    it("reads only url-encoded forms, up to 64 KB", async () => {
      const json = await h.call("/account/tokens", {
        method: "POST",
        headers: { host: HOST, origin: ORIGIN, cookie, "content-type": "application/json" },
        body: JSON.stringify({ name: "x", lifetime: "30d", csrf }),
      });
      expect(json.status).toBe(415);
      expectPageHeaders(json);
      const huge = await post("/account/tokens", { name: "x".repeat(70_000), lifetime: "30d", csrf });
      expect(huge.status).toBe(413);
    });

    it("shows a refused token with the reason in the page, keeping what was typed", async () => {
      const response = await post("/account/tokens", { name: "ci", lifetime: "2y", csrf });
      expect(response.status).toBe(422);
      const body = await response.text();
      expect(body).toContain('role="alert"');
      expect(body).toContain("lifetime");
      expect(body).toContain('value="ci"');
    });

    it("shows a new token's secret in the POST answer only, never in a header", async () => {
      const response = await post("/account/tokens", { name: "deploy bot", lifetime: "90d", csrf });
      expect(response.status).toBe(201);
      expect(response.headers.get("location")).toBeNull();
      expect(response.headers.get("set-cookie")).toBeNull();
      const body = await response.text();
      const secret = /id="new-token-secret">([^<]+)</.exec(body)![1]!;
      expect(secret).toMatch(/^rps_/);
      expect((await h.reposite.tokens.authenticate(secret)).token.name).toBe("deploy bot");
      const later = await (await h.call("/account", { headers: { cookie } })).text();
      expect(later).toContain("deploy bot");
      expect(later).not.toContain(secret);
    });
  });
});
