import { createMemoryContainerRuntime, createMemoryPayments, type MemoryContainerRuntime, type MemoryPayments } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, json, startHarness, type Harness } from "./harness.js";

// The billing pages without a browser: who may see them, what they show, the portal's redirect.
const ORIGIN = "http://127.0.0.1:3000";
const HOST = "127.0.0.1:3000";

const REPOS = [
  { owner: "acme", name: "rocket-cli", description: "Launch rockets", topics: [], files: { Dockerfile: 'FROM node:22\nCMD ["node", "server.js"]\n' } },
];

interface Person {
  accountId: string;
  token: string;
  cookie: string;
  csrf: string;
}

async function person(h: Harness, email: string): Promise<Person> {
  const { token, accountId } = await h.signUp(email);
  const { secret, session } = await h.reposite.sessions.create(accountId);
  return { accountId, token, cookie: `reposite_session=${secret}`, csrf: session.csrf };
}

const page = (h: Harness, path: string, who?: Person) => h.call(path, { redirect: "manual", headers: who ? { cookie: who.cookie } : {} });

/** A form post as the billing page sends it. */
const post = (h: Harness, path: string, who: Person | null, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  h.call(path, {
    method: "POST",
    redirect: "manual",
    headers: { host: HOST, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded", ...(who ? { cookie: who.cookie } : {}), ...headers },
    body: new URLSearchParams(fields).toString(),
  });

const formAction = (response: Response) => /form-action ([^;]*)/.exec(response.headers.get("content-security-policy") ?? "")?.[1];

describe("billing pages with payments on (in-process)", () => {
  let h: Harness;
  let runtime: MemoryContainerRuntime;
  let pay: MemoryPayments;
  let ada: Person;
  let bob: Person;
  let site: string;

  beforeAll(async () => {
    runtime = createMemoryContainerRuntime();
    pay = createMemoryPayments();
    h = await startHarness("in-process", REPOS, { containerRuntime: runtime, payments: pay });
    ada = await person(h, "ada@example.com");
    bob = await person(h, "bob@example.com");
    const created = await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli", name: "Rocket <Launch>" }, ada.token));
    site = (await created.json()).id;
  });
  afterAll(async () => {
    await h.close();
    await runtime.close();
  });

  it("refuses an API token on every billing page and the portal (403 session_required), with or without an Origin", async () => {
    for (const path of ["/account/billing", "/account/billing/return?session_id=cs_x", "/account/billing/cancelled"]) {
      const response = await h.call(path, bearer(ada.token));
      expect(response.status, path).toBe(403);
      await expect(response.json()).resolves.toMatchObject({ code: "session_required" });
    }
    for (const headers of [{}, { origin: "https://evil.example" }] as Record<string, string>[]) {
      const portal = await post(h, "/account/billing/portal", null, {}, { authorization: `Bearer ${ada.token}`, ...headers });
      expect(portal.status).toBe(403);
      await expect(portal.json()).resolves.toMatchObject({ code: "session_required" });
    }
    expect(pay.portals).toHaveLength(0);
  });

  it("sends a signed-out person to sign in and back to the very address (the session id kept)", async () => {
    for (const path of ["/account/billing", "/account/billing/return?session_id=cs_abc", `/account/billing/cancelled?site_id=${site}&product=embed`]) {
      const response = await page(h, path);
      expect(response.status, path).toBe(303);
      expect(response.headers.get("location")).toBe(`/account?next=${encodeURIComponent(path)}`);
    }
    const portal = await post(h, "/account/billing/portal", null, {});
    expect(portal.status).toBe(303);
    expect(portal.headers.get("location")).toBe("/account?next=%2Faccount%2Fbilling");
  });

  it("before anything is bought: the prices, nothing bought, and no portal button but a clear word (the portal post says it too)", async () => {
    const response = await page(h, "/account/billing", ada);
    expect(response.status).toBe(200);
    // The portal button's redirect leaves for the provider: the policy lets forms lead there.
    expect(formAction(response)).toBe("'self' https: http:");
    const body = await response.text();
    expect(body).toContain("You have not bought anything yet.");
    expect(body).toContain("$9.00 / month");
    expect(body).toContain("$3.00 / month per unit of 1 GB");
    expect(body).toContain("$2.00 / month per unit of 5 GB");
    expect(body).toContain("16 GB $48.00 / month");
    expect(body).toContain("$12.00 once");
    expect(body).not.toContain('action="/account/billing/portal"');
    expect(body).toContain("The billing portal opens once you have bought something");

    const portal = await post(h, "/account/billing/portal", ada, { csrf: ada.csrf });
    expect(portal.status).toBe(409);
    const said = await portal.text();
    expect(said).toContain('role="alert"');
    expect(said).toContain("Nothing has been bought on this account yet");
    expect(said).toContain("<h1>Billing</h1>");
  });

  it("the return page: waiting until paid, then payment received with what and for which project; another account's session is not found", async () => {
    const checkout = await (await h.call("/billing/embed/checkout", json({ site_id: site }, ada.token))).json();
    const request = pay.checkouts.at(-1)!.request;
    expect(request.successUrl).toBe(`${ORIGIN}/account/billing/return?session_id={CHECKOUT_SESSION_ID}`);
    expect(request.cancelUrl).toBe(`${ORIGIN}/account/billing/cancelled?site_id=${site}&product=embed`);
    const returnPath = `/account/billing/return?session_id=${checkout.id}`;

    const waiting = await page(h, returnPath, ada);
    expect(waiting.status).toBe(200);
    expect(formAction(waiting)).toBe("'self'");
    const before = await waiting.text();
    expect(before).toContain("We are waiting for the payment to be confirmed");
    expect(before).toContain("Rocket &lt;Launch&gt;");
    expect(before).not.toContain("Payment received");

    // Bob holds the link: nothing of Ada's purchase, as if it did not exist.
    for (const path of [returnPath, "/account/billing/return?session_id=cs_nobody"]) {
      const foreign = await page(h, path, bob);
      expect(foreign.status, path).toBe(404);
      const text = await foreign.text();
      expect(text).toContain("Not found");
      expect(text).not.toContain("Rocket");
      expect(text).not.toContain("App hosting");
    }
    const missing = await page(h, "/account/billing/return", ada);
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain("invalid_link");

    // Paid at the provider, no webhook yet: the return page confirms it itself.
    pay.complete(checkout.id);
    const paid = await (await page(h, returnPath, ada)).text();
    expect(paid).toContain("Payment received");
    // Not published and no app yet: the name alone, nothing to link to.
    expect(paid).toContain('<strong id="bought">App hosting</strong> for <strong id="bought-for">Rocket &lt;Launch&gt;</strong>');
    expect(paid).toContain('href="/account/billing"');
    expect(paid).toContain(`href="/account/sites/${site}/app"`);
    await expect((await h.call(`/billing/embed?site_id=${site}`, bearer(ada.token))).json()).resolves.toMatchObject({ paid: true });
    // Still Ada's only.
    expect((await page(h, returnPath, bob)).status).toBe(404);
  });

  it("the billing page after buying: the purchase for its project, what is in use, each app's memory and disk, and the portal button to the provider", async () => {
    expect((await h.call(`/app/sites/${site}/deployment`, json({}, ada.token, "PUT"))).status).toBe(201);
    const memory = await (await h.call("/billing/memory/checkout", json({ site_id: site, units: 2 }, ada.token))).json();
    pay.complete(memory.id);
    const memoryReturn = await (await page(h, `/account/billing/return?session_id=${memory.id}`, ada)).text();
    expect(memoryReturn).toContain("<strong id=\"bought\">Memory</strong>");
    expect(memoryReturn).toContain("The app gets 2 GB of memory from its next deploy.");
    // One left at the payment page: not a purchase.
    await h.call("/billing/disk/checkout", json({ site_id: site, units: 1 }, ada.token));

    const response = await page(h, "/account/billing", ada);
    expect(response.status).toBe(200);
    const body = await response.text();
    const purchases = /<table class="cards" id="purchases">([\s\S]*?)<\/table>/.exec(body)?.[1] ?? "";
    const rows = purchases.split("<tr>").slice(2);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain("Memory");
    expect(rows[0]).toContain("2 units (2 GB)");
    expect(rows[0]).toContain(`<a href="/account/sites/${site}/app">Rocket &lt;Launch&gt;</a>`);
    expect(rows[1]).toContain("App hosting");
    expect(rows[1]).toContain('<td data-label="Size">One app</td>');
    expect(rows[1]).toContain("Active");
    expect(purchases).not.toContain("Disk");
    expect(body).toMatch(/<tr data-product="embed"><td data-label="Product">App hosting<\/td><td data-label="Bought">1<\/td><td data-label="In use">1<\/td><\/tr>/);
    expect(body).toMatch(/<tr data-product="memory"><td data-label="Product">Memory<\/td><td data-label="Bought">1 \(2 units\)<\/td><td data-label="In use">1<\/td><\/tr>/);
    expect(body).toMatch(/<tr data-product="domain"><td data-label="Product">Domain<\/td><td data-label="Bought">0<\/td><td data-label="In use">0<\/td><\/tr>/);
    const sizes = /<tr data-site="[^"]+">([\s\S]*?)<\/tr>/.exec(body)?.[1] ?? "";
    expect(sizes).toContain("Rocket &lt;Launch&gt;");
    expect(sizes).toContain('<td data-label="Memory">2 GB <span class="muted">(2 units paid)</span>');
    expect(sizes).toContain('<td data-label="Disk">3 GB <span class="muted">(free tier)</span>');
    expect(body).toContain(`<form method="post" action="/account/billing/portal"><input type="hidden" name="csrf" value="${ada.csrf}">`);

    // The portal: the provider's address, coming back to the billing page, for Ada's customer.
    const portal = await post(h, "/account/billing/portal", ada, { csrf: ada.csrf });
    expect(portal.status).toBe(303);
    const customerId = (await pay.getCheckout(memory.id))!.customerId!;
    expect(portal.headers.get("location")).toBe(`https://pay.memory.test/portal/${customerId}?return=${encodeURIComponent(`${ORIGIN}/account/billing`)}`);
    expect(pay.portals.at(-1)).toEqual({ customerId, returnUrl: `${ORIGIN}/account/billing` });

    // The form's checks hold: the session's CSRF token, this server's own pages.
    const opened = pay.portals.length;
    const stale = await post(h, "/account/billing/portal", ada, { csrf: "not-the-token" });
    expect(stale.status).toBe(403);
    expect(await stale.text()).toContain("invalid_csrf_token");
    const foreign = await post(h, "/account/billing/portal", ada, { csrf: ada.csrf }, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain("cross_site_request");
    expect(pay.portals).toHaveLength(opened);

    // Bob's page shows none of it.
    const bobs = await (await page(h, "/account/billing", bob)).text();
    expect(bobs).toContain("You have not bought anything yet.");
    expect(bobs).not.toContain("Rocket");
  });

  it("the cancel page says nothing was charged, naming the project only for its owner", async () => {
    const path = `/account/billing/cancelled?site_id=${site}&product=memory`;
    const own = await page(h, path, ada);
    expect(own.status).toBe(200);
    const body = await own.text();
    expect(body).toContain("Payment cancelled");
    expect(body).toContain("Nothing was charged.");
    expect(body).toContain(`for Memory (<a href="/account/sites/${site}/app">Rocket &lt;Launch&gt;</a>)`);
    expect(body).toContain('href="/account/billing"');

    const other = await (await page(h, path, bob)).text();
    expect(other).toContain("Nothing was charged.");
    expect(other).not.toContain("Rocket");
    expect(other).not.toContain(`/account/sites/${site}/app`);
    const odd = await page(h, "/account/billing/cancelled?site_id=../x&product=<b>", ada);
    expect(odd.status).toBe(200);
    expect(await odd.text()).not.toContain("<b>");
  });
});

describe("billing pages with payments off (in-process)", () => {
  let h: Harness;
  let ada: Person;
  beforeAll(async () => {
    h = await startHarness("in-process");
    ada = await person(h, "free@example.com");
  });
  afterAll(() => h.close());

  it("says everything is free, has no portal button and keeps form-action 'self'; a portal post is answered on the page", async () => {
    const response = await page(h, "/account/billing", ada);
    expect(response.status).toBe(200);
    expect(formAction(response)).toBe("'self'");
    const body = await response.text();
    expect(body).toContain("Payments are not set up on this server, so everything is free");
    expect(body).not.toContain("/account/billing/portal");
    expect(body).not.toContain("Prices");

    const portal = await post(h, "/account/billing/portal", ada, { csrf: ada.csrf });
    expect(portal.status).toBe(503);
    expect(await portal.text()).toContain("Payments are off on this server: everything is free, there is no billing portal.");
  });
});
