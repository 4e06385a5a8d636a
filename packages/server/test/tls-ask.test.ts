import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startHarness, type Harness } from "./harness.js";
import { publishSite } from "./publish-site.js";

describe.each(["in-process", "socket"] as const)("GET /tls/ask (%s)", (transport) => {
  let h: Harness;
  let siteId: string;
  const ask = (domain?: string) => h.call(domain === undefined ? "/tls/ask" : `/tls/ask?domain=${encodeURIComponent(domain)}`);

  beforeAll(async () => {
    h = await startHarness(transport, undefined, { config: { baseUrl: "https://reposite.test", sitesDomain: "sites.test" } });
    const { token } = await h.signUp("ada@example.com");
    siteId = await publishSite(h, token, "rocket");
  });
  afterAll(async () => {
    await h?.close();
  });

  it("answers 200 for a verified custom domain, without a token, and 404 while it is not verified", async () => {
    h.reposite.domainTable.set({ domain: "www.rocket.example", siteId, slug: "rocket", verified: false });
    const unverified = await ask("www.rocket.example");
    expect(unverified.status).toBe(404);
    await expect(unverified.json()).resolves.toMatchObject({ code: "certificate_not_allowed", error: expect.stringContaining("www.rocket.example") });

    h.reposite.domainTable.set({ domain: "www.rocket.example", siteId, slug: "rocket", verified: true });
    const verified = await ask("www.rocket.example");
    expect(verified.status).toBe(200);
    await expect(verified.json()).resolves.toEqual({ allowed: true, domain: "www.rocket.example", kind: "custom_domain" });
    // The name as a client may send it: any case, a trailing dot.
    await expect((await ask("WWW.Rocket.Example.")).json()).resolves.toMatchObject({ domain: "www.rocket.example", kind: "custom_domain" });

    // Removed: no certificate any more, at once (the table is memory).
    h.reposite.domainTable.deleteSite(siteId);
    expect((await ask("www.rocket.example")).status).toBe(404);
  });

  it("takes internationalised names in punycode or in Unicode", async () => {
    h.reposite.domainTable.set({ domain: "xn--bcher-kva.example", siteId, slug: "rocket", verified: true });
    await expect((await ask("xn--bcher-kva.example")).json()).resolves.toMatchObject({ domain: "xn--bcher-kva.example", kind: "custom_domain" });
    await expect((await ask("Bücher.example")).json()).resolves.toMatchObject({ domain: "xn--bcher-kva.example", kind: "custom_domain" });
    h.reposite.domainTable.deleteSite(siteId);
  });

  it("answers 200 for a published site's address and the service's host, 404 for other names", async () => {
    await expect((await ask("rocket.sites.test")).json()).resolves.toEqual({ allowed: true, domain: "rocket.sites.test", kind: "site_address" });
    await expect((await ask("reposite.test")).json()).resolves.toEqual({ allowed: true, domain: "reposite.test", kind: "service" });
    for (const name of ["nobody-here.sites.test", "a.b.sites.test", "sites.test", "x.sites.test", "example.com", "rocket.sites.test.evil.example", "localhost"]) {
      const answer = await ask(name);
      expect(answer.status, name).toBe(404);
      await expect(answer.json()).resolves.toMatchObject({ code: "certificate_not_allowed" });
    }
  });

  it("refuses IP addresses (404) and missing or malformed names (400), never 500", async () => {
    for (const ip of ["127.0.0.1", "::1", "[::1]", "10.0.0.1"]) {
      const answer = await ask(ip);
      expect(answer.status, ip).toBe(404);
      await expect(answer.json()).resolves.toMatchObject({ code: "certificate_not_allowed" });
    }
    for (const missing of [undefined, "", "  "]) {
      const answer = await ask(missing);
      expect(answer.status).toBe(400);
      await expect(answer.json()).resolves.toMatchObject({ code: "domain_required" });
    }
    for (const bad of ["bad name.example", "under_score.example", "-dash.example", "a..b", `${"a".repeat(64)}.example`, `${"abc.".repeat(64)}example`, "x.example/path", "x.example:443", "\u0000.example"]) {
      const answer = await ask(bad);
      expect(answer.status, bad).toBe(400);
      await expect(answer.json()).resolves.toMatchObject({ code: "invalid_domain" });
    }
  });

  it("answers 503 (not 500) when published sites cannot be read", async () => {
    const read = vi.spyOn(h.reposite.siteCache, "get").mockRejectedValueOnce(new Error("storage is down"));
    try {
      const answer = await ask("someone-else.sites.test");
      expect(answer.status).toBe(503);
      await expect(answer.json()).resolves.toMatchObject({ code: "storage_unavailable" });
    } finally {
      read.mockRestore();
    }
  });
});
