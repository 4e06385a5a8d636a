import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dnsmasqAvailable, freePort, launchBrowser, startDnsServer, startFakeGitHub, type DnsServer, type FakeGitHub } from "@reposite/test-support";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/index.js";
import { DEFAULT_REPOS } from "../harness.js";
import { dashboardChecks } from "./dashboard-checks.js";

// The Domain and Members screens in Chromium, on a real listening server whose DNS checks ask a
// dnsmasq on loopback: the live check resolves the domain there and asks this server for its proof.
describe.skipIf(!dnsmasqAvailable())("the Domain, Members and Code host screens in Chromium", () => {
  let github: FakeGitHub;
  let dns: DnsServer;
  let dataDir: string;
  let server: RunningServer;
  let browser: Browser;
  let url: string;
  let port: number;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };
  let site: string;

  const person = async (email: string) => {
    const { account } = await server.reposite.accounts.findOrCreate(email);
    return { accountId: account.id, secret: (await server.reposite.sessions.create(account.id)).secret };
  };
  /** A browser profile signed in with `who`'s session cookie, at `width`. */
  const pageOf = async (who: { secret: string }, width = 1280): Promise<Page> => {
    const context = await browser.newContext({ baseURL: url, viewport: { width, height: 900 } });
    await context.addCookies([{ name: "reposite_session", value: who.secret, url, httpOnly: true, sameSite: "Lax" }]);
    return context.newPage();
  };

  beforeAll(async () => {
    github = await startFakeGitHub({ repos: DEFAULT_REPOS, oauth: { clientId: "dash-client", clientSecret: "dash-secret", autoApprove: true } });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-dashboard-domain-"));
    dns = await startDnsServer();
    port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = await startServer({
      settings: {
        listen: { port, hostname: "127.0.0.1" },
        reposite: {
          config: { dataDir, baseUrl: url, sitesDomain: "sites.test", publicIpv4: "127.0.0.1" },
          github: { apiUrl: github.url, webHosts: ["github.com"] },
          githubOAuth: { clientId: "dash-client", clientSecret: "dash-secret", webUrl: github.webUrl },
          dns: { servers: [dns.address], timeoutMs: 1_000, tries: 1 },
          // Visitors reach this server on its HTTP port; no HTTPS here. Live answers are not kept.
          domains: { liveHttpsPort: null, liveHttpPort: port, liveCacheMs: 0 },
        },
      },
    });
    browser = await launchBrowser();
    owner = await person("dana@example.com");
    other = await person("eve@example.com");
    site = (await server.reposite.projects.create(owner.accountId, { repohost_url: "github.com/acme/rocket-cli", name: "Comet" })).id;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await dns?.close();
    await github?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("connects a domain, shows the records with copy buttons, verifies with what DNS says, and shows it live", async () => {
    const page = await pageOf(owner);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: url });
    await page.goto(`/account/sites/${site}`);
    await page.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Domain" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/account/sites/${site}/domain`);
    expect(await page.getByText("No domain is connected.").isVisible()).toBe(true);
    await dashboardChecks(page, "domain-empty");

    // A name that is no domain: the service's own words, on the screen, with its status.
    await page.getByLabel("Domain", { exact: true }).fill("not a domain");
    const refused = page.waitForResponse((answer) => answer.request().method() === "POST");
    await page.getByRole("button", { name: "Connect" }).click();
    expect((await refused).status()).toBe(422);
    await expect.poll(() => page.getByRole("alert").isVisible()).toBe(true);

    await page.getByLabel("Domain", { exact: true }).fill("WWW.Comet-Launch.com");
    await page.getByRole("button", { name: "Connect" }).click();
    await expect.poll(() => page.getByRole("status").first().innerText()).toContain("The domain was connected");
    expect(await page.locator("#domain-verified").innerText()).toBe("Not yet");
    expect(await page.locator("#domain-live").innerText()).toContain("Not live");
    const row = page.locator("tbody tr");
    expect(await row.count()).toBe(1);
    expect(await row.innerText()).toContain("CNAME");
    expect(await page.locator("#record-0-host").innerText()).toBe("www");
    expect(await page.locator("#record-0-value").innerText()).toBe("comet.sites.test");
    // The copy button puts the value on the clipboard.
    await page.getByRole("button", { name: "Copy the value of the CNAME record" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe("comet.sites.test");
    await dashboardChecks(page, "domain-records");

    // Verify before DNS has it: the DNS message says what is missing.
    await page.getByRole("button", { name: "Verify DNS now" }).click();
    await expect.poll(() => page.locator("#dns-message").innerText()).toContain("Missing: a CNAME record named www.comet-launch.com pointing to comet.sites.test");
    expect(await page.locator("#domain-verified").innerText()).toBe("Not yet");

    // DNS now points here: verified, then live on this server's port.
    await dns.setRecords({ cname: { "www.comet-launch.com": "comet.sites.test" }, a: { "comet.sites.test": ["127.0.0.1"] } });
    await page.getByRole("button", { name: "Verify DNS now" }).click();
    await expect.poll(() => page.locator("#dns-message").innerText()).toContain("Found: www.comet-launch.com is a CNAME to comet.sites.test.");
    expect(await page.locator("#domain-verified").innerText()).toMatch(/^Yes, \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(await page.locator("#domain-live").innerText()).toBe(`Live at http://www.comet-launch.com:${port}/`);
    await dashboardChecks(page, "domain-verified");
    // The same state the API answers.
    expect(await server.reposite.domains.get(owner.accountId, site)).toMatchObject({ domain: "www.comet-launch.com", verified: true, live: true });

    await page.getByRole("button", { name: "Disconnect" }).click();
    await expect.poll(() => page.getByRole("status").first().innerText()).toContain("The domain was disconnected");
    expect(await server.reposite.domains.get(owner.accountId, site)).toMatchObject({ domain: null, verified: false });
    await page.context().close();
  });

  it("lists the site's members for its owner, never a password", async () => {
    const page = await pageOf(owner);
    await page.goto(`/account/sites/${site}/members`);
    expect(await page.getByText("No one has registered yet.").isVisible()).toBe(true);
    await dashboardChecks(page, "members-empty");
    // Two people sign up on the published site (what its sign-up page calls).
    await server.reposite.members.register(site, { email: "Reader@Example.com", password: "correct horse battery" });
    await server.reposite.members.register(site, { email: "second@example.com", password: "another long password" });
    await page.reload();
    expect(await page.getByText("2 members.").isVisible()).toBe(true);
    const rows = await page.locator("#members tbody tr").allInnerTexts();
    expect(rows.map((row) => row.split("\t")[0])).toEqual(expect.arrayContaining(["reader@example.com", "second@example.com"]));
    expect(await page.content()).not.toContain("correct horse battery");
    await dashboardChecks(page, "members");
    await page.context().close();
  });

  it("connects the code host from the account's Code host screen (GitHub's authorize page and back), then disconnects it", async () => {
    const page = await pageOf(owner);
    await page.goto("/account");
    // Linked from the account page, and from the header on every page.
    expect(await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Code host" }).getAttribute("href")).toBe("/account/code-host");
    await page.getByRole("main").getByRole("link", { name: "Code host" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe("/account/code-host");
    expect(await page.locator("#code-host-state").innerText()).toBe("Not connected.");
    await dashboardChecks(page, "code-host");
    await page.getByLabel("A link to one of your private repositories").fill("https://github.com/acme/rocket-cli");
    await page.getByRole("button", { name: "Connect on the code host" }).click();
    // The fake GitHub approves at once and sends the browser back to the callback page.
    await expect.poll(() => page.getByRole("heading", { name: "GitHub is connected" }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(github.requests.some((request) => request.path.startsWith("/login/oauth/authorize?"))).toBe(true);
    // The page GitHub sends the person back to leads back to the dashboard.
    await page.getByRole("link", { name: "Back to your sites" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe("/account/sites");
    await page.goto("/account/code-host");
    expect(await page.locator("#code-host-state").innerText()).toBe("Connected.");
    expect(await server.reposite.repoAccess.status(owner.accountId)).toEqual({ connected: true });
    await page.getByRole("button", { name: "Disconnect" }).click();
    await expect.poll(() => page.locator("main .notice.ok").innerText()).toContain("The code host was disconnected");
    expect(await page.locator("#code-host-state").innerText()).toBe("Not connected.");
    expect(await server.reposite.repoAccess.status(owner.accountId)).toEqual({ connected: false });
    await page.context().close();
  });

  it("another account gets 404 on every screen and form; a token gets 403 session_required; another origin's form is refused", async () => {
    const stranger = await pageOf(other);
    for (const path of [`/account/sites/${site}/domain`, `/account/sites/${site}/members`]) {
      expect((await stranger.goto(path))?.status(), path).toBe(404);
    }
    await stranger.context().close();
    const cookie = (who: { secret: string }) => `reposite_session=${who.secret}`;
    const csrfOf = async (who: { secret: string }) => (await server.reposite.sessions.find(who.secret))!.session.csrf;
    const post = (path: string, who: { secret: string }, body: Record<string, string>, origin = url) =>
      fetch(`${url}${path}`, { method: "POST", redirect: "manual", headers: { cookie: cookie(who), origin, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(body) });
    const strangerPost = await post(`/account/sites/${site}/domain`, other, { csrf: await csrfOf(other), domain: "www.stolen.com" });
    expect(strangerPost.status).toBe(404);
    const crossSite = await post(`/account/sites/${site}/domain`, owner, { csrf: await csrfOf(owner), domain: "www.evil.com" }, "http://127.0.0.1:1");
    expect(crossSite.status).toBe(403);
    expect(await crossSite.text()).toContain("cross_site_request");
    const { secret: token } = await server.reposite.tokens.create(owner.accountId, { name: "cli", lifetime: "30d" });
    for (const path of [`/account/sites/${site}/domain`, `/account/sites/${site}/members`]) {
      const answer = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(answer.status, path).toBe(403);
      expect(await answer.text()).toContain("session_required");
    }
    expect(await server.reposite.domains.get(owner.accountId, site)).toMatchObject({ domain: null });
  });
});
