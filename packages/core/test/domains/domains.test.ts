import { dnsmasqAvailable, startDnsServer, type DnsServer } from "@reposite/test-support";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startBillingHarness, type BillingHarness } from "../billing/billing-helpers.js";
import { eventually, startHostingHarness, type HostingHarness } from "../hosting/hosting-harness.js";

const PUBLIC_IPV4 = "203.0.113.7";

/** The error a promise rejects with. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string | undefined; message: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    const { status, code, message, details } = error as { status: number; code?: string; message: string; details?: Record<string, unknown> };
    return { status, code, message, details };
  }
  throw new Error("expected a refusal, the call succeeded");
}

describe.skipIf(!dnsmasqAvailable())("custom domains against a real DNS server on loopback", () => {
  let dns: DnsServer;
  let h: HostingHarness;
  let owner: string;

  beforeAll(async () => {
    dns = await startDnsServer();
    h = await startHostingHarness({ runtime: null, dns: { servers: [dns.address], timeoutMs: 1_000, tries: 1 }, config: { publicIpv4: PUBLIC_IPV4 } });
    owner = await h.account("ada@example.com");
  });
  afterAll(async () => {
    await h?.close();
    await dns?.close();
  });
  beforeEach(async () => {
    await dns.setRecords({});
  });

  const slugOf = async (site: string) => (await h.reposite.projects.get(owner, site)).slug!;

  it("a subdomain needs a CNAME to the project's address: missing, then found, and the domain is verified", async () => {
    const site = await h.project(owner, "web", "Rocket");
    const set = await h.reposite.domains.set(owner, site, { domain: "WWW.Rocket-App.com" });
    const slug = await slugOf(site);
    expect(set).toEqual({
      domain: "www.rocket-app.com",
      domain_unicode: "www.rocket-app.com",
      apex: false,
      records: [{ type: "CNAME", name: "www.rocket-app.com", host: "www", value: `${slug}.sites.example`, purpose: expect.stringContaining("your project's address") }],
      verified: false,
      verified_at: null,
    });
    expect(h.reposite.domainTable.ofSite(site)).toEqual({ domain: "www.rocket-app.com", siteId: site, slug, verified: false });
    expect(h.reposite.domainTable.resolve("www.rocket-app.com")).toBeUndefined();

    const missing = await h.reposite.domains.verify(owner, site);
    expect(missing.verified).toBe(false);
    expect(missing.dns).toMatchObject({ found: false, records: [{ type: "CNAME", name: "www.rocket-app.com", expected: `${slug}.sites.example`, found: [], ok: false }] });
    expect(missing.dns.message).toMatch(/no record for www\.rocket-app\.com/);
    expect(missing.dns.message).toContain(`Missing: a CNAME record named www.rocket-app.com pointing to ${slug}.sites.example`);

    await dns.setRecords({ cname: { "www.rocket-app.com": "elsewhere.example.net" } });
    const wrong = await h.reposite.domains.verify(owner, site);
    expect(wrong.dns.found).toBe(false);
    expect(wrong.dns.message).toContain("Found: www.rocket-app.com is a CNAME to elsewhere.example.net.");
    expect(wrong.dns.message).toContain(`change the CNAME record of www.rocket-app.com to point to ${slug}.sites.example`);
    expect(h.reposite.domainTable.isVerified("www.rocket-app.com")).toBe(false);

    await dns.setRecords({ cname: { "www.rocket-app.com": `${slug}.sites.example` } });
    const found = await h.reposite.domains.verify(owner, site);
    expect(found).toMatchObject({ domain: "www.rocket-app.com", verified: true, verified_at: expect.any(String), dns: { found: true, records: [{ type: "CNAME", ok: true, found: [`${slug}.sites.example`] }] } });
    expect(found.dns.message).toContain(`Found: www.rocket-app.com is a CNAME to ${slug}.sites.example.`);
    expect(found.dns.message).toContain("HTTPS certificate is issued automatically");
    expect(h.reposite.domainTable.resolve("www.rocket-app.com")).toBe(slug);
    expect(h.reposite.domainTable.isVerified("www.rocket-app.com")).toBe(true);
    expect(h.reposite.domains.proofFor("www.rocket-app.com")).toMatch(/^reposite-verification=dom_/);
    expect(h.reposite.domains.proofFor("other.example.com")).toBeUndefined();
    await expect(h.reposite.domains.get(owner, site)).resolves.toMatchObject({ verified: true, domain: "www.rocket-app.com" });
  });

  it("a bare domain needs an A record to the server and the TXT record: the missing TXT is named, then found", async () => {
    const site = await h.project(owner, "web", "Apex");
    const set = await h.reposite.domains.set(owner, site, { domain: "rocket-apex.com" });
    const txt = set.records.find((record) => record.type === "TXT")!;
    expect(set).toMatchObject({ apex: true, verified: false });
    expect(set.records).toEqual([
      { type: "A", name: "rocket-apex.com", host: "@", value: PUBLIC_IPV4, purpose: expect.stringContaining("this service") },
      { type: "TXT", name: "_reposite.rocket-apex.com", host: "_reposite", value: expect.stringMatching(/^reposite-verification=dom_\w+$/), purpose: expect.stringContaining("yours") },
    ]);

    await dns.setRecords({ a: { "rocket-apex.com": [PUBLIC_IPV4] } });
    const noTxt = await h.reposite.domains.verify(owner, site);
    expect(noTxt.verified).toBe(false);
    expect(noTxt.dns.message).toContain(`Found: rocket-apex.com points to this service (${PUBLIC_IPV4}).`);
    expect(noTxt.dns.message).toContain(`Missing: a TXT record named _reposite.rocket-apex.com with the value ${txt.value}.`);
    expect(noTxt.dns.records).toEqual([
      { type: "A", name: "rocket-apex.com", expected: PUBLIC_IPV4, found: [PUBLIC_IPV4], ok: true },
      { type: "TXT", name: "_reposite.rocket-apex.com", expected: txt.value, found: [], ok: false },
    ]);

    await dns.setRecords({ a: { "rocket-apex.com": [PUBLIC_IPV4] }, txt: { "_reposite.rocket-apex.com": ["reposite-verification=someone-else"] } });
    const wrongTxt = await h.reposite.domains.verify(owner, site);
    expect(wrongTxt.dns.message).toContain(`has "reposite-verification=someone-else", not "${txt.value}"`);

    await dns.setRecords({ a: { "rocket-apex.com": [PUBLIC_IPV4] }, txt: { "_reposite.rocket-apex.com": [txt.value] } });
    const found = await h.reposite.domains.verify(owner, site);
    expect(found).toMatchObject({ verified: true, dns: { found: true } });
    expect(found.dns.message).toContain("the TXT record _reposite.rocket-apex.com proves ownership");
    expect(h.reposite.domainTable.isVerified("rocket-apex.com")).toBe(true);

    // Verified stays verified while DNS changes later; the check still says what it sees.
    await dns.setRecords({});
    const later = await h.reposite.domains.verify(owner, site);
    expect(later).toMatchObject({ verified: true, dns: { found: false } });
  });

  it("an address of Cloudflare's proxy is named as such, with DNS only as the fix", async () => {
    const site = await h.project(owner, "web", "Proxied");
    const { records } = await h.reposite.domains.set(owner, site, { domain: "proxied-apex.com" });
    const txt = records.find((record) => record.type === "TXT")!.value;
    await dns.setRecords({ a: { "proxied-apex.com": ["104.16.1.1"] }, txt: { "_reposite.proxied-apex.com": [txt] } });
    const apex = await h.reposite.domains.verify(owner, site);
    expect(apex.verified).toBe(false);
    expect(apex.dns.message).toContain("104.16.1.1, addresses of Cloudflare's proxy: the record is proxied by Cloudflare");
    expect(apex.dns.message).toContain("set the record to DNS only");
    expect(apex.dns.records[0]).toMatchObject({ type: "A", found: ["104.16.1.1"], ok: false, proxied_by: "Cloudflare" });

    // A proxied CNAME answers with the proxy's addresses and no CNAME.
    await h.reposite.domains.set(owner, site, { domain: "www.proxied-apex.com" });
    await dns.setRecords({ a: { "www.proxied-apex.com": ["172.67.1.1"] } });
    const sub = await h.reposite.domains.verify(owner, site);
    expect(sub.dns.found).toBe(false);
    expect(sub.dns.message).toMatch(/proxied by Cloudflare.*DNS only/);
    expect(sub.dns.records).toContainEqual(expect.objectContaining({ type: "A", proxied_by: "Cloudflare" }));
  });

  it("a bare domain that also points elsewhere is not verified; the other address is named", async () => {
    const site = await h.project(owner, "web", "Split");
    const { records } = await h.reposite.domains.set(owner, site, { domain: "split-apex.com" });
    const txt = records.find((record) => record.type === "TXT")!.value;
    await dns.setRecords({ a: { "split-apex.com": [PUBLIC_IPV4] }, aaaa: { "split-apex.com": ["2001:db8::99"] }, txt: { "_reposite.split-apex.com": [txt] } });
    const check = await h.reposite.domains.verify(owner, site);
    expect(check.verified).toBe(false);
    expect(check.dns.message).toContain("also points to 2001:db8::99, which is not this service");
    expect(check.dns.message).toContain("remove the A/AAAA records of split-apex.com that point to 2001:db8::99");
  });

  it("one project per verified domain (409 domain_taken); an unverified claim blocks nobody; the same domain again keeps its token; another replaces it and frees the first", async () => {
    const site = await h.project(owner, "web", "Holder");
    const other = await h.account("eve@example.com");
    const theirs = await h.project(other, "web", "Taker");
    const first = await h.reposite.domains.set(owner, site, { domain: "shared.example.com" });
    expect(await h.reposite.domains.set(owner, site, { domain: "shared.example.com." })).toEqual(first);
    // Not verified: another account may claim it too; the table still names the first claim's project.
    await expect(h.reposite.domains.set(other, theirs, { domain: "Shared.Example.com" })).resolves.toMatchObject({ domain: "shared.example.com", verified: false });
    expect(h.reposite.domainTable.ofSite(site)?.domain).toBe("shared.example.com");

    await dns.setRecords({ cname: { "shared.example.com": `${await slugOf(site)}.sites.example` } });
    await expect(h.reposite.domains.verify(owner, site)).resolves.toMatchObject({ verified: true });
    expect(h.reposite.domainTable.resolve("shared.example.com")).toBe(await slugOf(site));
    // The other claim was dropped, with its state; connecting it again is refused while the holder keeps it.
    const dropped = await h.reposite.domains.get(other, theirs);
    expect(dropped).toMatchObject({ domain: "shared.example.com", verified: false, taken_at: expect.any(String), live: false, live_reason: expect.stringContaining("verified by another project first") });
    expect(h.reposite.domainTable.ofSite(theirs)).toBeUndefined();
    expect(await refusal(h.reposite.domains.verify(other, theirs))).toMatchObject({ status: 409, code: "domain_taken" });
    expect(await refusal(h.reposite.domains.set(other, theirs, { domain: "Shared.Example.com" }))).toMatchObject({ status: 409, code: "domain_taken", details: { field: "domain" } });

    await h.reposite.domains.set(owner, site, { domain: "moved.example.com" });
    expect(h.reposite.domainTable.get("shared.example.com")).toBeUndefined();
    expect(h.reposite.domainTable.ofSite(site)?.domain).toBe("moved.example.com");
    const again = await h.reposite.domains.set(other, theirs, { domain: "shared.example.com" });
    expect(again).toMatchObject({ domain: "shared.example.com", verified: false });
    expect(again).not.toHaveProperty("taken_at");
  });

  it("internationalised names are kept in punycode and answered in both forms", async () => {
    const site = await h.project(owner, "web", "Books");
    const set = await h.reposite.domains.set(owner, site, { domain: "Bücher.example.com" });
    expect(set).toMatchObject({ domain: "xn--bcher-kva.example.com", domain_unicode: "bücher.example.com" });
    expect(set.records[0]).toMatchObject({ name: "xn--bcher-kva.example.com", host: "xn--bcher-kva" });
    expect(h.reposite.domainTable.ofSite(site)?.domain).toBe("xn--bcher-kva.example.com");
  });

  it("bad input: 422 with the field; another account's project or a missing one: 404; verify before PUT: 409 no_domain", async () => {
    const site = await h.project(owner, "web", "Checks");
    expect(await refusal(h.reposite.domains.set(owner, site, {}))).toMatchObject({ status: 422, code: "invalid_request", details: { field: "domain" } });
    expect(await refusal(h.reposite.domains.set(owner, site, { domain: 7 }))).toMatchObject({ status: 422, code: "invalid_request" });
    expect(await refusal(h.reposite.domains.set(owner, site, { domain: "1.2.3.4" }))).toMatchObject({ status: 422, code: "invalid_domain" });
    expect(await refusal(h.reposite.domains.set(owner, site, { domain: "x.sites.example" }))).toMatchObject({ status: 422, code: "reserved_domain" });
    expect(await refusal(h.reposite.domains.verify(owner, site))).toMatchObject({ status: 409, code: "no_domain" });
    await expect(h.reposite.domains.get(owner, site)).resolves.toMatchObject({ domain: null, records: [], verified: false, live: false });

    const other = await h.account("mallory@example.com");
    await h.reposite.domains.set(owner, site, { domain: "checks.example.com" });
    for (const call of [
      h.reposite.domains.set(other, site, { domain: "evil.example.com" }),
      h.reposite.domains.verify(other, site),
      h.reposite.domains.get(other, site),
      h.reposite.domains.remove(other, site),
      h.reposite.domains.get(owner, "site_doesnotexist"),
    ]) {
      expect(await refusal(call)).toMatchObject({ status: 404 });
    }
    expect(h.reposite.domainTable.ofSite(site)?.domain).toBe("checks.example.com");
  });

  it("DELETE removes the domain (again and again); the project's own address is untouched", async () => {
    const site = await h.project(owner, "web", "Removed");
    await h.reposite.domains.set(owner, site, { domain: "www.removed-app.com" });
    // A project without an address got one when its domain was set.
    const slug = await slugOf(site);
    expect(slug).toBe("removed");
    await dns.setRecords({ cname: { "www.removed-app.com": `${slug}.sites.example` } });
    await h.reposite.domains.verify(owner, site);
    expect(h.reposite.domainTable.resolve("www.removed-app.com")).toBe(slug);
    await h.reposite.domains.remove(owner, site);
    await h.reposite.domains.remove(owner, site);
    expect(h.reposite.domainTable.ofSite(site)).toBeUndefined();
    expect(h.reposite.domainTable.resolve("www.removed-app.com")).toBeUndefined();
    await expect(h.reposite.domains.get(owner, site)).resolves.toMatchObject({ domain: null });
    expect((await h.reposite.projects.get(owner, site)).slug).toBe(slug);
    // The name is free for anyone again.
    const other = await h.account("next@example.com");
    await expect(h.reposite.domains.set(other, await h.project(other, "web", "Next"), { domain: "www.removed-app.com" })).resolves.toMatchObject({ verified: false });
  });

  it("the domain follows a new slug, and goes with its deleted project", async () => {
    const site = await h.project(owner, "web", "Mover");
    await h.reposite.domains.set(owner, site, { domain: "www.mover-app.com" });
    await h.reposite.publishing.setSlug(owner, site, { slug: "mover-renamed" });
    await eventually(() => h.reposite.domainTable.ofSite(site)?.slug === "mover-renamed");
    const read = await h.reposite.domains.get(owner, site);
    expect(read.records[0]).toMatchObject({ type: "CNAME", value: "mover-renamed.sites.example" });

    await h.reposite.projectRemoval.delete(owner, site);
    await eventually(() => h.reposite.domainTable.ofSite(site) === undefined);
    const other = await h.account("after@example.com");
    await expect(h.reposite.domains.set(other, await h.project(other, "web", "After"), { domain: "www.mover-app.com" })).resolves.toMatchObject({ domain: "www.mover-app.com" });
  });
});

describe.skipIf(!dnsmasqAvailable())("custom domains with payments on", () => {
  let h: BillingHarness;
  beforeAll(async () => {
    h = await startBillingHarness({ runtime: null, config: { publicIpv4: PUBLIC_IPV4 }, dns: { servers: ["127.0.0.1:9"], timeoutMs: 200, tries: 1 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("402 before the domain is bought, allowed after; a second project's domain is 409 quota_reached until another is bought; DELETE is free", async () => {
    const owner = await h.account("buyer@example.com");
    const a = await h.project(owner, "web", "First");
    const b = await h.project(owner, "web", "Second");
    expect(await h.refusal(h.reposite.domains.set(owner, a, { domain: "www.first-app.com" }))).toMatchObject({ status: 402, code: "payment_required" });
    expect(h.reposite.domainTable.ofSite(a)).toBeUndefined();

    await h.buy(owner, "domain", { site_id: a });
    await expect(h.reposite.domains.set(owner, a, { domain: "www.first-app.com" })).resolves.toMatchObject({ domain: "www.first-app.com" });
    // Checking DNS is allowed too (this resolver has no server: DNS did not answer).
    const check = await h.reposite.domains.verify(owner, a);
    expect(check.dns.message).toMatch(/DNS did not answer for www\.first-app\.com/);

    expect(await h.refusal(h.reposite.domains.set(owner, b, { domain: "www.second-app.com" }))).toMatchObject({ status: 409, code: "quota_reached" });
    await h.buy(owner, "domain", { site_id: b, additional: true });
    await expect(h.reposite.domains.set(owner, b, { domain: "www.second-app.com" })).resolves.toMatchObject({ domain: "www.second-app.com" });

    // Reading and removing need nothing: an account that bought nothing removes and reads freely.
    const free = await h.account("free@example.com");
    const c = await h.project(free, "web", "Free");
    await expect(h.reposite.domains.remove(free, c)).resolves.toBeUndefined();
    await expect(h.reposite.domains.get(free, c)).resolves.toMatchObject({ domain: null });
    await expect(h.reposite.domains.remove(owner, a)).resolves.toBeUndefined();
    expect(h.reposite.domainTable.ofSite(a)).toBeUndefined();
  });
});

describe("bare domains on a server without a public address", () => {
  let h: HostingHarness;
  beforeAll(async () => {
    h = await startHostingHarness({ runtime: null, dns: { servers: ["127.0.0.1:9"] } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("409 bare_domain_unavailable: a subdomain still works", async () => {
    const owner = await h.account("ada@example.com");
    const site = await h.project(owner);
    expect(await refusal(h.reposite.domains.set(owner, site, { domain: "example.com" }))).toMatchObject({ status: 409, code: "bare_domain_unavailable" });
    await expect(h.reposite.domains.set(owner, site, { domain: "www.example.com" })).resolves.toMatchObject({ apex: false });
  });
});
