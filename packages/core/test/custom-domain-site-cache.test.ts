import { codeTestHost } from "@reposite/test-support";
import { createStorage, type Storage } from "unstorage";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createReposite, PublishedSiteStore, type Reposite } from "../src/index.js";
import type { CachedFile } from "../src/sites/cached-file.js";
import { customDomainUrl } from "../src/sites/site-address.js";
import { SiteCache } from "../src/sites/site-cache.js";

// The site cache serves a project with a verified custom domain at https://<domain>: published
// pages' canonical and link-preview URLs, the sitemap and robots.txt, without a publish; the
// snapshot in storage keeps the project's own address.

const LANDING = `<!doctype html><html><head><title>Lumen</title><meta name="description" content="Status pages"></head><body>${"<p>Status pages your users trust. See https://lumen.sites.example/about for more.</p>\n".repeat(30)}</body></html>`;
const ABOUT = `<!doctype html><html><head><title>About Lumen</title></head><body>${"<p>About us.</p>".repeat(40)}</body></html>`;

interface Setup {
  reposite: Reposite;
  storage: Storage;
  cache: SiteCache;
  siteId: string;
  otherSiteId: string;
  /** Reads of the site's snapshot from storage so far. */
  reads(): number;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function setUp(baseUrl = "https://reposite.example"): Promise<Setup> {
  const storage = createStorage();
  const reposite = createReposite({ storage, repoHosts: [codeTestHost], config: { baseUrl, sitesDomain: "sites.example" } });
  closers.push(() => reposite.close());
  const owner = (await reposite.accounts.findOrCreate("owner@example.com")).account.id;
  const publishOne = async (repo: string) => {
    const siteId = (await reposite.projects.create(owner, { repohost_url: `https://code.test/acme/${repo}` })).id;
    await reposite.pageVersions.addCustom(owner, siteId, { kind: "template", html: LANDING, name: "landing" });
    await reposite.pageVersions.addCustom(owner, siteId, { kind: "about", html: ABOUT, name: "about" });
    await reposite.publishing.publish(owner, siteId, {});
    return siteId;
  };
  const siteId = await publishOne("lumen");
  const otherSiteId = await publishOne("ledger");
  const getItem = vi.spyOn(storage, "getItem");
  return {
    reposite,
    storage,
    cache: reposite.siteCache,
    siteId,
    otherSiteId,
    reads: () => getItem.mock.calls.filter(([key]) => key === "published-sites:lumen").length,
  };
}

const text = async (file: CachedFile | undefined) => (await file!.load("identity"))!.toString("utf8");
const stored = (s: Setup) => s.reposite.container.resolve(PublishedSiteStore).get("lumen");

/** The URLs publishing puts in a page's head, as served now. */
async function headUrls(s: Setup, path: string) {
  const html = await text((await s.cache.get("lumen"))!.files.get(path));
  const attribute = (pattern: RegExp) => pattern.exec(html)?.[1];
  return {
    canonical: attribute(/<link rel="canonical" href="([^"]+)">/),
    ogUrl: attribute(/<meta property="og:url" content="([^"]+)">/),
    ogImage: attribute(/<meta property="og:image" content="([^"]+)">/),
    twitterImage: attribute(/<meta name="twitter:image" content="([^"]+)">/),
    html,
  };
}

