import { join } from "node:path";
import { AuthenticationError, createClient } from "@reposite/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCREENSHOT_DIR, sessionCookie, startBrowserRig, type BrowserRig } from "./setup.js";

describe("account page in Chromium", () => {
  let rig: BrowserRig;

  beforeAll(async () => {
    rig = await startBrowserRig();
  });
  afterAll(() => rig?.close());

  it("signs a new person up with the mailed link, and signs them out", async () => {
    const { context, page } = await rig.newPage();
    const email = "newcomer@example.com";
    await page.goto("/account");
    await expect.poll(() => page.getByRole("heading", { name: "Sign in or sign up" }).isVisible()).toBe(true);
    expect(await rig.server.reposite.accounts.findByEmail(email)).toBeNull();

    await rig.signIn(page, email);
    expect(new URL(page.url()).pathname).toBe("/account");
    await expect.poll(() => page.getByRole("heading", { name: "Your account" }).isVisible()).toBe(true);
    expect(await page.locator("main").innerText()).toContain(`Signed in as ${email}`);
    expect(await rig.server.reposite.accounts.findByEmail(email)).not.toBeNull();

    // The one-time link does nothing a second time.
    const again = await page.goto(await rig.mailedLink(email));
    expect(again?.status()).toBe(200);
    await page.getByRole("button", { name: "Continue signing in" }).click();
    await expect.poll(() => page.getByRole("heading", { name: "This link no longer works" }).isVisible()).toBe(true);

    const cookie = (await context.cookies()).find((candidate) => candidate.name === "reposite_session")!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe("Lax");
    expect(cookie.secure).toBe(false); // plain http here; Secure is set on https
    await page.goto("/account");
    expect(await page.evaluate(() => document.cookie)).not.toContain("reposite_session");

    const oldCookie = await sessionCookie(context);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect.poll(() => page.getByRole("heading", { name: "Sign in or sign up" }).isVisible()).toBe(true);
    expect((await context.cookies()).some((candidate) => candidate.name === "reposite_session")).toBe(false);
    const replay = await fetch(`${rig.url}/account`, { headers: { cookie: oldCookie } });
    expect(await replay.text()).toContain("Sign in or sign up");
    await context.close();
  });

  it("creates a token shown once, which works with the SDK until it is revoked; the 51st is refused", async () => {
    const { context, page } = await rig.newPage();
    await rig.signIn(page, "builder@example.com");
    const account = (await rig.server.reposite.accounts.findByEmail("builder@example.com"))!;

    const create = async (name: string, lifetime: string) => {
      await page.getByLabel(/^Name/).fill(name);
      await page.getByLabel("Expires after").selectOption({ label: lifetime });
      await page.getByRole("button", { name: "Create token" }).click();
      await page.waitForLoadState();
    };
    await create("laptop", "Never expires");
    await create("ci-bot", "90 days");
    const secret = (await page.locator("#new-token-secret").innerText()).trim();
    expect(secret).toMatch(/^rps_\w+$/);
    expect(await page.locator("main").innerText()).toContain("it will not be shown again");
    expect(await page.locator("tbody tr").count()).toBe(2);
    await page.screenshot({ path: join(SCREENSHOT_DIR, "account-page.png"), fullPage: true });
    // On a phone the table becomes one card per token, Revoke button included, without sideways scrolling.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SCREENSHOT_DIR, "account-page-phone.png"), fullPage: true });
    const revoke = (await page.getByRole("button", { name: "Revoke token ci-bot" }).boundingBox())!;
    expect(revoke.x + revoke.width).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1000, height: 800 });

    // Shown once: the page again, or back in history, shows only the hint.
    await page.goto("/account");
    const listed = await page.locator("main").innerText();
    expect(listed).not.toContain(secret);
    expect(listed).toContain(`rps_…${secret.slice(-4)}`);
    expect(listed).toMatch(/ci-bot\s+rps_…\w{4}\s+Never used\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC\s+This page/);
    // Back in history: Chromium keeps no copy of a no-store POST answer (ERR_CACHE_MISS) and does not resend it.
    const back = await page.goBack().then(
      () => "shown",
      (error: Error) => error.message,
    );
    expect(back).toContain("net::ERR_CACHE_MISS");
    await page.waitForURL((target) => target.protocol === "chrome-error:");
    expect(await page.content()).not.toContain(secret);
    expect((await rig.server.reposite.tokens.list(account.id)).length).toBe(2);
    await page.goto("/account");

    const sdk = createClient({ baseURL: rig.url, token: secret, maxRetries: 0 });
    const site = await sdk.sites.create({ repohost_url: "https://github.com/acme/rocket-cli" });
    expect((await sdk.sites.list()).map((listedSite) => listedSite.id)).toEqual([site.id]);
    await page.reload();
    expect(await page.locator("tbody tr", { hasText: "ci-bot" }).innerText()).not.toContain("Never used");

    await page.getByRole("button", { name: "Revoke token ci-bot" }).click();
    await expect.poll(() => page.getByText("The token was revoked.").isVisible()).toBe(true);
    expect(await page.locator("tbody tr").count()).toBe(1);
    await expect(sdk.sites.list()).rejects.toBeInstanceOf(AuthenticationError);

    // Up to 50 working tokens: fill up to 49, make the 50th here, and the 51st is refused.
    for (let i = 0; i < 48; i++) await rig.server.reposite.tokens.create(account.id, { name: `bulk-${i}`, lifetime: "30d" });
    await page.goto("/account");
    await create("fiftieth", "30 days");
    expect(await page.locator("#new-token-secret").count()).toBe(1);
    await create("one-too-many", "30 days");
    const alert = page.getByRole("alert");
    expect(await alert.innerText()).toContain("already has 50 working tokens. Revoke one before creating another.");
    expect(await page.locator("#new-token-secret").count()).toBe(0);
    expect(await page.getByLabel(/^Name/).inputValue()).toBe("one-too-many");
    expect((await rig.server.reposite.tokens.list(account.id)).length).toBe(50);
    await context.close();
  });

  it("shows a signed-in person the billing portal page, and sends others to sign in", async () => {
    const { context, page } = await rig.newPage();
    await page.goto("/account/billing");
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/account?next=%2Faccount%2Fbilling");
    await page.getByLabel("Email address").fill("payer@example.com");
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.waitForURL(/\/account\/sign-in\/sent/);
    await page.goto(await rig.mailedLink("payer@example.com"));
    await page.getByRole("button", { name: "Continue signing in" }).click();
    await page.waitForURL(`${rig.url}/account/billing`);
    expect(await page.locator("main").innerText()).toContain("Payments are not set up on this server");
    await context.close();
  });
});
