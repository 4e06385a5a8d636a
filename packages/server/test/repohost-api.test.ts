import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite, type Reposite, type RepoHostAuthorizer } from "@reposite/core";
import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import type { H3 } from "h3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app.js";
import { bearer, DEFAULT_REPOS, json } from "./harness.js";

const CLIENT = { clientId: "Iv1.serverclient01", clientSecret: "server-client-secret-01" };
const BASE = "http://127.0.0.1:3000";
const PRIVATE = "https://github.com/acme/secret-sauce";

let github: FakeGitHub;
let dataDir: string;
let reposite: Reposite;
let app: H3;

/** Reposite with a GitHub OAuth app (or the authorizers given), behind the whole app. */
function compose(authorizers?: RepoHostAuthorizer[]): void {
  reposite = createReposite({
    config: { dataDir, baseUrl: BASE, sitesDomain: "sites.test" },
    github: { apiUrl: github.url, webHosts: ["github.com"] },
    githubOAuth: { ...CLIENT, webUrl: github.webUrl },
    ...(authorizers ? { repoHostAuthorizers: authorizers } : {}),
  });
  app = createApp(reposite);
}

const call = async (path: string, init?: RequestInit) => app.request(`${BASE}${path}`, init);

async function signUp(email: string) {
  const { account } = await reposite.accounts.findOrCreate(email);
  const { secret } = await reposite.tokens.create(account.id, { name: "test", lifetime: "30d" });
  return { token: secret, accountId: account.id };
}

/** The person opens the authorize URL; the fake approves at once and sends the browser back. */
async function followAuthorize(url: string): Promise<string> {
  const response = await fetch(url, { redirect: "manual" });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(`${BASE}/app/repohost/callback`);
  return `${location.pathname}${location.search}`;
}

async function startConnect(token: string): Promise<string> {
  const response = await call("/app/repohost/connect", json({ repo: PRIVATE }, token));
  expect(response.status).toBe(200);
  const { url } = (await response.json()) as { url: string };
  return url;
}

beforeEach(async () => {
  github = await startFakeGitHub({ repos: DEFAULT_REPOS, oauth: { ...CLIENT, autoApprove: true } });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-repohost-"));
  compose();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await reposite.close();
  await github.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("repository access over HTTP", () => {
  it("connects, sees the private repository (and makes a project of it), disconnects and revokes at GitHub", async () => {
    const logged = vi.spyOn(console, "error");
    const { token } = await signUp("ada@example.com");
    expect(await (await call("/app/repohost", bearer(token))).json()).toEqual({ connected: false });
    expect(await (await call(`/app/repohost/repo?url=${encodeURIComponent(PRIVATE)}`, bearer(token))).json()).toEqual({
      exists: false,
      private: false,
    });

    const url = await startConnect(token);
    expect(url.startsWith(`${github.webUrl}/login/oauth/authorize?`)).toBe(true);
    const callback = await followAuthorize(url);

    const landing = await call(callback);
    expect(landing.status).toBe(200);
    expect(landing.headers.get("content-type")).toMatch(/^text\/html/);
    expect(landing.headers.get("referrer-policy")).toBe("no-referrer");
    const page = await landing.text();
    expect(page).toContain("GitHub is connected; you can close this tab");
    const query = new URL(callback, BASE).searchParams;
    expect(page).not.toContain(query.get("code"));
    expect(page).not.toContain(query.get("state"));

    expect(await (await call("/app/repohost", bearer(token))).json()).toEqual({ connected: true });
    const check = await call("/app/repohost/repo?url=github.com/acme/secret-sauce", bearer(token));
    expect(check.status).toBe(200);
    expect(await check.json()).toEqual({ exists: true, private: true });
    const created = await call("/app/sites", json({ repohost_url: PRIVATE }, token));
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ private: true, repohost_url: PRIVATE });
    const stranger = await signUp("mallory@example.com");
    expect((await call("/app/sites", json({ repohost_url: PRIVATE }, stranger.token))).status).toBe(404);
    // The grant is sealed with the key the server made in its data directory.
    if (process.platform !== "win32") expect((await stat(join(dataDir, "secret.key"))).mode & 0o777).toBe(0o600);

    const removed = await call("/app/repohost", bearer(token, "DELETE"));
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe("");
    const revoke = github.requests.find((request) => request.method === "DELETE")!;
    expect(revoke.path).toBe(`/applications/${CLIENT.clientId}/grant`);
    expect(revoke.headers.authorization).toBe(`Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString("base64")}`);
    expect(github.oauthTokens()).toEqual([]);

    expect(await (await call("/app/repohost", bearer(token))).json()).toEqual({ connected: false });
    expect(await (await call(`/app/repohost/repo?url=${encodeURIComponent(PRIVATE)}`, bearer(token))).json()).toEqual({
      exists: false,
      private: false,
    });
    expect(logged).not.toHaveBeenCalled();
  });

  it("answers 401 without a token on every API route", async () => {
    for (const [path, init] of [
      ["/app/repohost/repo?url=github.com/acme/rocket-cli", undefined],
      ["/app/repohost/connect", json({ repo: PRIVATE })],
      ["/app/repohost", undefined],
      ["/app/repohost", { method: "DELETE" }],
    ] as const) {
      const response = await call(path, init);
      expect(response.status, `${init?.method ?? "GET"} ${path}`).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain("Bearer");
    }
    const wrong = await call("/app/repohost", bearer("rs_not-a-real-token"));
    expect(wrong.status).toBe(401);
  });

  it("answers 422 for a link to no known repository", async () => {
    const { token } = await signUp("ada@example.com");
    const check = await call(`/app/repohost/repo?url=${encodeURIComponent("ftp://example.com/x")}`, bearer(token));
    expect(check.status).toBe(422);
    expect(await check.json()).toMatchObject({ code: "invalid_repo_url" });

    const connect = await call("/app/repohost/connect", json({ repo: "not a link" }, token));
    expect(connect.status).toBe(422);
    expect(await connect.json()).toMatchObject({ code: "invalid_repo_url" });

    const missing = await call("/app/repohost/repo", bearer(token));
    expect(missing.status).toBe(422);
    expect(await missing.json()).toMatchObject({ code: "invalid_request", field: "url" });

    const noBody = await call("/app/repohost/connect", bearer(token, "POST"));
    expect(noBody.status).toBe(422);
    expect(await noBody.json()).toMatchObject({ code: "invalid_request", field: "repo" });
  });

  it("answers 503 repohost_auth_unavailable when no OAuth app is configured", async () => {
    await reposite.close();
    compose([]);
    const { token } = await signUp("ada@example.com");
    const response = await call("/app/repohost/connect", json({ repo: PRIVATE }, token));
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: string; code: string };
    expect(body.code).toBe("repohost_auth_unavailable");
    expect(body.error).toContain("REPOSITE_GITHUB_CLIENT_ID");
    // Public repositories are still checked without one.
    expect(await (await call("/app/repohost/repo?url=github.com/acme/rocket-cli", bearer(token))).json()).toEqual({
      exists: true,
      private: false,
    });
  });
});

