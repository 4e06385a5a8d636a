import { createHash } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { createStorage, type Storage } from "unstorage";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createInProcessEvents, createReposite, EVENTS, type Clock, type EventBus } from "../src/index.js";
import { SITE_CHANGED_CHANNEL, type PublishedFile, type PublishedSite } from "../src/sites/published-site.js";
import { SITE_CACHE_SETTINGS, SiteCache, type SiteCacheSettings } from "../src/sites/site-cache.js";

type TestClock = Clock & { time: number };
const newClock = (): TestClock => ({
  time: Date.parse("2026-03-04T05:06:07Z"),
  now() {
    return new Date(this.time);
  },
});

const etagOf = (bytes: Buffer) => `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`;

function textFile(path: string, contentType: string, body: string): PublishedFile {
  return { path, contentType, body, etag: etagOf(Buffer.from(body)), lastModified: "2026-03-01T10:00:00.000Z" };
}

/** A PNG's first bytes: binary, stored base64 in the snapshot. */
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

/** Long enough for gzip and brotli to pay off, the way real pages are. */
const LANDING = `<!doctype html><html><head><title>Lumen</title></head><body>${"<p>Status pages your users trust.</p>\n".repeat(80)}</body></html>`;

function snapshot(slug: string, revision = 1, landing = LANDING): PublishedSite {
  const files: PublishedFile[] = [
    textFile("/", "text/html; charset=utf-8", landing),
    textFile("/about", "text/html; charset=utf-8", `<!doctype html><title>About</title>${"<p>About us.</p>".repeat(40)}`),
    textFile("/404", "text/html; charset=utf-8", `<!doctype html><title>Not found</title>${"<p>Nothing here.</p>".repeat(20)}`),
    textFile(
      "/sitemap.xml",
      "application/xml; charset=utf-8",
      `<?xml version="1.0"?><urlset>${"<url><loc>https://x/</loc></url>".repeat(10)}</urlset>`
    ),
    textFile("/robots.txt", "text/plain; charset=utf-8", "User-agent: *\nAllow: /\n"),
    {
      path: "/og.png",
      contentType: "image/png",
      body: PNG.toString("base64"),
      encoding: "base64",
      etag: etagOf(PNG),
      lastModified: "2026-03-01T10:00:00.000Z",
    },
  ];
  return {
    site_id: `site_${slug}`,
    owner_id: "acct_1",
    slug,
    url: `https://${slug}.sites.test`,
    design: "aurora",
    name: "Lumen",
    pages: ["template", "about"],
    community: false,
    files: Object.fromEntries(files.map((file) => [file.path, file])),
    published_at: "2026-03-01T10:00:00.000Z",
    revision,
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A SiteCache composed through createReposite's container, over a memory storage whose reads are counted. */
function setup(settings: Partial<SiteCacheSettings> = {}) {
  const storage: Storage = createStorage();
  const bus: EventBus = createInProcessEvents();
  const clock = newClock();
  const reposite = createReposite({
    storage,
    clock,
    repoHosts: [],
    register: (container) => {
      container.register(EVENTS, { useValue: bus });
      container.register(SITE_CACHE_SETTINGS, { useValue: settings });
      container.registerSingleton(SiteCache);
    },
  });
  const cache = reposite.container.resolve(SiteCache);
  closers.push(async () => {
    cache.close();
    await reposite.close();
  });
  const getItem = vi.spyOn(storage, "getItem");
  const readsOf = (slug: string) => getItem.mock.calls.filter(([key]) => key === `published-sites:${slug}`).length;
  const publish = async (site: PublishedSite) => {
    await storage.setItem(`published-sites:${site.slug}`, site);
    bus.publish(SITE_CHANGED_CHANNEL, { slug: site.slug });
  };
  return { cache, storage, bus, clock, readsOf, publish };
}

describe("site cache: loading", () => {
  it("reads a site from storage once, however many requests ask, even all at once", async () => {
    const { cache, storage, readsOf } = setup();
    await storage.setItem("published-sites:lumen", snapshot("lumen"));

    expect(cache.peek("lumen")).toBeUndefined();
    const first = await Promise.all(Array.from({ length: 20 }, () => cache.get("lumen")));
    expect(readsOf("lumen")).toBe(1);
    expect(new Set(first).size).toBe(1);

    for (let i = 0; i < 100; i++) expect(cache.peek("lumen")).toBe(first[0]);
    await cache.get("lumen");
    expect(readsOf("lumen")).toBe(1);
  });

  it("decodes every file once: text as UTF-8, base64 files as bytes, dates as HTTP dates, the 404 page apart", async () => {
    const { cache, storage } = setup();
    const site = snapshot("lumen");
    await storage.setItem("published-sites:lumen", site);
    const cached = (await cache.get("lumen"))!;

    expect(cached.site).toEqual(site);
    expect([...cached.files.keys()].sort()).toEqual(["/", "/404", "/about", "/og.png", "/robots.txt", "/sitemap.xml"]);
    const landing = cached.files.get("/")!;
    expect(landing.body.toString("utf8")).toBe(LANDING);
    expect(landing.etag).toBe(site.files["/"]!.etag);
    expect(landing.lastModified).toBe("Sun, 01 Mar 2026 10:00:00 GMT");
    expect(cached.files.get("/og.png")!.body.equals(PNG)).toBe(true);
    expect(cached.notFound).toBe(cached.files.get("/404"));
  });

  it("makes gzip and brotli variants of text files that decompress to the body, and none for images", async () => {
    const { cache, storage } = setup();
    await storage.setItem("published-sites:lumen", snapshot("lumen"));
    const cached = (await cache.get("lumen"))!;

    for (const path of ["/", "/about", "/404", "/sitemap.xml"]) {
      const file = cached.files.get(path)!;
      expect(file.gzip, path).not.toBeNull();
      expect(file.br, path).not.toBeNull();
      expect(gunzipSync(file.gzip!).equals(file.body), path).toBe(true);
      expect(brotliDecompressSync(file.br!).equals(file.body), path).toBe(true);
      expect(file.br!.length, path).toBeLessThan(file.body.length);
    }
    const image = cached.files.get("/og.png")!;
    expect(image.gzip).toBeNull();
    expect(image.br).toBeNull();
    // A variant bigger than the body is not kept.
    const robots = cached.files.get("/robots.txt")!;
    for (const variant of [robots.gzip, robots.br]) if (variant) expect(variant.length).toBeLessThan(robots.body.length);
  });

  it("does not remember a failed read: the next request tries storage again", async () => {
    const { cache, storage, readsOf } = setup();
    await storage.setItem("published-sites:lumen", snapshot("lumen"));
    const getItem = vi.mocked(storage.getItem);
    getItem.mockRejectedValueOnce(new Error("storage is down"));

    await expect(cache.get("lumen")).rejects.toThrow("storage is down");
    expect(cache.peek("lumen")).toBeUndefined();
    expect(await cache.get("lumen")).not.toBeNull();
    expect(readsOf("lumen")).toBe(2);
  });

  it("holds at most maxSites, dropping the oldest loaded", async () => {
    const { cache, storage, readsOf } = setup({ maxSites: 2 });
    for (const slug of ["one", "two", "three"]) await storage.setItem(`published-sites:${slug}`, snapshot(slug));
    await cache.get("one");
    await cache.get("two");
    await cache.get("three");
    expect(cache.peek("one")).toBeUndefined();
    expect(cache.peek("two")).toBeDefined();
    expect(cache.peek("three")).toBeDefined();
    await cache.get("one");
    expect(readsOf("one")).toBe(2);
  });
});

describe("site cache: change events", () => {
  it("drops a site when SITE_CHANGED names it; the next request reads the new revision", async () => {
    const { cache, storage, readsOf, publish, bus } = setup();
    await storage.setItem("published-sites:lumen", snapshot("lumen", 1, "<p>first</p>"));
    await storage.setItem("published-sites:other", snapshot("other"));
    expect((await cache.get("lumen"))!.files.get("/")!.body.toString()).toBe("<p>first</p>");
    const other = await cache.get("other");

    await publish(snapshot("lumen", 2, "<p>second</p>"));
    expect(cache.peek("lumen")).toBeUndefined();
    const next = (await cache.get("lumen"))!;
    expect(next.site.revision).toBe(2);
    expect(next.files.get("/")!.body.toString()).toBe("<p>second</p>");
    expect(readsOf("lumen")).toBe(2);
    // Other sites stay; malformed events are ignored.
    expect(cache.peek("other")).toBe(other);
    bus.publish(SITE_CHANGED_CHANNEL, { nope: true });
    bus.publish(SITE_CHANGED_CHANNEL, null);
    expect(cache.peek("other")).toBe(other);
  });

  it("a site taken down (event, no snapshot) answers null from then on", async () => {
    const { cache, storage, bus } = setup();
    await storage.setItem("published-sites:lumen", snapshot("lumen"));
    await cache.get("lumen");
    await storage.removeItem("published-sites:lumen");
    bus.publish(SITE_CHANGED_CHANNEL, { slug: "lumen" });
    expect(await cache.get("lumen")).toBeNull();
    expect(cache.peek("lumen")).toBeNull();
  });

  it("a site published while unknown shows at once, without waiting for the negative TTL", async () => {
    const { cache, publish } = setup();
    expect(await cache.get("fresh")).toBeNull();
    await publish(snapshot("fresh"));
    expect((await cache.get("fresh"))?.site.slug).toBe("fresh");
  });

  it("keeps nothing read before a change event that arrived during the read", async () => {
    const { cache, storage, bus, readsOf } = setup();
    await storage.setItem("published-sites:lumen", snapshot("lumen", 1, "<p>old</p>"));
    const getItem = vi.mocked(storage.getItem);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    getItem.mockImplementationOnce(async () => {
      await gate;
      return snapshot("lumen", 1, "<p>old</p>") as never;
    });
    const reading = cache.get("lumen");
    await storage.setItem("published-sites:lumen", snapshot("lumen", 2, "<p>new</p>"));
    bus.publish(SITE_CHANGED_CHANNEL, { slug: "lumen" });
    release();
    await reading;
    expect(cache.peek("lumen")).toBeUndefined();
    expect((await cache.get("lumen"))!.files.get("/")!.body.toString()).toBe("<p>new</p>");
    expect(readsOf("lumen")).toBe(2);
  });

  it("close forgets every site and stops listening", async () => {
    const { cache, storage, bus } = setup();
    await storage.setItem("published-sites:lumen", snapshot("lumen"));
    await cache.get("lumen");
    cache.close();
    expect(cache.peek("lumen")).toBeUndefined();
    const invalidate = vi.spyOn(cache, "invalidate");
    bus.publish(SITE_CHANGED_CHANNEL, { slug: "lumen" });
    expect(invalidate).not.toHaveBeenCalled();
  });
});

describe("site cache: unknown slugs", () => {
  it("remembers an unknown slug for negativeTtlMs, then asks storage again", async () => {
    const { cache, clock, readsOf } = setup({ negativeTtlMs: 5_000 });
    expect(await cache.get("ghost")).toBeNull();
    expect(cache.peek("ghost")).toBeNull();
    for (let i = 0; i < 50; i++) expect(await cache.get("ghost")).toBeNull();
    expect(readsOf("ghost")).toBe(1);

    clock.time += 4_999;
    expect(await cache.get("ghost")).toBeNull();
    expect(readsOf("ghost")).toBe(1);

    clock.time += 1;
    expect(cache.peek("ghost")).toBeUndefined();
    expect(await cache.get("ghost")).toBeNull();
    expect(readsOf("ghost")).toBe(2);
  });

  it("a flood of distinct unknown slugs stays within maxUnknown entries", async () => {
    const { cache } = setup({ maxUnknown: 100 });
    for (let i = 0; i < 1_000; i++) await cache.get(`ghost-${i}`);
    const unknown = (cache as unknown as { unknown: Map<string, number> }).unknown;
    expect(unknown.size).toBeLessThanOrEqual(100);
  });
});
