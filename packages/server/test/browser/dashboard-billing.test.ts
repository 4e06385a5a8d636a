import { createMemoryContainerRuntime, startFakeStripe, type FakeStripe, type MemoryContainerRuntime } from "@reposite/test-support";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardChecks } from "./dashboard-checks.js";
import { startBrowserRig, sessionCookie, type BrowserRig } from "./setup.js";

/**
 * Buying in the dashboard, in Chromium, with the loopback Stripe configured the way an operator
 * does (its hosted payment page, its signed webhooks to /billing/webhook): app hosting, memory and
 * disk from the App screen, a custom domain from the Domain screen. Each Buy button starts the
 * checkout the API starts; after paying the person comes back to the screen and sees what changed.
 */
describe("buying from the App and Domain screens, with the loopback Stripe", () => {
  let stripe: FakeStripe;
  let runtime: MemoryContainerRuntime;
  let rig: BrowserRig;
  let page: Page;
  let ownerId: string;
  let site: string;
  let appScreen: string;

  const notice = () => page.locator("main .notice.ok").first().innerText();
  /** On the provider's hosted page (another origin): Pay, then back on this server's return page, then on to the app's screen. */
  const payAndComeBack = async () => {
    await page.waitForURL((target) => target.origin === stripe.url);
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL((target) => target.pathname === "/account/billing/return");
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Payment received");
  };

  beforeAll(async () => {
    stripe = await startFakeStripe();
    runtime = createMemoryContainerRuntime();
    rig = await startBrowserRig({
      containerRuntime: runtime,
      env: {
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
        STRIPE_PRICE_EMBED: stripe.priceIds.embed,
        STRIPE_PRICE_MEMORY: stripe.priceIds.memory,
        STRIPE_PRICE_DISK: stripe.priceIds.disk,
        STRIPE_PRICE_DOMAIN: stripe.priceIds.domain,
        STRIPE_API_BASE: stripe.url,
      },
    });
    stripe.webhookUrl = `${rig.url}/billing/webhook`;
    page = (await rig.newPage()).page;
    ownerId = (await rig.server.reposite.accounts.findOrCreate("buyer@example.com")).account.id;
    site = (await rig.server.reposite.projects.create(ownerId, { repohost_url: "https://github.com/acme/rocket-cli", name: "Rocket" })).id;
    appScreen = `/account/sites/${site}/app`;
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
    await runtime?.close();
    await stripe?.close();
  });

  it("buys app hosting from the App screen: the setup refused for want of it saves after paying", async () => {
    await rig.signIn(page, "buyer@example.com", appScreen);
    expect(new URL(page.url()).pathname).toBe(appScreen);
    expect(await page.getByRole("heading", { name: "App hosting: $9.00 / month" }).isVisible()).toBe(true);
    // Without hosting, the setup is the API's refusal, on the screen.
    const refused = page.waitForResponse((answer) => answer.request().method() === "POST");
    await page.getByRole("button", { name: "Save setup" }).click();
    expect((await refused).status()).toBe(402);
    await expect.poll(() => page.getByRole("alert").innerText()).toContain("App hosting is not paid for");
    await dashboardChecks(page, "dashboard-buy-hosting");

    await page.getByRole("button", { name: "Buy app hosting for this site" }).click();
    await payAndComeBack();
    expect(await page.locator("#bought").innerText()).toBe("App hosting");
    const delivered = stripe.webhooks.filter((hook) => hook.event.type === "checkout.session.completed");
    expect(delivered.at(-1)?.delivery?.status).toBe(200);
    await page.getByRole("link", { name: "The app's screen" }).click();
    await page.waitForURL((target) => target.pathname === appScreen);
    expect(await page.getByRole("heading", { name: /^App hosting/ }).count()).toBe(0);
    await page.getByRole("button", { name: "Save setup" }).click();
    await expect.poll(notice).toContain("The setup was saved");
  });

  it("buys 2 GB of memory and then 10 GB of disk from the table of sizes; back on the App screen each shows", async () => {
    await page.goto(appScreen);
    expect(await page.locator("#memory-now").innerText()).toBe("512 MB");
    await dashboardChecks(page, "dashboard-buy-sizes");
    await page.getByRole("button", { name: "Buy 2 GB of memory" }).click();
    await page.waitForURL((target) => target.origin === stripe.url);
    expect(await page.locator("#items").innerText()).toContain("× 2");
    await payAndComeBack();
    expect(await page.locator("#limit").innerText()).toBe("The app gets 2 GB of memory from its next deploy.");
    await page.getByRole("link", { name: "The app's screen" }).click();
    await page.waitForURL((target) => target.pathname === appScreen);
    // Not deployed yet: its first container gets the size bought.
    expect(await page.locator("#memory-now").innerText()).toBe("2 GB");
    expect(await page.locator("#memory-paid").innerText()).toBe("2 GB paid for.");
    // The sizes paid for are no longer sold; 4 GB charges only the 2 units not yet paid.
    expect(await page.getByRole("button", { name: "Buy 2 GB of memory" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Buy 4 GB of memory" }).isVisible()).toBe(true);

    await page.getByRole("button", { name: "Buy 10 GB of disk" }).click();
    await payAndComeBack();
    await page.getByRole("link", { name: "The app's screen" }).click();
    await page.waitForURL((target) => target.pathname === appScreen);
    expect(await page.locator("#disk-now").innerText()).toBe("10 GB");
    expect(await page.locator("#disk-paid").innerText()).toBe("10 GB paid for.");
    expect(await rig.server.reposite.hosting.resources(ownerId, site)).toMatchObject({ memory: { units: 2 }, disk: { units: 2, limit_mb: 10 * 1024 } });

    // Leaving the payment page without paying: nothing bought, and back to the same screen.
    await page.getByRole("button", { name: "Buy 4 GB of memory" }).click();
    await page.waitForURL((target) => target.origin === stripe.url);
    await page.getByRole("link", { name: "Cancel" }).click();
    await page.waitForURL((target) => target.pathname === "/account/billing/cancelled");
    await page.getByRole("link", { name: "The app's screen" }).click();
    await page.waitForURL((target) => target.pathname === appScreen);
    expect(await page.locator("#memory-paid").innerText()).toBe("2 GB paid for.");
  });

  it("buys a custom domain from the Domain screen: connecting, refused before, works after", async () => {
    const domainScreen = `/account/sites/${site}/domain`;
    await page.goto(domainScreen);
    expect(await page.getByRole("heading", { name: /^A custom domain: \$15\.00/ }).isVisible()).toBe(true);
    await page.getByLabel("Domain", { exact: true }).fill("www.rocket-buyer.test");
    const refused = page.waitForResponse((answer) => answer.request().method() === "POST");
    await page.getByRole("button", { name: "Connect" }).click();
    expect((await refused).status()).toBe(402);
    await expect.poll(() => page.getByRole("alert").innerText()).toContain("A custom domain is not paid for");
    await dashboardChecks(page, "dashboard-buy-domain");

    await page.getByRole("button", { name: "Buy a custom domain for this site" }).click();
    await payAndComeBack();
    expect(await page.locator("#bought").innerText()).toBe("Domain");
    await page.getByRole("link", { name: "The site's domain screen" }).click();
    await page.waitForURL((target) => target.pathname === domainScreen);
    expect(await page.getByRole("heading", { name: /^A custom domain/ }).count()).toBe(0);
    await page.getByLabel("Domain", { exact: true }).fill("www.rocket-buyer.test");
    await page.getByRole("button", { name: "Connect" }).click();
    await expect.poll(notice).toContain("The domain was connected");
  });

  it("a Buy form refuses a token (403), another account (404), another site's page (403) and a size not sold (400 on the screen)", async () => {
    const buy = (headers: Record<string, string>, body: Record<string, string>) =>
      fetch(`${rig.url}${appScreen}/buy/memory`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams(body) });
    const { secret: token } = await rig.server.reposite.tokens.create(ownerId, { name: "cli", lifetime: "30d" });
    expect((await buy({ authorization: `Bearer ${token}`, origin: rig.url }, { units: "4" })).status).toBe(403);

    const cookie = await sessionCookie(page.context());
    const csrf = (await page.locator("input[name=csrf]").first().getAttribute("value"))!;
    expect((await buy({ cookie, origin: "http://evil.example" }, { csrf, units: "4" })).status).toBe(403);
    const odd = await buy({ cookie, origin: rig.url }, { csrf, units: "3" });
    expect(odd.status).toBe(400);
    expect(await odd.text()).toContain("units must be one of 1, 2, 4, 8, 16");

    const { account: other } = await rig.server.reposite.accounts.findOrCreate("stranger@example.com");
    const { secret } = await rig.server.reposite.sessions.create(other.id);
    const strangerCsrf = (await rig.server.reposite.sessions.find(secret))!.session.csrf;
    expect((await buy({ cookie: `reposite_session=${secret}`, origin: rig.url }, { csrf: strangerCsrf, units: "4" })).status).toBe(404);
    // Only the four paid on the screens count: not the one left unpaid, nothing from the refused posts.
    const { purchases } = await rig.server.reposite.billing.summary(ownerId);
    expect(purchases.map((purchase) => `${purchase.product}:${purchase.status}`).sort()).toEqual(["disk:active", "domain:active", "embed:active", "memory:active"]);
  });
});
