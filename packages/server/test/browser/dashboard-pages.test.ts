import { checkAtWidths, createMemoryContainerRuntime, startFakeOpenAI, type FakeOpenAI, type MemoryContainerRuntime } from "@reposite/test-support";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBrowserRig, type BrowserRig } from "./setup.js";

/**
 * The Pages screen and making a site, in headless Chromium against a real listening server (fake
 * GitHub with OAuth, a fake model that writes slowly), reached through a proxy that can cut a
 * connection mid-answer: the generation's text resumed after a dropped stream, each page's
 * versions (make current, custom HTML, publish one page), the code host's connection offered for a
 * repository the person cannot see, and the publish warnings.
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

/** A hand-written page; `filler` paragraphs make it as large as real pages with inline styles get. */
const handPage = (title: string, filler = 0) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>body{font:16px system-ui;margin:2rem}</style></head>` +
  `<body><h1>${title}</h1>${"<p>Rocket launches rockets from your terminal &amp; counts down: 10, 9, 8 … lift-off.</p>".repeat(filler)}</body></html>`;

describe("the dashboard's Pages screen and making a site, in Chromium", () => {
  let rig: BrowserRig;
  let openai: FakeOpenAI;
  let runtime: MemoryContainerRuntime;
  let page: Page;
  let ownerId: string;
  let siteId: string;
  let jobId: string;
  /** Where the published site answers (`<slug>.localhost` reaches this server). */
  let live: (path: string) => string;
  const problems: string[] = [];

  const pagesOf = (site: string) => `/account/sites/${site}/pages`;
  const alert = () => page.getByRole("alert").innerText();
  const notice = () => page.locator("main .notice.ok").innerText();
  const preview = () => page.frameLocator("iframe.preview").locator("h1").innerText();
  /**
   * axe and screenshots at 1280 and 390, once the preview frame (when there is one) has drawn its
   * page. Chromium leaves a frame of another origin unpainted while it is out of view, and a
   * full-page screenshot does not wait for it: the preview is brought into view first.
   */
  const screens = async (name: string) => {
    const element = await page.$("iframe.preview");
    const frame = await element?.contentFrame();
    if (element && frame) {
      await frame.locator("h1").first().waitFor();
      await element.scrollIntoViewIfNeeded();
    }
    problems.push(...(await checkAtWidths(page, name)));
  };
  /** A page of the published site as a visitor's browser gets it (its main heading). */
  const liveHeading = async (path: string) => {
    const visitor = await rig.browser.newPage();
    try {
      expect((await visitor.goto(live(path)))?.status()).toBe(200);
      return await visitor.locator("h1").first().innerText();
    } finally {
      await visitor.close();
    }
  };
  /** Adds a hand-written version of `kind` on the screen; answers the status of the post. */
  const addCustom = async (kind: string, name: string, html: string) => {
    await page.getByLabel("Page", { exact: true }).selectOption(kind);
    await page.getByLabel("What changed").fill(name);
    // Pasted, as a person does with a whole page (filling 5 MB key by key would take minutes).
    await page.getByLabel("HTML", { exact: true }).evaluate((area, value) => ((area as HTMLTextAreaElement).value = value), html);
    const posted = page.waitForResponse((answer) => answer.request().method() === "POST" && answer.url().endsWith("/pages/versions"));
    await page.getByRole("button", { name: "Add this version" }).click();
    const status = (await posted).status();
    await page.waitForLoadState();
    return status;
  };

  beforeAll(async () => {
    // A delta every 25 ms: the stream can be cut while the model is still writing.
    openai = await startFakeOpenAI({ replies: [JSON.stringify(LANDING)], chunkSize: 8, delayMs: 25 });
    // Hosting is on (a saas site can be made); no app is ever deployed here, which the warning is about.
    runtime = createMemoryContainerRuntime();
    rig = await startBrowserRig({
      sitesOnLocalhost: true,
      githubOAuth: true,
      throughProxy: true,
      containerRuntime: runtime,
      env: { OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "sk-test" },
    });
    const serverPort = new URL(rig.server.url).port;
    live = (path) => `http://rocket-cli.localhost:${serverPort}${path}`;
    page = (await rig.newPage()).page;
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
    await openai?.close();
    await runtime?.close();
  });

  it("resumes the text of a generation after its stream's connection is cut: it ends exactly as the job's text", async () => {
    await rig.signIn(page, "writer@example.com", "/account/sites");
    ownerId = (await rig.server.reposite.accounts.findOrCreate("writer@example.com")).account.id;
    siteId = (await rig.server.reposite.projects.create(ownerId, { repohost_url: "https://github.com/acme/rocket-cli" })).id;
    await page.goto(pagesOf(siteId));
    await page.getByLabel("Landing page: one page").check();
    await page.getByRole("button", { name: "Write the pages" }).click();
    await page.waitForURL(/\/pages\?job=job_/);
    jobId = new URL(page.url()).searchParams.get("job")!;
    const text = () => page.locator("#generation-text").evaluate((element) => element.textContent ?? "");
    await expect.poll(async () => (await text()).length, { timeout: 10_000 }).toBeGreaterThan(40);
    // Cut while the model is still writing, as a network path breaks; the browser's own reconnect
    // then meets a balancer with no replica ready (502), after which EventSource gives up for good.
    rig.proxy!.refuseNext("/stream");
    expect(rig.proxy!.drop("/stream")).toBe(1);
    expect((await rig.server.reposite.jobs.get(ownerId, jobId)).status).toBe("running");
    await expect.poll(() => page.locator("#generation-state").innerText(), { timeout: 20_000 }).toContain("Done");

    let written = "";
    for await (const event of rig.server.reposite.jobs.events(ownerId, jobId, 0)) if (event.type === "delta") written += event.t;
    expect(written).toBe(JSON.stringify(LANDING));
    // Nothing lost, nothing twice.
    expect(await text()).toBe(written);
    // The browser asked after the last delta it had (Last-Event-ID), was refused, and the page
    // opened the stream again from the delta after that one.
    const streams = rig.proxy!.requests.filter((request) => request.line.includes(`/jobs/${jobId}/stream`));
    expect(streams.length).toBe(3);
    const lastShown = Number(streams[1]!.lastEventId);
    expect(lastShown).toBeGreaterThan(0);
    expect(streams[2]!.line).toContain(`/stream?from=${lastShown + 1} `);
    await screens("dashboard-pages-resumed");
  });

  it("adds hand-written versions (bad ones refused on the screen), makes an older one current, publishes one page only", async () => {
    await page.getByRole("link", { name: "Show the new versions" }).click();
    await expect.poll(preview).toBe("Launch from your terminal");
    // The plan the pages were written with is the one offered again (a landing page's plan reads as null).
    expect(await page.getByLabel("Landing page: one page").isChecked()).toBe(true);
    expect(await page.getByRole("button", { name: "Write the pages again" }).isVisible()).toBe(true);
    await page.getByRole("button", { name: "Publish all pages" }).click();
    await expect.poll(notice).toContain("Published");
    expect(await liveHeading("/")).toBe("Launch from your terminal");

    // Real pages with inline styles are larger than a few form fields: 120 KB is accepted.
    expect(await addCustom("about", "About, written by hand", handPage("About Rocket", 1400))).toBe(303);
    await expect.poll(notice).toContain("Your HTML is the page's current version now");
    expect(await preview()).toBe("About Rocket");
    expect(await page.getByRole("heading", { name: "About", level: 3 }).isVisible()).toBe(true);
    await page.getByRole("button", { name: "Publish all pages" }).click();
    await expect.poll(notice).toContain("Published");
    expect(await liveHeading("/about")).toBe("About Rocket");

    // The contract's rules, said on the screen: a name of spaces only, a page over 5 MB.
    expect(await addCustom("template", "   ", handPage("Nameless"))).toBe(422);
    expect(await alert()).toContain("a name saying what changed is required");
    expect(await addCustom("template", "Far too large", handPage("Huge", 61_000))).toBe(413);
    expect(await alert()).toContain("at most 5 MB is allowed");
    await screens("dashboard-pages-refused");

    // New versions of both pages; only the landing page is published.
    expect(await addCustom("about", "About, second draft", handPage("About Rocket, again"))).toBe(303);
    expect(await addCustom("template", "Landing by hand", handPage("Rocket, by hand"))).toBe(303);
    expect(await preview()).toBe("Rocket, by hand");
    await page.getByRole("button", { name: "Publish the Landing page only" }).click();
    await expect.poll(notice).toContain("Published: the page is live.");
    expect(await liveHeading("/")).toBe("Rocket, by hand");
    expect(await liveHeading("/about")).toBe("About Rocket");

    // The generated landing page made current again: the preview shows it, and once published, the site.
    await page.getByRole("button", { name: /^Make current: Generated/ }).click();
    await expect.poll(notice).toContain("That version is current now");
    expect(await preview()).toBe("Launch from your terminal");
    await screens("dashboard-pages-versions");
    await page.getByRole("button", { name: "Publish the Landing page only" }).click();
    await expect.poll(notice).toContain("Published: the page is live.");
    expect(await liveHeading("/")).toBe("Launch from your terminal");
    expect(await liveHeading("/about")).toBe("About Rocket");
  }, 90_000);

  it("offers the code host's connection for a repository it cannot see, then makes the private site, which may only be saas", async () => {
    await page.goto("/account/sites");
    await page.getByLabel("Repository link").fill("https://github.com/acme/secret-sauce");
    const refused = page.waitForResponse((answer) => answer.request().method() === "POST");
    await page.getByRole("button", { name: "Make the site" }).click();
    expect((await refused).status()).toBe(404);
    await page.waitForLoadState();
    expect(await alert()).toMatch(/repository/i);
    expect(await page.getByLabel("Repository link").inputValue()).toBe("https://github.com/acme/secret-sauce");
    await screens("dashboard-sites-connect-offer");
    await page.getByRole("button", { name: "Connect the code host" }).click();
    // The fake GitHub approves at once and sends the browser back to the callback page.
    await expect.poll(() => page.getByRole("heading", { name: "GitHub is connected" }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await rig.server.reposite.repoAccess.status(ownerId)).toEqual({ connected: true });

    await page.goto("/account/sites");
    await page.getByLabel("Repository link").fill("https://github.com/acme/secret-sauce");
    await page.getByRole("button", { name: "Make the site" }).click();
    await page.waitForURL(/\/account\/sites\/site_[^/]+\?done=created$/);
    const privateSite = new URL(page.url()).pathname.split("/")[3]!;
    await page.goto(pagesOf(privateSite));
    expect(await page.getByText("The repository is private").isVisible()).toBe(true);
    // The rule as the API answers it: a website about a private repository is refused.
    await page.getByLabel(/Website: a landing page/).check();
    const written = page.waitForResponse((answer) => answer.request().method() === "POST");
    await page.getByRole("button", { name: "Write the pages" }).click();
    expect((await written).status()).toBe(422);
    await page.waitForLoadState();
    expect(await alert()).toContain("This project's repository is private, so it can only become a saas project");
    await screens("dashboard-pages-private");
  }, 60_000);

  it("says the publish warnings: a saas site's button leads to /app/, where no app is deployed yet", async () => {
    const saas = (await rig.server.reposite.projects.create(ownerId, { repohost_url: "https://github.com/acme/rocket-cli", name: "Rocket app" })).id;
    await page.goto(pagesOf(saas));
    await page.getByLabel(/Product site with an app/).check();
    for (const box of ["About", "FAQ"]) await page.getByLabel(box, { exact: true }).uncheck();
    await page.getByRole("button", { name: "Write the pages" }).click();
    await page.waitForURL(/\/pages\?job=job_/);
    await expect.poll(() => page.locator("#generation-state").innerText(), { timeout: 20_000 }).toContain("Done");
    await page.getByRole("link", { name: "Show the new versions" }).click();

    await page.getByRole("button", { name: "Publish all pages" }).click();
    await expect.poll(notice).toContain("Published");
    const warning = page.locator("#publish-warnings");
    expect(await warning.innerText()).toContain("no app is deployed there yet");
    expect(await warning.getByRole("link", { name: "Set up and deploy the app" }).getAttribute("href")).toBe(`/account/sites/${saas}/app`);
    await screens("dashboard-pages-warnings");
    await page.getByRole("button", { name: "Publish the Landing page only" }).click();
    await expect.poll(notice).toContain("Published: the page is live.");
    expect(await warning.innerText()).toContain("no app is deployed there yet");
  }, 60_000);

  it("passes axe WCAG AA on every screen state above at 1280 and 390", () => {
    expect(problems).toEqual([]);
  });
});
