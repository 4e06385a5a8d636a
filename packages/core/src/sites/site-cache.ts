import { promisify } from "node:util";
import { brotliCompress, constants as zlibConstants, gzip } from "node:zlib";
import { inject, injectable, type InjectionToken } from "tsyringe";
import { CLOCK, type Clock } from "../ports/clock.js";
import { EVENTS, type EventBus } from "../ports/events.js";
import { SITE_CHANGED_CHANNEL, type PublishedFile, type PublishedSite } from "./published-site.js";
import { PublishedSiteStore } from "./published-site-store.js";

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Path of the file served, with status 404, for every path a site does not have. */
export const NOT_FOUND_PATH = "/404";

/** Content types worth compressing: text formats. Images (og.png) are compressed already. */
const COMPRESSIBLE = /^(?:text\/|application\/(?:xml|xhtml\+xml|rss\+xml|atom\+xml|javascript|json|manifest\+json)|image\/svg\+xml)/i;

/** Whether a file of this content type gets gzip and brotli variants. */
export const isCompressible = (contentType: string): boolean => COMPRESSIBLE.test(contentType);

/** One file of a cached site, with its bytes ready to write: nothing is decoded or compressed per request. */
export interface CachedFile {
  readonly path: string;
  readonly contentType: string;
  /** The snapshot's strong ETag of `body`, quoted. */
  readonly etag: string;
  /** `lastModified` as an HTTP date (`Tue, 03 Mar 2026 10:00:00 GMT`), or null when the snapshot's is not a date. */
  readonly lastModified: string | null;
  /** The body as published (base64 files decoded). */
  readonly body: Buffer;
  /** gzip of `body`, when the type is compressible and gzip makes it smaller. */
  readonly gzip: Buffer | null;
  /** Brotli of `body`, when the type is compressible and brotli makes it smaller. */
  readonly br: Buffer | null;
}

/** A published site as the runtime serves it: the snapshot plus its files, ready to write. */
export interface CachedSite {
  readonly site: PublishedSite;
  /** Files by path, `/404` included. */
  readonly files: ReadonlyMap<string, CachedFile>;
  /** The site's 404 page in its design (`/404`), or null when the snapshot has none. */
  readonly notFound: CachedFile | null;
}

/** Settings of the cache; the defaults suit production, tests shorten them. */
export interface SiteCacheSettings {
  /** How long "no site has this slug" is remembered, so unknown hosts do not reach storage each time. Default 10 s. */
  negativeTtlMs: number;
  /** Most sites held at once; past it the oldest loaded is dropped (and read again when asked for). Default 5000. */
  maxSites: number;
  /** Most unknown slugs remembered at once; past it they are all forgotten. Default 10 000. */
  maxUnknown: number;
}

export const DEFAULT_SITE_CACHE_SETTINGS: SiteCacheSettings = { negativeTtlMs: 10_000, maxSites: 5_000, maxUnknown: 10_000 };

/** Optional: register a `Partial<SiteCacheSettings>` under it to change the cache's settings. */
export const SITE_CACHE_SETTINGS: InjectionToken<Partial<SiteCacheSettings>> = Symbol.for("reposite.SiteCacheSettings");

/**
 * Published sites in memory, by slug. A site is read from storage once (concurrent first requests
 * share one read), prepared once per revision (bodies decoded, gzip and brotli made for text) and
 * dropped when `SITE_CHANGED_CHANNEL` says it was published again, renamed or taken down; the next
 * request reads it again. Slugs with no site are remembered for `negativeTtlMs`, so a flood of
 * made-up hosts costs one storage read per slug per TTL, not one per request.
 *
 * `peek` is synchronous and touches nothing but memory: the runtime's hot path uses it.
 */
@injectable()
export class SiteCache {
  private readonly settings: SiteCacheSettings;
  private readonly sites = new Map<string, CachedSite>();
  /** Unknown slug -> time (ms) until which it stays unknown without asking storage. */
  private readonly unknown = new Map<string, number>();
  private readonly loading = new Map<string, Promise<CachedSite | null>>();
  /** Bumped per slug on every change event, so a read that started before the event is not kept. */
  private readonly generations = new Map<string, number>();
  private readonly unsubscribe: () => void;

  constructor(
    @inject(PublishedSiteStore) private readonly store: PublishedSiteStore,
    @inject(EVENTS) events: EventBus,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(SITE_CACHE_SETTINGS, { isOptional: true }) settings?: Partial<SiteCacheSettings>
  ) {
    this.settings = { ...DEFAULT_SITE_CACHE_SETTINGS, ...settings };
    this.unsubscribe = events.subscribe(SITE_CHANGED_CHANNEL, (event) => {
      const slug = (event as { slug?: unknown } | null)?.slug;
      if (typeof slug === "string") this.invalidate(slug);
    });
  }