describe("the callback page", () => {
  it("refuses a state used once already, or made up, with an error page", async () => {
    const { token } = await signUp("ada@example.com");
    const callback = await followAuthorize(await startConnect(token));
    expect((await call(callback)).status).toBe(200);

    const again = await call(callback);
    expect(again.status).toBe(400);
    expect(again.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await again.text()).toContain("unknown or was used already");
    expect((await call("/app/repohost/callback?code=abc&state=made-up")).status).toBe(400);
    expect((await call("/app/repohost/callback")).status).toBe(400);
  });

  it("answers odd queries (repeated values) with its page, never a JSON validation error", async () => {
    const odd = await call("/app/repohost/callback?code=a&code=b&state=x&state=y&error=e1&error=e2");
    expect(odd.status).toBe(400);
    expect(odd.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await odd.text()).toContain("unknown or was used already");
  });

  it("connects nothing when the person declines at GitHub", async () => {
    github.setAutoApprove(false);
    const { token } = await signUp("ada@example.com");
    const url = await startConnect(token);
    const authorizePage = await (await fetch(url)).text();
    const cancel = /id="cancel" href="([^"]+)"/.exec(authorizePage)![1]!.replace(/&amp;|&#38;/g, "&");
    const location = new URL(cancel);

    const declined = await call(`${location.pathname}${location.search}`);
    expect(declined.status).toBe(403);
    expect(await declined.text()).toContain("You did not authorize Reposite");
    expect(await (await call("/app/repohost", bearer(token))).json()).toEqual({ connected: false });
    // The state is spent: approving with it afterwards does not connect either.
    const approved = await followAuthorize(`${url}&approve=1`);
    expect((await call(approved)).status).toBe(400);
  });

  it("refuses to connect when the browser is signed in as another account than the one that started", async () => {
    const ada = await signUp("ada@example.com");
    const bob = await signUp("bob@example.com");
    const callback = await followAuthorize(await startConnect(ada.token));
    const { secret } = await reposite.sessions.create(bob.accountId);

    const refused = await call(callback, { headers: { cookie: `reposite_session=${secret}` } });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("another Reposite account");
    expect(await (await call("/app/repohost", bearer(ada.token))).json()).toEqual({ connected: false });
    expect(await (await call("/app/repohost", bearer(bob.token))).json()).toEqual({ connected: false });
  });

  it("connects when the browser is signed in as the account that started", async () => {
    const ada = await signUp("ada@example.com");
    const callback = await followAuthorize(await startConnect(ada.token));
    const { secret } = await reposite.sessions.create(ada.accountId);
    expect((await call(callback, { headers: { cookie: `reposite_session=${secret}` } })).status).toBe(200);
    expect(await (await call("/app/repohost", bearer(ada.token))).json()).toEqual({ connected: true });
  });
});
