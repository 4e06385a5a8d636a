import { mkdtemp, rm } from "node:fs/promises";
import { codeTestHost } from "@reposite/test-support";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite, type MailMessage, type Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { SESSION_COOKIE } from "../src/http/browser-session.js";
import { appRequestHeaders } from "../src/app-proxy/index.js";
import { MEMBER_COOKIE } from "../src/site-runtime/dynamic/index.js";

// Browser forms and session cookies, in-process (`app.request`), on a service at an http and at
// an https address: the origin check compares scheme, host and port, and on https the session
// cookies are `__Host-` cookies that no other host can plant.

/** Every `https://code.test/<owner>/<name>` is a repository: projects without a network. */

interface Rig {
  reposite: Reposite;
  app: H3;
  ownerId: string;
  siteId: string;
  mail: MailMessage[];
  /** The service's host (`reposite.test` or `reposite.test:3000`) and the published site's. */
  serviceHost: string;
  siteHost: string;
  close(): Promise<void>;
}

/** A service at `baseUrl` with one published site, `lumen`, under `sites.test`. */
async function startRig(baseUrl: string): Promise<Rig> {
  const dataDir = await mkdtemp(join(tmpdir(), "reposite-origin-"));
  const mail: MailMessage[] = [];
  const reposite = createReposite({
    storage: createStorage(),
    repoHosts: [codeTestHost],
    mailer: { send: async (message) => void mail.push(message) },
    config: { baseUrl, sitesDomain: "sites.test", dataDir },
  });
  const { account } = await reposite.accounts.findOrCreate("owner@example.com");
  const project = await reposite.projects.create(account.id, { repohost_url: "https://code.test/acme/lumen", name: "lumen" });
  await reposite.pageVersions.addCustom(account.id, project.id, { kind: "template", name: "Home", html: "<h1>Lumen</h1>" });
  const { url } = await reposite.publishing.publish(account.id, project.id, {});
  return {
    reposite,
    app: createApp(reposite),
    ownerId: account.id,
    siteId: project.id,
    mail,
    serviceHost: new URL(baseUrl).host,
    siteHost: new URL(url).host,
    async close() {
      await reposite.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A form post to `host` (the service's or the site's) as a browser sends it. */
function formPost(rig: Rig, host: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return rig.app.request(`http://${host}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { host, "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

const setCookies = (response: Response): string[] => response.headers.getSetCookie();

describe("form posts must come from the exact origin: scheme, host and port", () => {
  let http: Rig;
  let https: Rig;
  beforeAll(async () => {
    http = await startRig("http://reposite.test:3000");
    https = await startRig("https://reposite.test");
  });
  afterAll(async () => {
    await http?.close();
    await https?.close();
  });

  it("account pages on http: another scheme, port or host is 403 cross_site_request; the exact origin is accepted", async () => {
    const wrong = {
      scheme: { origin: "https://reposite.test:3000" },
      port: { origin: "http://reposite.test:3001" },
      "default port": { origin: "http://reposite.test" },
      host: { origin: "http://evil.test:3000" },
      "sibling host": { origin: "http://lumen.sites.test" },
      "referer with another scheme": { referer: "https://reposite.test:3000/account" },
      "opaque origin": { origin: "null" },
      nothing: {},
    };
    for (const [what, headers] of Object.entries(wrong)) {
      const response = await formPost(http, http.serviceHost, "/account/sign-in", { email: "ada@example.com" }, headers);
      expect(response.status, what).toBe(403);
      expect(await response.text(), what).toContain("cross_site_request");
    }
    expect(http.mail).toEqual([]);
    const exact = await formPost(http, http.serviceHost, "/account/sign-in", { email: "ada@example.com" }, { origin: "http://reposite.test:3000" });
    expect(exact.status).toBe(303);
    const byReferer = await formPost(http, http.serviceHost, "/account/sign-in", { email: "bob@example.com" }, { referer: "http://reposite.test:3000/account" });
    expect(byReferer.status).toBe(303);
    expect(http.mail.map((message) => message.to)).toEqual(["ada@example.com", "bob@example.com"]);
  });

  it("account pages on https: an http origin, or another port, is refused", async () => {
    for (const origin of ["http://reposite.test", "https://reposite.test:8443", "https://evil.test"]) {
      const response = await formPost(https, https.serviceHost, "/account/sign-in", { email: "ada@example.com" }, { origin });
      expect(response.status, origin).toBe(403);
      expect(await response.text(), origin).toContain("cross_site_request");
    }
    expect((await formPost(https, https.serviceHost, "/account/sign-in", { email: "ada@example.com" }, { origin: "https://reposite.test" })).status).toBe(303);
  });

  it("published-site forms: another scheme, port or host is 403; the site's exact origin is accepted", async () => {
    const fields = { email: "member@example.com", password: "a-long-password" };
    for (const origin of ["https://lumen.sites.test", "http://lumen.sites.test:8080", "http://evil.test", "http://other.sites.test", "http://reposite.test:3000"]) {
      const response = await formPost(http, http.siteHost, "/auth/sign-up", fields, { origin });
      expect(response.status, origin).toBe(403);
      expect(await response.text(), origin).toContain("This form was sent from another site, so it was refused.");
    }
    const onHttps = await formPost(https, https.siteHost, "/auth/sign-up", fields, { origin: "http://lumen.sites.test" });
    expect(onHttps.status).toBe(403);
    expect(await http.reposite.members.list(http.ownerId, http.siteId)).toEqual([]);

    const exact = await formPost(http, http.siteHost, "/auth/sign-up", fields, { origin: "http://lumen.sites.test" });
    expect(exact.status).toBe(303);
    const exactHttps = await formPost(https, https.siteHost, "/auth/sign-up", fields, { origin: "https://lumen.sites.test" });
    expect(exactHttps.status).toBe(303);
  });
});

describe("session cookies on https are __Host- cookies", () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig("https://reposite.test");
  });
  afterAll(() => rig?.close());

  const get = (host: string, path: string, cookie: string) => rig.app.request(`http://${host}${path}`, { redirect: "manual", headers: { host, cookie } });

  it("the account session: Set-Cookie __Host-reposite_session with Secure and Path=/, no Domain; the plain name is ignored", async () => {
    const origin = { origin: "https://reposite.test" };
    expect((await formPost(rig, rig.serviceHost, "/account/sign-in", { email: "ada@example.com" }, origin)).status).toBe(303);
    const link = new URL(/https:\/\/\S+/.exec(rig.mail.at(-1)!.text)![0]);
    const confirmed = await formPost(rig, rig.serviceHost, "/account/sign-in/confirm", { token: link.searchParams.get("token")! }, origin);
    expect(confirmed.status).toBe(303);
    const [line, ...others] = setCookies(confirmed);
    expect(others).toEqual([]);
    expect(line).toMatch(new RegExp(`^__Host-${SESSION_COOKIE}=[\\w-]{40,};`));
    expect(line).toMatch(/;\s*Secure/i);
    expect(line).toMatch(/;\s*Path=\/(;|$)/);
    expect(line).toMatch(/;\s*HttpOnly/i);
    expect(line).not.toMatch(/Domain=/i);
    const secret = /^[^=]+=([^;]+)/.exec(line!)![1]!;

    const signedIn = await get(rig.serviceHost, "/account", `__Host-${SESSION_COOKIE}=${secret}`);
    expect(await signedIn.text()).toContain("ada@example.com");
    // The same secret under the plain name, as another host's script could set it: not a session.
    const planted = await get(rig.serviceHost, "/account", `${SESSION_COOKIE}=${secret}`);
    const page = await planted.text();
    expect(page).not.toContain("ada@example.com");
    expect(page).toContain('action="/account/sign-in"');

    // Signing out clears the prefixed cookie, again Secure (browsers ignore it otherwise).
    const csrf = /name="csrf" value="([^"]+)"/.exec(await (await get(rig.serviceHost, "/account", `__Host-${SESSION_COOKIE}=${secret}`)).text())![1]!;
    const out = await formPost(rig, rig.serviceHost, "/account/sign-out", { csrf }, { ...origin, cookie: `__Host-${SESSION_COOKIE}=${secret}` });
    expect(out.status).toBe(303);
    expect(setCookies(out)[0]).toMatch(new RegExp(`^__Host-${SESSION_COOKIE}=;.*Secure`, "i"));
  });

  it("a published site's member session: __Host-reposite_member with Secure and Path=/, no Domain; the plain name is ignored", async () => {
    const response = await formPost(rig, rig.siteHost, "/auth/sign-up", { email: "member@example.com", password: "a-long-password" }, { origin: "https://lumen.sites.test" });
    expect(response.status).toBe(303);
    const [line, ...others] = setCookies(response);
    expect(others).toEqual([]);
    expect(line).toMatch(new RegExp(`^__Host-${MEMBER_COOKIE}=[\\w-]{40,};`));
    expect(line).toMatch(/;\s*Secure/i);
    expect(line).toMatch(/;\s*Path=\/(;|$)/);
    expect(line).not.toMatch(/Domain=/i);
    const secret = /^[^=]+=([^;]+)/.exec(line!)![1]!;

    const account = await get(rig.siteHost, "/auth/account", `__Host-${MEMBER_COOKIE}=${secret}`);
    expect(account.status).toBe(200);
    expect(await account.text()).toContain("member@example.com");
    const planted = await get(rig.siteHost, "/auth/account", `${MEMBER_COOKIE}=${secret}`);
    expect(planted.status).toBe(302);
    expect(planted.headers.get("location")).toBe("/auth?next=%2Fauth%2Faccount");
  });

  it("the app behind a site never receives the member cookie, under either name", () => {
    const visitor = { address: "127.0.0.1", proto: "https" as const, host: "lumen.sites.test" };
    const headers = appRequestHeaders(["Cookie", `theme=dark; __Host-${MEMBER_COOKIE}=secret; ${MEMBER_COOKIE}=other`], { method: "GET", member: null, visitor });
    expect(headers.cookie).toBe("theme=dark");
  });
});

describe("session cookies on http keep their plain names (browsers refuse __Host- without Secure)", () => {
  it("sets reposite_member without Secure on an http site", async () => {
    const rig = await startRig("http://reposite.test:3000");
    try {
      const response = await formPost(rig, rig.siteHost, "/auth/sign-up", { email: "member@example.com", password: "a-long-password" }, { origin: "http://lumen.sites.test" });
      const [line] = setCookies(response);
      expect(line).toMatch(new RegExp(`^${MEMBER_COOKIE}=`));
      expect(line).not.toMatch(/Secure/i);
    } finally {
      await rig.close();
    }
  });
});
