import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildLocalBaseImages,
  checkAtWidths,
  dockerForTests,
  freePort,
  getWithHost,
  lastMailTo,
  launchBrowser,
  linkIn,
  removeLabelled,
  startDnsServer,
  startFakeGitHub,
  startFakeOpenAI,
  type DnsServer,
  type FakeGitHub,
  type FakeOpenAI,
} from "@reposite/test-support";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../server-process.js";

/**
 * One person's whole journey in the dashboard, in one Chromium profile, through `reposite serve`
 * in its own process (the fake GitHub, a fake model, apps on the Docker Engine, DNS from dnsmasq),
 * as the proof lists it: sign in by the mailed link, make a site from a link, write its
 * pages watching the text stream in, change the design, publish and open the site, set its
 * address, connect a domain and verify it, set up and deploy an app watching its log, the failed
 * deploy's diagnosis and Fix, an env value (never shown back), delete the app; then another
 * account sees 404, a token gets 403 session_required, and a page on another origin cannot post.
 * Every screen passes axe (WCAG AA) at 1280 and 390 px; their screenshots are kept as artifacts.
 */

// REPOSITE_REQUIRE_DOCKER=1 makes a missing Engine fail this file instead of skipping it.
const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `journey-${randomBytes(4).toString("hex")}`;
const OWNER = "journey-owner@example.com";
const STRANGER = "journey-stranger@example.com";

const LANDING = {
  kind: "template",
  meta: { title: "Star Tracker", description: "Follow the stars from your terminal." },
  hero: { title: "Track every star", subtitle: "Charts, alerts and a log of the night sky.", primary_cta: { label: "Get started" } },
  features: [
    { title: "Charts", body: "The sky, drawn tonight." },
    { title: "Alerts", body: "Told when a comet shows." },
    { title: "Log", body: "Every night kept." },
  ],
  sections: [],
  closing: { title: "Clear skies", body: "Install it tonight.", cta: { label: "Get started" } },
};

