import { checkAtWidths, startFakeOpenAI, type FakeOpenAI } from "@reposite/test-support";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionCookie, startBrowserRig, type BrowserRig } from "./setup.js";

/**
 * The dashboard's Sites and Pages screens in headless Chromium against a real listening server
 * (fake GitHub, fake model): a person signs in by the mailed link and does everything in the browser.
 */
const LANDING = {
  kind: "template",
  meta: { title: "Rocket CLI", description: "Launch rockets from your terminal." },
  hero: { title: "Launch from your terminal", subtitle: "Countdown, abort and plugins.", primary_cta: { label: "Get started" } },
  features: [
    { title: "Countdown", body: "Abort at any second." },
    { title: "Offline", body: "Works without a network." },
    { title: "Plugins", body: "Every launch pad." },
  ],
  sections: [],
  closing: { title: "Ready?", body: "Install it today.", cta: { label: "Get started" } },
};

describe("the dashboard's sites and pages, in Chromium", () => {
  let rig: BrowserRig;
  let owner: Page;
  let siteId: string;
  let openai: FakeOpenAI;
  const problems: string[] = [];

  beforeAll(async () => {
    // The model writes slowly (a delta every 25 ms), so the page can be watched while it writes.
    openai = await startFakeOpenAI({ replies: [JSON.stringify(LANDING)], chunkSize: 8, delayMs: 25 });
    rig = await startBrowserRig({ sitesOnLocalhost: true, env: { OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "sk-test" } });
    owner = (await rig.newPage()).page;
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
    await openai?.close();
  });

  it("signs in by the mailed link, lists no site yet, then makes one from a repository link and opens its page", async () => {
    await rig.signIn(owner, "owner@example.com", "/account/sites");
    expect(new URL(owner.url()).pathname).toBe("/account/sites");
    await expect.poll(() => owner.getByRole("heading", { name: "Your sites", level: 1 }).isVisible()).toBe(true);
    problems.push(...(await checkAtWidths(owner, "dashboard-sites-empty")));
    await owner.getByLabel("Repository link").fill("https://github.com/acme/rocket-cli");
    await owner.getByRole("button", { name: "Make the site" }).click();
    await owner.waitForURL(/\/account\/sites\/site_[^/]+\?done=created$/);
    siteId = new URL(owner.url()).pathname.split("/")[3]!;
    expect(await owner.locator(".notice.ok").innerText()).toContain("The site was made");
    expect(await owner.getByRole("heading", { name: "rocket-cli", level: 1 }).isVisible()).toBe(true);
    expect(await owner.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Overview" }).getAttribute("aria-current")).toBe("page");
    expect(await owner.locator("dt:text-is('Type') + dd").innerText()).toBe("Not generated yet");
    problems.push(...(await checkAtWidths(owner, "dashboard-site")));
  });

  it("writes the landing page watching its text stream in, then shows its versions with a preview", async () => {
    await owner.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Pages" }).click();
    await owner.getByLabel("Landing page: one page").check();
    await owner.getByLabel("Wishes for the pages").fill("Say it is fast.");
    await owner.getByRole("button", { name: "Write the pages" }).click();
    await owner.waitForURL(/\/pages\?job=job_/);
    const jobId = new URL(owner.url()).searchParams.get("job")!;
    // Text on the page while the job is still running: it streamed in.
    await expect.poll(() => owner.locator("#generation-text").innerText(), { timeout: 10_000 }).toContain("Launch");
    const during = await rig.server.reposite.jobs.get((await rig.server.reposite.accounts.findOrCreate("owner@example.com")).account.id, jobId);
    expect(during.status).toBe("running");
    await expect.poll(() => owner.locator("#generation-state").innerText(), { timeout: 20_000 }).toContain("Done");
    expect(await owner.locator("#generation-text").innerText()).toContain("Install it today.");
    problems.push(...(await checkAtWidths(owner, "dashboard-pages-writing")));
    await owner.getByRole("link", { name: "Show the new versions" }).click();
    await expect.poll(() => owner.getByRole("heading", { name: "Landing page", level: 3 }).isVisible()).toBe(true);
    const preview = owner.frameLocator("iframe.preview");
    await expect.poll(() => preview.getByRole("heading", { name: "Launch from your terminal" }).isVisible()).toBe(true);
    // Chromium leaves a frame of another origin unpainted while out of view; a full-page screenshot does not wait.
    await owner.locator("iframe.preview").scrollIntoViewIfNeeded();
    problems.push(...(await checkAtWidths(owner, "dashboard-pages")));
    // A landing page has no plan (`wizard` is null), yet the overview says what the site is.
    await owner.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Overview" }).click();
    expect(await owner.locator("dt:text-is('Type') + dd").innerText()).toBe("landing");
  });

  it("changes the design from the gallery, publishes, opens the site, and moves its address", async () => {
    await owner.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Design" }).click();
    expect(await owner.locator(".gallery img").count()).toBe(30);
    const broken = await owner.evaluate(() => [...document.querySelectorAll<HTMLImageElement>(".gallery img")].filter((img) => img.complete && img.naturalWidth === 0).length);
    expect(broken).toBe(0);
    await owner.getByLabel("Ledger").check();
    await owner.getByLabel("Appearance").selectOption("Light mode");
    problems.push(...(await checkAtWidths(owner, "dashboard-design")));
    await owner.getByRole("button", { name: "Save the design" }).click();
    await owner.waitForURL(/done=saved/);
    const ownerId = (await rig.server.reposite.accounts.findOrCreate("owner@example.com")).account.id;
    expect(await rig.server.reposite.projects.get(ownerId, siteId)).toMatchObject({ design: "ledger", color_mode: "Light mode" });

    await owner.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Pages" }).click();
    await owner.getByRole("button", { name: "Publish all pages" }).click();
    await owner.waitForURL(/done=published/);
    await owner.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Overview" }).click();
    const address = await owner.locator("#site-address").innerText();
    expect(address).toMatch(/^http:\/\/rocket-cli\.localhost:\d+$/);
    await owner.getByRole("link", { name: "Open the site" }).click();
    await expect.poll(() => owner.getByRole("heading", { name: "Launch from your terminal" }).isVisible()).toBe(true);
    await owner.goBack();

    // The check as you type, then the rename with its warning confirmed.
    await owner.getByLabel("Address under the sites domain").fill("ab");
    await expect.poll(() => owner.locator("#slug-hint").innerText()).toContain("Not a possible address");
    await owner.getByLabel("Address under the sites domain").fill("rocket-launcher");
    await expect.poll(() => owner.locator("#slug-hint").innerText()).toBe("rocket-launcher is available.");
    expect(await owner.locator("#slug-warning").innerText()).toContain("The old address stops working");
    await owner.getByLabel("I understand the old address stops working").check();
    await owner.getByRole("button", { name: "Change the address" }).click();
    await owner.waitForURL(/done=renamed/);
    expect(await owner.locator("#site-address").innerText()).toMatch(/^http:\/\/rocket-launcher\.localhost:\d+$/);
    problems.push(...(await checkAtWidths(owner, "dashboard-site-renamed")));
    // The old address answers "no site here" at once.
    expect((await owner.goto(address))?.status()).toBe(404);
  });

  it("refuses a token on the dashboard's pages (403 session_required) and a form posted from another origin", async () => {
    const account = await rig.server.reposite.accounts.findOrCreate("owner@example.com");
    const { secret } = await rig.server.reposite.tokens.create(account.account.id, { name: "t", lifetime: "30d" });
    for (const path of ["/account/sites", `/account/sites/${siteId}`, `/account/sites/${siteId}/pages`, `/account/sites/${siteId}/design`]) {
      const answer = await fetch(`${rig.url}${path}`, { headers: { authorization: `Bearer ${secret}` } });
      expect(answer.status, path).toBe(403);
      expect(await answer.json()).toMatchObject({ code: "session_required" });
    }
    const cookie = await sessionCookie(owner.context());
    await owner.goto("/account/sites");
    // The list: name, address, design, app state, visits.
    expect(await owner.locator("#sites tbody tr").innerText()).toMatch(/rocket-cli\s+rocket-launcher\s+Ledger\s+No app\s+\d+/);
    problems.push(...(await checkAtWidths(owner, "dashboard-sites")));
    const csrf = await owner.locator('input[name="csrf"]').first().inputValue();
    const forged = await fetch(`${rig.url}/account/sites`, {
      method: "POST",
      headers: { cookie, origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf, repohost_url: "https://github.com/acme/rocket-cli" }),
      redirect: "manual",
    });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain("sent from another site");
    expect((await rig.server.reposite.projects.list(account.account.id)).length).toBe(1);
  });

  it("shows another account a 404 for every one of the site's dashboard addresses", async () => {
    const { page: other } = await rig.newPage();
    await rig.signIn(other, "other@example.com", "/account/sites");
    for (const path of [`/account/sites/${siteId}`, `/account/sites/${siteId}/pages`, `/account/sites/${siteId}/design`]) {
      const answer = await other.goto(path);
      expect(answer?.status(), path).toBe(404);
    }
    await other.context().close();
  });

  it("passes axe WCAG AA on every screen at 1280 and 390", () => {
    expect(problems).toEqual([]);
  });
});
