import { createHash } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { createStorage, type Storage } from "unstorage";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createInProcessEvents, createReposite, EVENTS, type Clock, type EventBus } from "../src/index.js";
import { SITE_CHANGED_CHANNEL, type PublishedFile, type PublishedSite } from "../src/sites/published-site.js";
import { FILE_OVERHEAD_BYTES, type CachedFile } from "../src/sites/cached-file.js";
import { DEFAULT_SITE_CACHE_BYTES, SITE_CACHE_SETTINGS, SITE_OVERHEAD_BYTES, SiteCache, type SiteCacheSettings } from "../src/sites/site-cache.js";

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

const text = async (file: CachedFile | undefined) => (await file!.load("identity"))!.toString("utf8");

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

  it("keeps the snapshot without its files, every file with its ETag and HTTP date, the 404 page apart", async () => {
    const { cache, storage } = setup();
    const site = snapshot("lumen");
    await storage.setItem("published-sites:lumen", site);
    const cached = (await cache.get("lumen"))!;

    const { files: _files, ...info } = site;
    expect(cached.site).toEqual(info);
    expect(cached.site).not.toHaveProperty("files");
    expect([...cached.files.keys()].sort()).toEqual(["/", "/404", "/about", "/og.png", "/robots.txt", "/sitemap.xml"]);
    const landing = cached.files.get("/")!;
    expect(await text(landing)).toBe(LANDING);
    expect(landing.size).toBe(Buffer.byteLength(LANDING));
    expect(landing.etag).toBe(site.files["/"]!.etag);
    expect(landing.lastModified).toBe("Sun, 01 Mar 2026 10:00:00 GMT");
    expect(cached.files.get("/og.png")!.held("identity")!.equals(PNG)).toBe(true);
    expect(cached.notFound).toBe(cached.files.get("/404"));
  });

  it("holds text as brotli only; the plain body and gzip are made on first use, match, and are kept", async () => {
    const { cache, storage } = setup();
    await storage.setItem("published-sites:lumen", snapshot("lumen"));
    const cached = (await cache.get("lumen"))!;

    for (const path of ["/", "/about", "/404", "/sitemap.xml"]) {
      const file = cached.files.get(path)!;
      expect(file.compressible, path).toBe(true);
      expect(file.held("gzip"), path).toBeUndefined();
      expect(file.held("identity"), path).toBeUndefined();
      const br = file.held("br")!;
      expect(br.length, path).toBeLessThan(file.size);
      const body = brotliDecompressSync(br);
      expect(body.length, path).toBe(file.size);

      const bytesBefore = cached.bytes;
      const plain = (await file.load("identity"))!;
      expect(plain.equals(body), path).toBe(true);
      const gzip = (await file.load("gzip"))!;
      expect(gunzipSync(gzip).equals(body), path).toBe(true);
      expect(file.held("identity"), path).toBe(plain);
      expect(file.held("gzip"), path).toBe(gzip);
      expect(await file.load("gzip"), path).toBe(gzip);
      // What is kept is counted against the budget.
      expect(cached.bytes, path).toBe(bytesBefore + plain.length + gzip.length);
    }
    // Images are compressed already: held as they are, offered as they are.
    const image = cached.files.get("/og.png")!;
    expect(image.compressible).toBe(false);
    expect(image.offers("br")).toBe(false);
    expect(await image.load("gzip")).toBeNull();
  });

  it("a tiny text file is held as it is, and gzip that is not smaller is not offered again", async () => {
    const { cache, storage } = setup();
    await storage.setItem("published-sites:lumen", snapshot("lumen"));
    const cached = (await cache.get("lumen"))!;
    const robots = cached.files.get("/robots.txt")!;
    if (robots.compressible) {
      // brotli won by a byte or two; gzip's header makes it bigger than the body.
      expect(await robots.load("gzip")).toBeNull();
      expect(robots.offers("gzip")).toBe(false);
      expect(robots.offers("br")).toBe(true);
    } else {
      expect(robots.held("identity")!.toString()).toBe("User-agent: *\nAllow: /\n");
    }
    expect(await text(robots)).toBe("User-agent: *\nAllow: /\n");
  });

  it("never holds a file kept apart: each body is read from storage when asked for, a missing one is a 404", async () => {
    const { cache, storage } = setup();
    const site = snapshot("lumen");
    const apart: PublishedFile = { ...site.files["/og.png"]!, body: "", apart: { size: PNG.length } };
    site.files["/og.png"] = apart;
    await storage.setItem("published-sites:lumen", site);
    const key = `published-files:${site.site_id}:${apart.etag.replace(/[^A-Za-z0-9_-]/g, "")}`;
    await storage.setItem(key, { body: PNG.toString("base64") });
    const getItem = vi.mocked(storage.getItem);

    const cached = (await cache.get("lumen"))!;
    const image = cached.files.get("/og.png")!;
    expect(image.apart).toBe(true);
    expect(image.size).toBe(PNG.length);
    expect(image.held("identity")).toBeUndefined();
    // Loading the site did not read the image.
    expect(getItem.mock.calls.filter(([name]) => name === key)).toHaveLength(0);
    for (let i = 1; i <= 3; i++) {
      expect((await image.load("identity"))!.equals(PNG)).toBe(true);
      expect(getItem.mock.calls.filter(([name]) => name === key)).toHaveLength(i);
    }
    expect(image.held("identity")).toBeUndefined();

    await storage.removeItem(key);
    await expect(image.load("identity")).rejects.toMatchObject({ status: 404 });
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
});

