import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness, type Transport } from "./harness.js";

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const REFERENCE = join(import.meta.dirname, "../../../docs/http-api.md");

// The server's root address, as a browser and as an API client see it; run both ways.
describe.each<Transport>(["in-process", "socket"])("the root address and the API reference (%s)", (transport) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(transport);
  });
  afterAll(() => h.close());

  it("shows a browser what the service is, with links to the account pages and the API reference", async () => {
    const response = await h.call("/", { headers: { accept: BROWSER_ACCEPT } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("vary")).toBe("Accept");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    const page = await response.text();
    expect(page).toContain("<title>Reposite · Reposite</title>");
    expect(page).toContain("turns a code repository into a product website");
    expect(page).toContain('<a href="/account">Sign in or sign up</a>');
    expect(page).toContain('<a href="/docs/api">the API reference</a>');
    expect(page).toContain("<code>http://&lt;slug&gt;.sites.test</code>");
  });

  it("greets a signed-in person with a link to their account", async () => {
    const { account } = await h.reposite.accounts.findOrCreate("pat@example.com");
    const { secret } = await h.reposite.sessions.create(account.id);
    const page = await (await h.call("/", { headers: { accept: BROWSER_ACCEPT, cookie: `reposite_session=${secret}` } })).text();
    expect(page).toContain('<a href="/account">Your account</a>');
    expect(page).toContain("pat@example.com");
  });

  it.each([["application/json"], ["*/*"], [""]])("answers JSON to an API client (Accept: %j)", async (accept) => {
    const response = await h.call("/", accept ? { headers: { accept } } : {});
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      service: "reposite",
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      api: "http://127.0.0.1:3000",
      account_url: "http://127.0.0.1:3000/account",
      api_reference: "http://127.0.0.1:3000/docs/api",
      openapi: "http://127.0.0.1:3000/openapi.json",
      health: "http://127.0.0.1:3000/healthz",
    });
  });

  it("serves the API reference as a page, with anchors its own links use, and as Markdown", async () => {
    const markdown = await readFile(REFERENCE, "utf8");
    const response = await h.call("/docs/api", { headers: { accept: BROWSER_ACCEPT } });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('<h1 id="http-api">HTTP API</h1>');
    expect(page).toContain('<h3 id="errors">Errors</h3>');
    // One h1: the document's parts ("The contract", …) are the h2s under it.
    expect(page.match(/<h1[ >]/g)).toHaveLength(1);
    expect(page).toContain('<h2 id="the-contract">The contract</h2>');
    // Every in-page link of the document leads to a heading of the page.
    const ids = new Set([...page.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]));
    const targets = [...markdown.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(ids, target).toContain(target);
    expect(page).toContain('<div class="table-wrap"><table>');
    expect(page).not.toMatch(/<script/i);

    const raw = await h.call("/docs/api.md");
    expect(raw.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await raw.text()).toBe(markdown);
  });

  it("still answers JSON 404 for other unknown paths", async () => {
    const response = await h.call("/nothing-here", { headers: { accept: "application/json" } });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "not_found" });
  });
});
