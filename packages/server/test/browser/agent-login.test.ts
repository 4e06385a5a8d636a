import { join } from "node:path";
import { AuthenticationError, ConflictError, createClient, GoneError, PermissionDeniedError } from "@reposite/sdk";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCREENSHOT_DIR, startBrowserRig, type BrowserRig } from "./setup.js";

describe("agent login in Chromium", () => {
  let rig: BrowserRig;
  const agent = () => createClient({ baseURL: rig.url, maxRetries: 0 });
  const heading = (page: Page) => page.locator("h1").innerText();

  beforeAll(async () => {
    rig = await startBrowserRig();
  });
  afterAll(() => rig?.close());

  it("runs the whole login: mail, sign-in, continue, code, token", async () => {
    const email = "owner@example.com";
    const login = await agent().agent.login({ email, client: "Claude Code" });
    expect(login.email_sent).toBe(true);
    await expect(login.complete("BCDF-GHJK")).rejects.toMatchObject({ status: 409, code: "not_opened" });

    // The person opens the mailed link in a browser that is not signed in.
    const { context, page } = await rig.newPage();
    await page.goto(await rig.mailedLink(email));
    await page.getByRole("button", { name: "Continue signing in" }).click();
    await page.waitForURL(login.verification_url);
    expect(await heading(page)).toBe("“Claude Code” asks to use your Reposite account");
    expect(await page.getByRole("note").innerText()).toContain("Only continue if you started this yourself");

    // Two choices of equal weight, side by side.
    const accept = page.getByRole("button", { name: "Continue", exact: true });
    const decline = page.getByRole("button", { name: "I did not ask for this" });
    const [a, d] = [(await accept.boundingBox())!, (await decline.boundingBox())!];
    expect(Math.abs(a.width - d.width)).toBeLessThan(1);
    expect(Math.abs(a.height - d.height)).toBeLessThan(1);
    expect(Math.abs(a.y - d.y)).toBeLessThan(1);
    expect(d.x).toBeGreaterThan(a.x + a.width);
    const look = (button: typeof accept) =>
      button.evaluate((element) => {
        const style = getComputedStyle(element);
        return [style.fontSize, style.fontWeight, style.backgroundColor, style.color, style.borderWidth, style.borderColor].join("|");
      });
    expect(await look(decline)).toBe(await look(accept));
    await page.screenshot({ path: join(SCREENSHOT_DIR, "verify-choice.png"), fullPage: true });

    await accept.click();
    await page.waitForURL(login.verification_url);
    const code = (await page.locator("#login-code").innerText()).trim();
    expect(code).toMatch(/^[B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4}$/);
    expect(await page.locator("main").innerText()).toContain("Read this code to the program");
    await page.screenshot({ path: join(SCREENSHOT_DIR, "verify-code.png"), fullPage: true });
    // The same at phone width.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SCREENSHOT_DIR, "verify-code-phone.png"), fullPage: true });

    // The agent types what it was read: case and dash do not matter.
    const issued = await login.complete(code.toLowerCase().replace("-", ""));
    expect(issued.user.email).toBe(email);
    const me = await createClient({ baseURL: rig.url, token: issued.token, maxRetries: 0 }).agent.me();
    expect(me).toMatchObject({ user: { email }, auth: "token", token: { name: "Claude Code", source: "agent" } });

    await page.reload();
    expect(await heading(page)).toBe("The program is logged in");
    expect(await page.content()).not.toContain(code);
    await page.goto("/account");
    expect(await page.locator("tbody tr", { hasText: "Claude Code" }).innerText()).toContain("Agent login");
    await context.close();
  });

  it("declines before the token: the agent is told 403 denied", async () => {
    const { context, page } = await rig.newPage();
    await rig.signIn(page, "careful@example.com");
    const login = await agent().agent.login({ client: "unknown-script" });
    expect(login.email_sent).toBe(false);
    await page.goto(login.verification_url);
    await page.getByRole("button", { name: "I did not ask for this" }).click();
    await page.waitForURL(login.verification_url);
    expect(await heading(page)).toBe("You declined this request");
    const refused = await login.complete("BCDF-GHJK").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PermissionDeniedError);
    expect(refused).toMatchObject({ status: 403, code: "denied" });
    await context.close();
  });

  it("declines after the token was issued: the token answers 401", async () => {
    const { context, page } = await rig.newPage();
    await rig.signIn(page, "second-thoughts@example.com");
    const login = await agent().agent.login({ email: "second-thoughts@example.com", client: "sneaky-agent" });
    await page.goto(login.verification_url);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    const code = await page.locator("#login-code").innerText();
    const issued = await login.complete(code);
    const client = createClient({ baseURL: rig.url, token: issued.token, maxRetries: 0 });
    expect((await client.agent.me()).user.email).toBe("second-thoughts@example.com");

    await page.reload();
    await page.getByRole("button", { name: "I did not ask for this" }).click();
    await page.waitForURL(login.verification_url);
    expect(await page.locator("main").innerText()).toContain("If it had received a token, that token no longer works.");
    await expect(client.agent.me()).rejects.toBeInstanceOf(AuthenticationError);
    const raw = await fetch(`${rig.url}/agent/me`, { headers: { authorization: `Bearer ${issued.token}` } });
    expect(raw.status).toBe(401);
    await context.close();
  });

  it("tells a person signed in as another account to sign out, and lets them", async () => {
    const { context, page } = await rig.newPage();
    await rig.signIn(page, "someone-else@example.com");
    const login = await agent().agent.login({ email: "intended@example.com", client: "deploy-tool" });
    await page.goto(login.verification_url);
    expect(await heading(page)).toBe("Signed in as another account");
    const text = await page.locator("main").innerText();
    expect(text).toContain("You are signed in as someone-else@example.com, but this request is for intended@example.com");
    await page.locator("main").getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(login.verification_url);
    expect(await heading(page)).toBe("A program asks to use your Reposite account");
    await expect(login.complete("BCDF-GHJK")).rejects.toBeInstanceOf(ConflictError);

    // Signed out, the page offers to mail a link that comes back here.
    await page.getByLabel("Email address").fill("intended@example.com");
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    expect(await heading(page)).toBe("Check your email");
    await page.goto(await rig.mailedLink("intended@example.com"));
    await page.getByRole("button", { name: "Continue signing in" }).click();
    await page.waitForURL(login.verification_url);
    expect(await heading(page)).toBe("“deploy-tool” asks to use your Reposite account");
    await context.close();
  });

  it("shows an expired request, and a 404 page for an unknown link", async () => {
    const { context, page } = await rig.newPage();
    await rig.signIn(page, "late@example.com");
    const login = await agent().agent.login({ client: "slow-agent" });
    rig.advance(16 * 60_000);
    try {
      await page.goto(login.verification_url);
      expect(await heading(page)).toBe("This login request has expired");
      expect(await page.getByRole("button", { name: "Continue", exact: true }).count()).toBe(0);
      await expect(login.complete("BCDF-GHJK")).rejects.toBeInstanceOf(GoneError);
    } finally {
      rig.advance(-16 * 60_000);
    }
    const unknown = await page.goto("/agent/verify/verify_doesnotexist0000");
    expect(unknown?.status()).toBe(404);
    expect(await heading(page)).toBe("Not found");
    expect(await page.locator("main").innerText()).toContain("This login link is not known");
    await context.close();
  });
});