describe.skipIf(!engine.available)("the dashboard journey, through a real server process", () => {
  let github: FakeGitHub;
  let openai: FakeOpenAI;
  let dns: DnsServer;
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let dataDir: string;
  let url: string;
  let port: number;
  let site: string;
  let token: string;
  const problems: string[] = [];

  /**
   * axe at 1280 and 390 px, and both screenshots kept. A page preview is brought into view first,
   * once drawn: Chromium leaves a frame of another origin unpainted while it is out of view.
   */
  const screens = async (name: string) => {
    const preview = await page.$("iframe.preview");
    const frame = await preview?.contentFrame();
    if (preview && frame) {
      await frame.locator("h1").first().waitFor();
      await preview.scrollIntoViewIfNeeded();
    }
    problems.push(...(await checkAtWidths(page, `journey-${name}`)));
  };
  const siteNav = (name: string) => page.getByRole("navigation", { name: "Site" }).getByRole("link", { name, exact: true }).click();
  const notice = () => page.locator("main .notice.ok").first().innerText();
  /** Signs `into` in the way a person does: the form, the mailed link, the button. */
  const signIn = async (into: Page, email: string, from: string) => {
    await into.goto(from);
    await into.getByLabel("Email address").fill(email);
    await into.getByRole("button", { name: "Email me a sign-in link" }).click();
    await expect.poll(() => into.getByRole("heading", { name: "Check your email" }).isVisible()).toBe(true);
    await into.goto(linkIn(await lastMailTo(join(dataDir, "outbox"), email)));
    await into.getByRole("button", { name: "Continue signing in" }).click();
    await into.waitForURL((target) => !target.pathname.startsWith("/account/sign-in"));
  };
  const api = async (path: string) => {
    const answer = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    const { node } = await buildLocalBaseImages();
    const dockerfile = [`FROM ${node}`, `LABEL ${RUN_LABEL}=${run}`, "WORKDIR /app", "COPY . .", ""].join("\n");
    github = await startFakeGitHub({
      repos: [
        {
          owner: "acme",
          name: "star-tracker",
          description: "Follow the stars from your terminal",
          topics: ["astronomy", "cli"],
          readme: "# star-tracker\n\nFollow the stars from your terminal: charts, alerts and a log.\n",
          files: {
            // No CMD: the image's own `node` ends at once, which the diagnosis names; package.json's
            // main file is the start command the Fix adds.
            Dockerfile: dockerfile,
            "package.json": JSON.stringify({ name: "star-tracker", main: "server.js" }),
            "server.js":
              "require('node:http').createServer((q, s) => s.end('stars=' + (process.env.GREETING || 'none'))).listen(process.env.PORT, () => console.log('star-tracker up on ' + process.env.PORT));\n",
          },
        },
      ],
    });
    // The model writes slowly (a delta every 20 ms), so the page can be watched while it writes.
    // Asked to fix the Dockerfile (the server has a model, so the Fix asks it), it adds the CMD.
    openai = await startFakeOpenAI({
      replies: (request) =>
        JSON.stringify(request.body ?? {}).includes("Fix attempt 1 of")
          ? `It has no start command.\n\n\`\`\`dockerfile\n${dockerfile}CMD ["node", "server.js"]\n\`\`\`\n`
          : JSON.stringify(LANDING),
      chunkSize: 8,
      delayMs: 20,
    });
    dns = await startDnsServer();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-journey-"));
    port = await freePort();
    url = `http://127.0.0.1:${port}`;
    // Configured the way an operator does, through the environment.
    server = await startServerProcess(port, {
      REPOSITE_DATA_DIR: dataDir,
      REPOSITE_BASE_URL: url,
      // Published sites and apps answer at http://<slug>.localhost:<port>/, which Chromium opens.
      REPOSITE_SITES_DOMAIN: `localhost:${port}`,
      REPOSITE_GITHUB_API_URL: github.url,
      OPENAI_BASE_URL: openai.url,
      OPENAI_API_KEY: "sk-test",
      REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
      REPOSITE_DNS_SERVERS: dns.address,
      REPOSITE_PUBLIC_IPV4: "127.0.0.1",
      REPOSITE_PUBLIC_HTTP_PORT: String(port),
      REPOSITE_PUBLIC_HTTPS_PORT: "off",
    });
    browser = await launchBrowser();
    context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.kill();
    await removeLabelled(RUN_LABEL, run);
    await dns?.close();
    await openai?.close();
    await github?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 120_000);

  it("signs in by the mailed link and makes a site from a repository link", async () => {
    await signIn(page, OWNER, "/account/sites");
    expect(new URL(page.url()).pathname).toBe("/account/sites");
    await screens("01-sites-empty");
    await page.getByLabel("Repository link").fill("https://github.com/acme/star-tracker");
    await page.getByRole("button", { name: "Make the site" }).click();
    await page.waitForURL(/\/account\/sites\/site_[^/]+\?done=created$/);
    site = new URL(page.url()).pathname.split("/")[3]!;
    expect(await page.getByRole("heading", { name: "star-tracker", level: 1 }).isVisible()).toBe(true);
    await screens("02-site-made");
  }, 60_000);

  it("writes the pages watching the text stream in, changes the design, publishes and opens the site", async () => {
    await siteNav("Pages");
    await page.getByLabel("Landing page: one page").check();
    await page.getByRole("button", { name: "Write the pages" }).click();
    await page.waitForURL(/\/pages\?job=job_/);
    // Part of the text is on the page while the model still writes: it streams in.
    await expect.poll(() => page.locator("#generation-text").innerText(), { timeout: 15_000 }).toContain("Track every star");
    expect(await page.locator("#generation-state").innerText()).not.toContain("Done");
    await expect.poll(() => page.locator("#generation-state").innerText(), { timeout: 30_000 }).toContain("Done");
    expect(await page.locator("#generation-text").innerText()).toContain("Install it tonight.");
    await screens("03-pages-written");

    await siteNav("Design");
    await page.getByLabel("Ledger").check();
    await page.getByRole("button", { name: "Save the design" }).click();
    await page.waitForURL(/done=saved/);
    await screens("04-design");

    await siteNav("Pages");
    await page.getByRole("button", { name: "Publish all pages" }).click();
    await page.waitForURL(/done=published/);
    await screens("05-published");
    await siteNav("Overview");
    expect(await page.locator("#site-address").innerText()).toBe(`http://star-tracker.localhost:${port}`);
    await page.getByRole("link", { name: "Open the site" }).click();
    await expect.poll(() => page.getByRole("heading", { name: "Track every star" }).isVisible()).toBe(true);
    expect(new URL(page.url()).host).toBe(`star-tracker.localhost:${port}`);
    await page.goBack();
  }, 120_000);

  it("sets the site's address, checked as it is typed", async () => {
    await page.getByLabel("Address under the sites domain").fill("stars-tonight");
    await expect.poll(() => page.locator("#slug-hint").innerText()).toBe("stars-tonight is available.");
    await page.getByLabel("I understand the old address stops working").check();
    await page.getByRole("button", { name: "Change the address" }).click();
    await page.waitForURL(/done=renamed/);
    expect(await page.locator("#site-address").innerText()).toBe(`http://stars-tonight.localhost:${port}`);
    await screens("06-address");
  }, 60_000);

  it("connects a domain, adds its record to DNS and verifies it", async () => {
    await siteNav("Domain");
    await page.getByLabel("Domain", { exact: true }).fill("stars-tonight.test");
    await page.getByRole("button", { name: "Connect" }).click();
    await expect.poll(notice).toContain("The domain was connected");
    await page.getByRole("button", { name: "Verify DNS now" }).click();
    await expect.poll(() => page.locator("#dns-message").innerText()).toContain("Missing");
    // A bare domain: an A record to this server and a TXT record with its token. Both added, as
    // the screen shows them, where DNS answers.
    const rows = await page.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.querySelector("code")?.textContent ?? td.textContent ?? "")));
    const full = (host: string) => (host === "@" ? "stars-tonight.test" : `${host}.stars-tonight.test`);
    expect(rows.map(([type, host]) => `${type} ${full(host!)}`)).toEqual(["A stars-tonight.test", "TXT _reposite.stars-tonight.test"]);
    await dns.setRecords({
      a: Object.fromEntries(rows.filter(([type]) => type === "A").map(([, host, value]) => [full(host!), [value!]])),
      txt: Object.fromEntries(rows.filter(([type]) => type === "TXT").map(([, host, value]) => [full(host!), [value!]])),
    });
    await page.getByRole("button", { name: "Verify DNS now" }).click();
    await expect.poll(() => page.locator("#dns-message").innerText()).toContain("Found");
    expect(await page.locator("#domain-verified").innerText()).toMatch(/^Yes, /);
    expect(await page.locator("#domain-live").innerText()).toBe(`Live at http://stars-tonight.test:${port}/`);
    await screens("07-domain-verified");
  }, 60_000);

  it("sets up and deploys the app watching its log; the failed deploy's diagnosis and Fix make it run", async () => {
    await siteNav("App");
    expect(await page.getByText("This site has no app yet.").isVisible()).toBe(true);
    await page.getByLabel("Health path").fill("/");
    await page.getByRole("button", { name: "Save setup" }).click();
    await expect.poll(notice).toContain("The setup was saved");
    await screens("08-app-set-up");

    await page.getByRole("button", { name: "Deploy now" }).click();
    const log = page.locator("#build-log");
    await expect.poll(() => log.innerText(), { timeout: 60_000 }).toMatch(/\S/);
    await expect.poll(() => page.getByRole("heading", { name: "The app has no start command" }).isVisible(), { timeout: 120_000 }).toBe(true);
    expect(await page.locator("#app-status").innerText()).toBe("Failed");
    expect(await page.locator("#diagnosis-fix").innerText()).toContain('CMD ["node","server.js"]');
    await screens("09-deploy-failed");

    await page.getByRole("button", { name: "Fix it" }).click();
    await expect.poll(() => log.innerText(), { timeout: 60_000 }).toContain('CMD ["node", "server.js"]');
    await expect.poll(() => page.locator("#app-status").innerText(), { timeout: 120_000 }).toBe("Running");
    await expect.poll(() => page.locator("#app-log").innerText(), { timeout: 20_000 }).toContain("star-tracker up on");
    await expect.poll(() => page.locator("#app-metrics").innerText(), { timeout: 20_000 }).toMatch(/Memory\s+\d+ MB of 512 MB/);
    // Nothing is sold on this server: no prices, no Buy buttons, no pointer to billing.
    expect(await page.getByRole("button", { name: /^Buy / }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "billing page" }).count()).toBe(0);
    expect(await page.getByText("More memory is not sold on this server.").isVisible()).toBe(true);
    await screens("10-app-running");
    const app = await context.newPage();
    expect((await app.goto(`http://stars-tonight.localhost:${port}/app/`))?.status()).toBe(200);
    expect(await app.locator("body").innerText()).toBe("stars=none");
    await app.close();
  }, 300_000);

  it("sets an env value, which the app gets and no page shows again", async () => {
    await page.getByLabel("Name", { exact: true }).fill("GREETING");
    await page.getByLabel("Value", { exact: true }).fill("orion-secret-42");
    await page.getByRole("button", { name: "Save value" }).click();
    await expect.poll(notice).toContain("values are never shown again");
    expect(await page.locator("#env-keys code").allInnerTexts()).toEqual(["GREETING"]);
    const answer = () => getWithHost(`${url}/app/`, `stars-tonight.localhost:${port}`).then((reply) => reply.body, () => "");
    await expect.poll(answer, { timeout: 60_000 }).toBe("stars=orion-secret-42");
    await page.reload();
    expect(await page.content()).not.toContain("orion-secret-42");
    await screens("11-env-set");
  }, 120_000);

  it("deletes the app once the box is ticked; the site stays", async () => {
    await page.getByLabel("Delete this app and its data").check();
    await page.getByRole("button", { name: "Delete the app" }).click();
    await expect.poll(notice, { timeout: 60_000 }).toContain("The app was deleted");
    expect(await page.getByText("This site has no app yet.").isVisible()).toBe(true);
    await screens("12-app-deleted");
  }, 120_000);

  it("another account sees none of it (404); a token made on the account page gets 403 session_required", async () => {
    const strangerContext = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 900 } });
    const stranger = await strangerContext.newPage();
    await signIn(stranger, STRANGER, "/account/sites");
    expect(await stranger.getByText("star-tracker").count()).toBe(0);
    for (const screen of ["", "/pages", "/design", "/app", "/domain", "/members"]) {
      expect((await stranger.goto(`/account/sites/${site}${screen}`))?.status(), screen).toBe(404);
    }
    await strangerContext.close();

    // The owner makes a token in the browser, as for a CLI; it works on the API, never on the dashboard.
    await page.goto("/account");
    await page.getByLabel(/^Name/).fill("laptop");
    await page.getByLabel("Expires after").selectOption({ label: "90 days" });
    await page.getByRole("button", { name: "Create token" }).click();
    token = (await page.locator("#new-token-secret").innerText()).trim();
    expect((await api(`/app/sites/${site}`)).body).toMatchObject({ slug: "stars-tonight" });
    for (const screen of ["/account/sites", `/account/sites/${site}`, `/account/sites/${site}/app`, `/account/sites/${site}/domain`]) {
      const answer = await fetch(`${url}${screen}`, { headers: { authorization: `Bearer ${token}` } });
      expect(answer.status, screen).toBe(403);
      expect(await answer.json()).toMatchObject({ code: "session_required" });
    }
  }, 60_000);

  it("a page on another origin cannot post to the dashboard, in the same browser profile", async () => {
    const evil = await startEvilSite(`${url}/account/sites/${site}/slug`);
    try {
      await page.goto(evil.url);
      const [answer] = await Promise.all([
        page.waitForResponse(`${url}/account/sites/${site}/slug`),
        page.getByRole("button", { name: "Win a telescope" }).click(),
      ]);
      expect(answer.status()).toBe(403);
      expect((await api(`/app/sites/${site}`)).body).toMatchObject({ slug: "stars-tonight" });
      // The session still works.
      await page.goto(`${url}/account/sites/${site}`);
      expect(await page.locator("#site-address").innerText()).toBe(`http://stars-tonight.localhost:${port}`);
    } finally {
      await new Promise((resolve) => evil.server.close(resolve));
    }
    expect(problems).toEqual([]);
  }, 60_000);
});

/** Another site (`localhost` is another site than `127.0.0.1`) with a form aimed at the dashboard. */
async function startEvilSite(target: string): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end(`<!doctype html><form method="post" action="${target}">
<input type="hidden" name="slug" value="stolen-stars"><input type="hidden" name="understood" value="on">
<button type="submit">Win a telescope</button></form>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://localhost:${(server.address() as AddressInfo).port}/` };
}
