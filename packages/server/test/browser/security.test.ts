import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionCookie, startBrowserRig, type BrowserRig } from "./setup.js";

const OPERATOR = "ops@example.com";

describe("cross-site posts and the operator dashboard in Chromium", () => {
  let rig: BrowserRig;

  beforeAll(async () => {
    rig = await startBrowserRig({ operators: [OPERATOR] });
  });
  afterAll(() => rig?.close());

  it("refuses form posts from another site or without the CSRF token, and changes nothing", async () => {
    const { context, page } = await rig.newPage();
    await rig.signIn(page, "victim@example.com");
    const account = (await rig.server.reposite.accounts.findByEmail("victim@example.com"))!;
    const cookie = await sessionCookie(context);
    const csrf = await page.locator('form[action="/account/tokens"] input[name="csrf"]').inputValue();
    const form = (fields: Record<string, string>, origin: string) =>
      fetch(`${rig.url}/account/tokens`, {
        method: "POST",
        redirect: "manual",
        headers: { origin, cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      });

    const crossSite = await form({ name: "evil", lifetime: "never", csrf }, "https://evil.example");
    expect(crossSite.status).toBe(403);
    expect(await crossSite.text()).toContain("This form was sent from another site, so it was refused.");
    const noToken = await form({ name: "evil", lifetime: "never" }, rig.url);
    expect(noToken.status).toBe(403);
    expect(await noToken.text()).toContain("This form has expired. Reload the page and try again.");
    const wrongToken = await form({ name: "evil", lifetime: "never", csrf: "x".repeat(40) }, rig.url);
    expect(wrongToken.status).toBe(403);
    expect(await rig.server.reposite.tokens.list(account.id)).toEqual([]);

    // Sign-out and agent approval are guarded the same way.
    const signOut = await fetch(`${rig.url}/account/sign-out`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: "https://evil.example", cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(signOut.status).toBe(403);
    const login = await rig.server.reposite.agentLogin.start({ client: "evil-agent" }, { address: "10.9.9.9" });
    const approve = await fetch(`${login.verification_url}/continue`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: rig.url, cookie, "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(approve.status).toBe(403);
    expect((await rig.server.reposite.agentLogin.page(new URL(login.verification_url).pathname.split("/").pop()!, account)).status).toBe(
      "pending",
    );

    // A real cross-site form in the same browser: refused, and the session still works.
    const evil = await startEvilSite(rig.url);
    try {
      await page.goto(evil.url);
      const [response] = await Promise.all([page.waitForResponse(`${rig.url}/account/tokens`), page.getByRole("button", { name: "Win a prize" }).click()]);
      expect(response.status()).toBe(403);
      expect(await rig.server.reposite.tokens.list(account.id)).toEqual([]);
      await page.goto(`${rig.url}/account`);
      expect(await page.locator("h1").innerText()).toBe("Your account");
    } finally {
      await new Promise((resolve) => evil.server.close(resolve));
    }
    await context.close();
  });

  it("keeps the dashboard to operators in a browser session", async () => {
    const { token } = await tokenFor(rig, "scripter@example.com");
    const withToken = await fetch(`${rig.url}/admin`, { headers: { authorization: `Bearer ${token}` } });
    expect(withToken.status).toBe(403);
    // A program gets the API's JSON error.
    expect(withToken.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await withToken.json()).toMatchObject({ code: "session_required" });

    const { context: plain, page: person } = await rig.newPage();
    await rig.signIn(person, "regular@example.com");
    const refused = await person.goto("/admin");
    expect(refused?.status()).toBe(403);
    expect(refused?.headers()["content-type"]).toBe("text/html; charset=utf-8");
    expect(await person.locator("main").innerText()).toContain("only for the operators of this server");
    expect(await person.getByRole("link", { name: "Operator dashboard" }).count()).toBe(0);
    await plain.close();

    // Signed out, /admin asks to sign in and comes back.
    const { context, page } = await rig.newPage();
    await page.goto("/admin");
    expect(new URL(page.url()).search).toBe("?next=%2Fadmin");
    await rig.signIn(page, OPERATOR, page.url());
    expect(new URL(page.url()).pathname).toBe("/admin");
    expect(await page.locator("h1").innerText()).toBe("Operator dashboard");
    const table = await page.locator("table").innerText();
    for (const email of ["scripter@example.com", "regular@example.com", OPERATOR]) expect(table).toContain(email);
    const accounts = (await rig.server.reposite.accounts.list()).length;
    expect(await page.locator("#count-accounts").innerText()).toBe(String(accounts));
    expect(await page.locator("tr", { hasText: "scripter@example.com" }).innerText()).toMatch(/\t0\t1$/);
    await context.close();
  });
});

async function tokenFor(rig: BrowserRig, email: string): Promise<{ token: string }> {
  const { account } = await rig.server.reposite.accounts.findOrCreate(email);
  const { secret } = await rig.server.reposite.tokens.create(account.id, { name: "script", lifetime: "30d" });
  return { token: secret };
}

/** Another site (`localhost` is another site than `127.0.0.1`) with a form aimed at Reposite. */
async function startEvilSite(target: string): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end(`<!doctype html><form method="post" action="${target}/account/tokens">
<input type="hidden" name="name" value="evil"><input type="hidden" name="lifetime" value="never">
<button type="submit">Win a prize</button></form>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://localhost:${(server.address() as AddressInfo).port}/` };
}
