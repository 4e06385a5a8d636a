import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite, type Reposite } from "@reposite/core";
import {
  createMemoryContainerRuntime,
  freePort,
  lastMailTo,
  launchBrowser,
  linkIn,
  startFakeGitHub,
  startFakeStripe,
  type FakeGitHub,
  type FakeStripe,
  type MemoryContainerRuntime,
} from "@reposite/test-support";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingsFromEnv } from "../../src/config-from-env.js";
import { startServer, type RunningServer } from "../../src/start-server.js";
import { SCREENSHOT_DIR } from "./setup.js";

const REPOS = [
  { owner: "acme", name: "rocket-cli", description: "Launch rockets", topics: [], files: { Dockerfile: 'FROM node:22\nCMD ["node", "server.js"]\n' } },
];

/**
 * The billing pages in Chromium, paying through the real `stripe` client against the loopback
 * Stripe: its hosted checkout page (Pay, Cancel) sends the browser back to this server, its
 * webhooks reach /billing/webhook signed, and its portal page returns to the billing page.
 */
describe("billing in Chromium, with the loopback Stripe", () => {
  let fake: FakeStripe;
  let github: FakeGitHub;
  let runtime: MemoryContainerRuntime;
  let server: RunningServer;
  let reposite: Reposite;
  let browser: Browser;
  let url: string;
  let dataDir: string;

  beforeAll(async () => {
    fake = await startFakeStripe();
    github = await startFakeGitHub({ repos: REPOS });
    runtime = createMemoryContainerRuntime();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-billing-browser-"));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    // Stripe configured the way an operator does, through the environment.
    const settings = settingsFromEnv({
      PORT: String(port),
      HOST: "127.0.0.1",
      REPOSITE_BASE_URL: url,
      REPOSITE_SITES_DOMAIN: "sites.test",
      REPOSITE_DATA_DIR: dataDir,
      REPOSITE_GITHUB_API_URL: github.url,
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
      STRIPE_PRICE_EMBED: fake.priceIds.embed,
      STRIPE_PRICE_MEMORY: fake.priceIds.memory,
      STRIPE_PRICE_DISK: fake.priceIds.disk,
      STRIPE_PRICE_DOMAIN: fake.priceIds.domain,
      STRIPE_API_BASE: fake.url,
    });
    reposite = createReposite({ ...settings.reposite, github: { ...settings.reposite.github, webHosts: ["github.com"] }, containerRuntime: runtime });
    server = await startServer({ settings, reposite });
    fake.webhookUrl = `${url}/billing/webhook`;
    browser = await launchBrowser();
    await mkdir(SCREENSHOT_DIR, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await runtime?.close();
    await github?.close();
    await fake?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const newPage = async (): Promise<Page> => (await browser.newContext({ baseURL: url, viewport: { width: 1000, height: 900 } })).newPage();

  /** Signs in on the page the browser is sent to (the form, the mailed link, the button), and lands back. */
  const signInHere = async (page: Page, email: string) => {
    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.waitForURL(/\/account\/sign-in\/sent/);
    await page.goto(linkIn(await lastMailTo(join(dataDir, "outbox"), email)));
    await page.getByRole("button", { name: "Continue signing in" }).click();
    await page.waitForURL((target) => !target.pathname.startsWith("/account/sign-in"));
  };

  /** A person's API token (what an agent would use) and a project of theirs. */
  const tokenAndProject = async (email: string, name: string) => {
    const { account } = await reposite.accounts.findOrCreate(email);
    const { secret } = await reposite.tokens.create(account.id, { name: "agent", lifetime: "30d" });
    const created = await fetch(`${url}/app/sites`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ repohost_url: "github.com/acme/rocket-cli", name }),
    });
    expect(created.status).toBe(201);
    return { accountId: account.id, token: secret, site: (await created.json()).id as string };
  };

  const api = async (token: string, path: string, body: unknown, method = "POST") => {
    const response = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  };

  const mainText = (page: Page) => page.locator("main").innerText();

  it("pays on the hosted page and lands on the return page confirmed; the billing page shows it for the project, and the portal button goes to the portal and back", async () => {
    const page = await newPage();
    await page.goto("/account/billing");
    await signInHere(page, "payer@example.com");
    expect(new URL(page.url()).pathname).toBe("/account/billing");
    expect(await mainText(page)).toContain("You have not bought anything yet.");
    expect(await page.locator("#prices").innerText()).toContain("$9.00 / month");
    expect(await page.getByRole("button", { name: "Open the billing portal" }).count()).toBe(0);

    const { token, site } = await tokenAndProject("payer@example.com", "Rocket");
    const checkout = await api(token, "/billing/embed/checkout", { site_id: site });
    expect(checkout.status).toBe(200);
    expect(checkout.body.url.startsWith(`${fake.url}/`)).toBe(true);

    // The provider's page: Pay. Its webhooks reach the server, then it sends the browser back.
    await page.goto(checkout.body.url);
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL((target) => target.pathname === "/account/billing/return");
    expect(new URL(page.url()).searchParams.get("session_id")).toBe(checkout.body.id);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Payment received");
    expect(await page.locator("#bought").innerText()).toBe("App hosting");
    expect(await page.locator("#bought-for").innerText()).toBe("Rocket");
    const delivered = fake.webhooks.filter((hook) => hook.event.type === "checkout.session.completed");
    expect(delivered.at(-1)?.delivery?.status).toBe(200);
    await page.screenshot({ path: join(SCREENSHOT_DIR, "billing-return-paid.png"), fullPage: true });

    // The app is set up now that hosting is paid; then 2 GB of memory for it, paid the same way.
    expect((await api(token, `/app/sites/${site}/deployment`, {}, "PUT")).status).toBe(201);
    const memory = await api(token, "/billing/memory/checkout", { site_id: site, units: 2 });
    expect(memory.body).toMatchObject({ units: 2, quantity: 2 });
    await page.goto(memory.body.url);
    expect(await page.locator("#items").innerText()).toContain("× 2");
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL((target) => target.pathname === "/account/billing/return");
    expect(await page.locator("#bought").innerText()).toBe("Memory");
    expect(await page.locator("#limit").innerText()).toBe("The app gets 2 GB of memory from its next deploy.");
    // Its project links to the app's screen now.
    expect(await page.locator("#bought-for a").getAttribute("href")).toBe(`/account/sites/${site}/app`);

    await page.getByRole("link", { name: "Your billing" }).click();
    await page.waitForURL(`${url}/account/billing`);
    const rows = page.locator("#purchases tbody tr");
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toContain("Memory");
    expect(await rows.nth(0).innerText()).toContain("2 units (2 GB)");
    expect(await rows.nth(1).innerText()).toContain("App hosting");
    expect(await rows.nth(1).getByRole("link", { name: "Rocket" }).getAttribute("href")).toBe(`/account/sites/${site}/app`);
    expect(await page.locator('#in-use tr[data-product="embed"]').innerText()).toMatch(/App hosting\s+1\s+1/);
    expect(await page.locator('#in-use tr[data-product="memory"]').innerText()).toMatch(/Memory\s+1 \(2 units\)\s+1/);
    expect(await page.locator(`#app-sizes tr[data-site="${site}"]`).innerText()).toMatch(/Rocket\s+2 GB \(2 units paid\)\s+3 GB \(free tier\)/);
    await page.screenshot({ path: join(SCREENSHOT_DIR, "billing-page.png"), fullPage: true });

    // The portal: the provider's page for this customer, which returns to the billing page.
    await page.getByRole("button", { name: "Open the billing portal" }).click();
    await page.waitForURL((target) => target.href.startsWith(`${fake.url}/p/session/`));
    expect(await page.locator("#subscriptions li").count()).toBe(2);
    expect(await page.locator("main").innerText()).toContain("payer@example.com");
    // Cancelling the memory there ends it (its webhook), and Return comes back to the billing page.
    const memorySubscription = fake.sessions.get(memory.body.id)!.subscription as string;
    await page.locator(`li[data-subscription="${memorySubscription}"]`).getByRole("button", { name: "Cancel subscription" }).click();
    await expect.poll(() => page.locator(`li[data-subscription="${memorySubscription}"] .status`).innerText()).toBe("canceled");
    await page.getByRole("link", { name: "Return" }).click();
    await page.waitForURL(`${url}/account/billing`);
    expect(await rows.nth(0).innerText()).toContain("Ended");
    expect(await page.locator(`#app-sizes tr[data-site="${site}"]`).innerText()).toMatch(/512 MB \(free tier\)/);
    await page.context().close();
  });

  it("leaving the hosted page by Cancel lands on the cancel page: nothing was charged", async () => {
    const page = await newPage();
    await page.goto("/account/billing");
    await signInHere(page, "leaver@example.com");
    const { token, site } = await tokenAndProject("leaver@example.com", "Lander");
    const checkout = await api(token, "/billing/domain/checkout", { site_id: site });
    expect(checkout.status).toBe(200);
    await page.goto(checkout.body.url);
    await page.getByRole("link", { name: "Cancel" }).click();
    await page.waitForURL((target) => target.pathname === "/account/billing/cancelled");
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Payment cancelled");
    expect(await page.locator("#outcome").innerText()).toBe("Nothing was charged. You left the payment page for Domain (Lander) without paying, so nothing was bought.");
    await page.screenshot({ path: join(SCREENSHOT_DIR, "billing-cancelled.png"), fullPage: true });
    // Nothing bought: the billing page still says so.
    await page.getByRole("link", { name: "Your billing" }).click();
    await page.waitForURL(`${url}/account/billing`);
    expect(await mainText(page)).toContain("You have not bought anything yet.");
    expect(fake.sessions.get(checkout.body.id)?.status).toBe("open");
    await page.context().close();
  });

  it("a browser signed out when it comes back from paying is sent to sign in, then back to the return page; another person gets not found", async () => {
    const { token, site } = await tokenAndProject("returner@example.com", "Boomerang");
    const checkout = await api(token, "/billing/embed/checkout", { site_id: site });
    const page = await newPage();
    await page.goto(checkout.body.url);
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL((target) => target.pathname === "/account");
    expect(new URL(page.url()).searchParams.get("next")).toBe(`/account/billing/return?session_id=${checkout.body.id}`);
    // Someone else signs in on this browser: the link shows nothing of the purchase.
    await signInHere(page, "stranger@example.com");
    expect(new URL(page.url()).pathname).toBe("/account/billing/return");
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Not found");
    expect(await mainText(page)).not.toContain("Boomerang");
    await page.context().close();

    const owner = await newPage();
    await owner.goto(`/account/billing/return?session_id=${checkout.body.id}`);
    await signInHere(owner, "returner@example.com");
    expect(await owner.getByRole("heading", { level: 1 }).innerText()).toBe("Payment received");
    expect(await owner.locator("#bought-for").innerText()).toBe("Boomerang");
    await owner.context().close();
  });
});