describe("custom domain: the public address in served pages", () => {
  it("while verified, canonical, og:url, og:image, twitter:image, sitemap and robots name https://<domain>; the snapshot keeps the project's address", async () => {
    const s = await setUp();
    const before = await stored(s);
    s.reposite.domainTable.set({ domain: "www.lumen.dev", siteId: s.siteId, slug: "lumen", verified: true });
    const site = (await s.cache.get("lumen"))!;
    expect(site.publicUrl).toBe("https://www.lumen.dev");
    expect(site.site.url).toBe("https://lumen.sites.example");

    const landing = await headUrls(s, "/");
    expect(landing).toMatchObject({
      canonical: "https://www.lumen.dev/",
      ogUrl: "https://www.lumen.dev/",
      ogImage: "https://www.lumen.dev/og.png",
      twitterImage: "https://www.lumen.dev/og.png",
    });
    // The page's own content is the owner's: only what publishing added moves.
    expect(landing.html).toContain("See https://lumen.sites.example/about for more.");
    expect((await headUrls(s, "/about")).canonical).toBe("https://www.lumen.dev/about");

    const sitemap = await text(site.files.get("/sitemap.xml"));
    expect(sitemap).toContain("<loc>https://www.lumen.dev/</loc>");
    expect(sitemap).toContain("<loc>https://www.lumen.dev/about</loc>");
    expect(sitemap).not.toContain("sites.example");
    expect(await text(site.files.get("/robots.txt"))).toBe("User-agent: *\nAllow: /\n\nSitemap: https://www.lumen.dev/sitemap.xml\n");

    // A copy cached under the other address is not current: another ETag, and no date to compare.
    const published = before!.files["/"]!;
    expect(site.files.get("/")!.etag).not.toBe(published.etag);
    expect(site.files.get("/")!.lastModified).toBeNull();
    // Files without the address are served as published.
    expect(site.files.get("/404")!.etag).toBe(before!.files["/404"]!.etag);
    expect(site.files.get("/og.png")!.etag).toBe(before!.files["/og.png"]!.etag);

    // Nothing was published: storage holds the same snapshot, with the project's address.
    expect(await stored(s)).toEqual(before);
    expect(before!.files["/robots.txt"]!.body).toContain("Sitemap: https://lumen.sites.example/sitemap.xml");
  });

  it("an unverified domain changes nothing", async () => {
    const s = await setUp();
    s.reposite.domainTable.set({ domain: "www.lumen.dev", siteId: s.siteId, slug: "lumen", verified: false });
    const site = (await s.cache.get("lumen"))!;
    expect(site.publicUrl).toBe("https://lumen.sites.example");
    expect((await headUrls(s, "/")).canonical).toBe("https://lumen.sites.example/");
    expect(await text(site.files.get("/robots.txt"))).toContain("Sitemap: https://lumen.sites.example/sitemap.xml");
  });

  it("follows the domain table without a publish: verified, moved to another domain, removed; each change reads the site once, other projects' changes none", async () => {
    const s = await setUp();
    const revision = (await stored(s))!.revision;
    const canonical = async () => (await headUrls(s, "/")).canonical;
    const start = s.reads();
    const reads = () => s.reads() - start;

    expect(await canonical()).toBe("https://lumen.sites.example/");
    expect(reads()).toBe(1);
    // Verified later: the kept site is dropped at once and read again with the domain.
    s.reposite.domainTable.set({ domain: "www.lumen.dev", siteId: s.siteId, slug: "lumen", verified: false });
    expect(s.cache.peek("lumen")).toBeDefined(); // an unverified domain names no other address
    s.reposite.domainTable.set({ domain: "www.lumen.dev", siteId: s.siteId, slug: "lumen", verified: true });
    expect(s.cache.peek("lumen")).toBeUndefined();
    expect(await canonical()).toBe("https://www.lumen.dev/");
    expect(reads()).toBe(2);
    for (let i = 0; i < 20; i++) expect(s.cache.peek("lumen")?.publicUrl).toBe("https://www.lumen.dev");

    // Another project's domain leaves this site in memory.
    s.reposite.domainTable.set({ domain: "ledger.dev", siteId: s.otherSiteId, slug: "ledger", verified: true });
    s.reposite.domainTable.deleteSite(s.otherSiteId);
    expect(s.cache.peek("lumen")).toBeDefined();

    s.reposite.domainTable.set({ domain: "lumen.dev", siteId: s.siteId, slug: "lumen", verified: true });
    expect(await canonical()).toBe("https://lumen.dev/");
    s.reposite.domainTable.deleteSite(s.siteId);
    expect(s.cache.peek("lumen")).toBeUndefined();
    expect(await canonical()).toBe("https://lumen.sites.example/");
    expect(await text((await s.cache.get("lumen"))!.files.get("/sitemap.xml"))).toContain("<loc>https://lumen.sites.example/about</loc>");
    expect(reads()).toBe(4);
    expect((await stored(s))!.revision).toBe(revision);
  });

  it("does not keep a site prepared while its domain was verified: the next request reads it with the domain", async () => {
    const s = await setUp();
    const table = s.reposite.domainTable;
    const ofSite = table.ofSite.bind(table);
    // The domain is verified just after the cache asked for the site's address, while its files are prepared.
    vi.spyOn(table, "ofSite").mockImplementationOnce((siteId) => {
      const answer = ofSite(siteId);
      setImmediate(() => table.set({ domain: "www.lumen.dev", siteId: s.siteId, slug: "lumen", verified: true }));
      return answer;
    });
    const answered = (await s.cache.get("lumen"))!;
    expect(table.resolve("www.lumen.dev")).toBe("lumen");
    expect(answered.publicUrl).toBe("https://lumen.sites.example");
    expect(s.cache.peek("lumen")).toBeUndefined();
    expect((await s.cache.get("lumen"))!.publicUrl).toBe("https://www.lumen.dev");
    expect(s.cache.peek("lumen")!.publicUrl).toBe("https://www.lumen.dev");
  });

  it("a site published again while verified is served with the domain, and so is the address after a rename", async () => {
    const s = await setUp();
    s.reposite.domainTable.set({ domain: "www.lumen.dev", siteId: s.siteId, slug: "lumen", verified: true });
    expect((await headUrls(s, "/")).canonical).toBe("https://www.lumen.dev/");
    const owner = (await s.reposite.accounts.findOrCreate("owner@example.com")).account.id;
    await s.reposite.pageVersions.addCustom(owner, s.siteId, { kind: "about", html: ABOUT.replace("About us.", "About the team."), name: "about 2" });
    await s.reposite.publishing.publish(owner, s.siteId, {});
    expect((await headUrls(s, "/about")).canonical).toBe("https://www.lumen.dev/about");
    expect((await headUrls(s, "/about")).html).toContain("About the team.");

    await s.reposite.publishing.setSlug(owner, s.siteId, { slug: "lumen-status" });
    const moved = (await s.cache.get("lumen-status"))!;
    expect(moved.publicUrl).toBe("https://www.lumen.dev");
    expect(await text(moved.files.get("/robots.txt"))).toContain("Sitemap: https://www.lumen.dev/sitemap.xml");
  });

  it("uses the site's scheme: a local http server's sites get http://<domain>", async () => {
    const s = await setUp("http://localhost:3000");
    s.reposite.domainTable.set({ domain: "www.lumen.dev", siteId: s.siteId, slug: "lumen", verified: true });
    expect((await s.cache.get("lumen"))!.publicUrl).toBe("http://www.lumen.dev");
  });

  it("customDomainUrl takes plain host names only", () => {
    expect(customDomainUrl("https://lumen.sites.example", "xn--bcher-kva.example")).toBe("https://xn--bcher-kva.example");
    expect(customDomainUrl("http://lumen.localhost:3000", "www.lumen.dev")).toBe("http://www.lumen.dev");
    for (const odd of ["", "lumen", "WWW.lumen.dev", "lumen.dev:443", 'a.dev"><script>', "-a.dev", "a..dev", "a.dev/"]) {
      expect(customDomainUrl("https://x.sites.example", odd), odd).toBeNull();
    }
  });
});