describe("site cache: a budget of bytes", () => {
  /** The bytes one `snapshot()` site is counted for, as loaded (they are all alike). */
  async function siteBytes(): Promise<number> {
    const { cache, storage } = setup();
    await storage.setItem("published-sites:probe", snapshot("probe"));
    return (await cache.get("probe"))!.bytes;
  }

  it("counts a site for its held bodies plus an allowance per file and site", async () => {
    const { cache, storage } = setup();
    await storage.setItem("published-sites:lumen", snapshot("lumen"));
    const cached = (await cache.get("lumen"))!;
    const held = [...cached.files.values()].reduce((sum, file) => sum + file.heldBytes(), 0);
    expect(cached.bytes).toBe(SITE_OVERHEAD_BYTES + cached.files.size * FILE_OVERHEAD_BYTES + held);
    // Text is held compressed: far less than the pages as published.
    const published = [...cached.files.values()].reduce((sum, file) => sum + file.size, 0);
    expect(held).toBeLessThan(published / 2);
    expect(cache.stats()).toEqual({ sites: 1, bytes: cached.bytes, maxBytes: DEFAULT_SITE_CACHE_BYTES });
  });

  it("drops the least recently asked-for site when one more does not fit; the total never exceeds the budget", async () => {
    const size = await siteBytes();
    const maxBytes = Math.floor(size * 2.5);
    const { cache, storage, readsOf } = setup({ maxBytes });
    for (const slug of ["one", "two", "three", "four"]) await storage.setItem(`published-sites:${slug}`, snapshot(slug));
    const within = () => {
      const stats = cache.stats();
      expect(stats.bytes).toBeLessThanOrEqual(maxBytes);
      expect(stats.bytes).toBe(stats.sites * size);
    };

    await cache.get("one");
    await cache.get("two");
    within();
    expect(cache.stats().sites).toBe(2);
    // "one" was asked for again: "two" is now the least recently used and goes first.
    expect(cache.peek("one")).toBeDefined();
    await cache.get("three");
    within();
    expect(cache.peek("two")).toBeUndefined();
    expect(cache.peek("one")).toBeDefined();
    expect(cache.peek("three")).toBeDefined();
    await cache.get("four");
    within();
    expect(cache.peek("one")).toBeUndefined();
    expect(cache.peek("three")).toBeDefined();
    // A dropped site is read again when asked for.
    await cache.get("two");
    expect(readsOf("two")).toBe(2);
    within();
  });

  it("bodies made on first use count too, and make room by dropping other sites, never the site itself", async () => {
    const size = await siteBytes();
    const { cache, storage } = setup({ maxBytes: size * 2 + 20 });
    for (const slug of ["one", "two"]) await storage.setItem(`published-sites:${slug}`, snapshot(slug));
    await cache.get("one");
    const two = (await cache.get("two"))!;
    expect(cache.stats().sites).toBe(2);

    // The landing page's gzip (over 20 bytes) does not fit beside both: "one" goes.
    const gzip = (await two.files.get("/")!.load("gzip"))!;
    expect(gzip.length).toBeGreaterThan(20);
    expect(cache.peek("one")).toBeUndefined();
    expect(cache.peek("two")).toBe(two);
    expect(two.files.get("/")!.held("gzip")).toBe(gzip);
    expect(cache.stats()).toMatchObject({ sites: 1, bytes: size + gzip.length });
    expect(cache.stats().bytes).toBeLessThanOrEqual(size * 2 + 20);
  });

  it("a body that would take a site past the whole budget is served but not kept", async () => {
    const size = await siteBytes();
    const { cache, storage } = setup({ maxBytes: size + 20 });
    await storage.setItem("published-sites:lumen", snapshot("lumen"));
    const cached = (await cache.get("lumen"))!;
    const landing = cached.files.get("/")!;
    expect(gunzipSync((await landing.load("gzip"))!).toString()).toBe(LANDING);
    expect(landing.held("gzip")).toBeUndefined();
    expect(cache.stats()).toMatchObject({ sites: 1, bytes: size });
  });

  it("a site bigger than the whole budget is served, but never kept", async () => {
    const size = await siteBytes();
    const { cache, storage, readsOf } = setup({ maxBytes: size - 1 });
    await storage.setItem("published-sites:lumen", snapshot("lumen"));
    expect((await cache.get("lumen"))?.site.slug).toBe("lumen");
    expect(cache.peek("lumen")).toBeUndefined();
    expect(cache.stats()).toMatchObject({ sites: 0, bytes: 0 });
    await cache.get("lumen");
    expect(readsOf("lumen")).toBe(2);
  });

  it("a site dropped by a change event gives its bytes back", async () => {
    const { cache, storage, bus } = setup();
    await storage.setItem("published-sites:lumen", snapshot("lumen"));
    const cached = (await cache.get("lumen"))!;
    expect(cache.stats().bytes).toBe(cached.bytes);
    bus.publish(SITE_CHANGED_CHANNEL, { slug: "lumen" });
    expect(cache.stats()).toMatchObject({ sites: 0, bytes: 0 });
    // A body made for the dropped site afterwards is neither kept nor counted.
    await cached.files.get("/")!.load("gzip");
    expect(cached.files.get("/")!.held("gzip")).toBeUndefined();
    expect(cache.stats().bytes).toBe(0);
  });
});

describe("site cache: change events", () => {
  it("drops a site when SITE_CHANGED names it; the next request reads the new revision", async () => {
    const { cache, storage, readsOf, publish, bus } = setup();
    await storage.setItem("published-sites:lumen", snapshot("lumen", 1, "<p>first</p>"));
    await storage.setItem("published-sites:other", snapshot("other"));
    expect(await text((await cache.get("lumen"))!.files.get("/"))).toBe("<p>first</p>");
    const other = await cache.get("other");

    await publish(snapshot("lumen", 2, "<p>second</p>"));
    expect(cache.peek("lumen")).toBeUndefined();
    const next = (await cache.get("lumen"))!;
    expect(next.site.revision).toBe(2);
    expect(await text(next.files.get("/"))).toBe("<p>second</p>");
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
    expect(await text((await cache.get("lumen"))!.files.get("/"))).toBe("<p>new</p>");
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