  /**
   * What memory knows about `slug`, without waiting: the site, `null` when the slug is known to
   * have no site, `undefined` when it has to be read (call `get`).
   */
  peek(slug: string): CachedSite | null | undefined {
    const site = this.sites.get(slug);
    if (site) return site;
    const until = this.unknown.get(slug);
    if (until === undefined) return undefined;
    if (this.clock.now().getTime() < until) return null;
    this.unknown.delete(slug);
    return undefined;
  }

  /** The site of `slug`, read from storage when memory does not know it; null when there is none. */
  get(slug: string): Promise<CachedSite | null> {
    const known = this.peek(slug);
    if (known !== undefined) return Promise.resolve(known);
    let pending = this.loading.get(slug);
    if (!pending) {
      pending = this.load(slug);
      this.loading.set(slug, pending);
    }
    return pending;
  }

  /** Forgets `slug` (site or "unknown"); the next request reads storage. Change events call it. */
  invalidate(slug: string): void {
    this.sites.delete(slug);
    this.unknown.delete(slug);
    this.loading.delete(slug);
    this.generations.set(slug, (this.generations.get(slug) ?? 0) + 1);
  }

  /** Stops listening for change events and forgets every site. */
  close(): void {
    this.unsubscribe();
    this.sites.clear();
    this.unknown.clear();
    this.loading.clear();
    this.generations.clear();
  }

  private async load(slug: string): Promise<CachedSite | null> {
    const generation = this.generations.get(slug) ?? 0;
    const current = () => (this.generations.get(slug) ?? 0) === generation;
    try {
      const snapshot = await this.store.get(slug);
      const cached = isSnapshot(snapshot) ? await prepareSite(snapshot) : null;
      // A change event while reading: answer what was read, but keep nothing (the next request reads again).
      if (!current()) return cached;
      if (cached) this.remember(slug, cached);
      else this.rememberUnknown(slug);
      return cached;
    } finally {
      if (current()) this.loading.delete(slug);
    }
  }

  private remember(slug: string, site: CachedSite): void {
    this.unknown.delete(slug);
    if (this.sites.size >= this.settings.maxSites) {
      const oldest = this.sites.keys().next();
      if (!oldest.done) this.sites.delete(oldest.value);
    }
    this.sites.set(slug, site);
  }

  private rememberUnknown(slug: string): void {
    if (this.unknown.size >= this.settings.maxUnknown) this.unknown.clear();
    this.unknown.set(slug, this.clock.now().getTime() + this.settings.negativeTtlMs);
  }
}

function isSnapshot(value: unknown): value is PublishedSite {
  const files = (value as PublishedSite | null)?.files;
  return typeof files === "object" && files !== null;
}

/** Decodes every file of a snapshot and makes its compressed variants (in zlib's thread pool). */
export async function prepareSite(site: PublishedSite): Promise<CachedSite> {
  const prepared = await Promise.all(Object.entries(site.files).map(([path, file]) => prepareFile(path, file)));
  const files = new Map(prepared.map((file) => [file.path, file]));
  return { site, files, notFound: files.get(NOT_FOUND_PATH) ?? null };
}

/** One file, ready to write: decoded body, HTTP date, and gzip/brotli variants for text. */
export async function prepareFile(path: string, file: PublishedFile): Promise<CachedFile> {
  const body = Buffer.from(file.body, file.encoding === "base64" ? "base64" : "utf8");
  let gzipped: Buffer | null = null;
  let brotli: Buffer | null = null;
  if (isCompressible(file.contentType) && body.length > 0) {
    const [gz, br] = await Promise.all([
      gzipAsync(body, { level: zlibConstants.Z_BEST_COMPRESSION }),
      brotliAsync(body, {
        params: {
          [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
          [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY,
          [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      }),
    ]);
    // A variant that is not smaller (tiny files) is never worth the Vary and the CPU of the client.
    if (gz.length < body.length) gzipped = gz;
    if (br.length < body.length) brotli = br;
  }
  const modified = new Date(file.lastModified);
  return {
    path,
    contentType: file.contentType,
    etag: file.etag,
    lastModified: Number.isNaN(modified.getTime()) ? null : modified.toUTCString(),
    body,
    gzip: gzipped,
    br: brotli,
  };
}
