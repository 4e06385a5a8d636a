import { inject, injectable, type InjectionToken } from "tsyringe";
import { CONFIG, type RepositeConfig } from "../config.js";
import { DomainTable } from "../domains/domain-table.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { EVENTS, type EventBus } from "../ports/events.js";
import { FILE_OVERHEAD_BYTES, prepareFile, type CachedFile, type CachedFileHooks } from "./cached-file.js";
import { SITE_CHANGED_CHANNEL, type PublishedSite, type PublishedSiteInfo } from "./published-site.js";
import { PublishedSiteStore } from "./published-site-store.js";
import { customDomainUrl, readdressFiles } from "./site-address.js";

/** Path of the file served, with status 404, for every path a site does not have. */
export const NOT_FOUND_PATH = "/404";

/** Bytes counted per site beyond its files: the snapshot's fields and the cache's entries. An estimate. */
export const SITE_OVERHEAD_BYTES = 2_048;

/** Default budget of the published-site cache: 64 MiB of bodies and bookkeeping. */
export const DEFAULT_SITE_CACHE_BYTES = 64 * 1024 * 1024;

/** A published site as the runtime serves it: what the snapshot says of the site, and its files. */
export interface CachedSite {
  /** The snapshot without its files. */
  readonly site: PublishedSiteInfo;
  /**
   * The address the files name (canonical, link previews, sitemap, robots): `https://<domain>`
   * while the project has a verified custom domain, else the snapshot's `site.url`.
   */
  readonly publicUrl: string;
  /** Files by path, `/404` included. */
  readonly files: ReadonlyMap<string, CachedFile>;
  /** The site's 404 page in its design (`/404`), or null when the snapshot has none. */
  readonly notFound: CachedFile | null;
  /** Bytes the site counts against the cache's budget now (grows as files are made in other encodings). */
  readonly bytes: number;
}

/** Settings of the cache; the defaults suit production, tests shorten them. */
export interface SiteCacheSettings {
  /** How long "no site has this slug" is remembered, so unknown hosts do not reach storage each time. Default 10 s. */
  negativeTtlMs: number;
  /**
   * Most bytes held for sites (bodies plus an allowance per file and site); past it the least
   * recently asked-for sites are dropped (and read again when asked for). A site bigger than the
   * whole budget is served without being kept. Default: the config's `siteCacheBytes`, 64 MiB.
   */
  maxBytes: number;
  /** Most unknown slugs remembered at once; past it they are all forgotten. Default 10 000. */
  maxUnknown: number;
}

export const DEFAULT_SITE_CACHE_SETTINGS: SiteCacheSettings = { negativeTtlMs: 10_000, maxBytes: DEFAULT_SITE_CACHE_BYTES, maxUnknown: 10_000 };

/** Optional: register a `Partial<SiteCacheSettings>` under it to change the cache's settings. */
export const SITE_CACHE_SETTINGS: InjectionToken<Partial<SiteCacheSettings>> = Symbol.for("reposite.SiteCacheSettings");

/** What the cache holds now. */
export interface SiteCacheStats {
  sites: number;
  bytes: number;
  maxBytes: number;
}

/**
 * Published sites in memory, by slug, within a budget of bytes. A site is read from storage once
 * (concurrent first requests share one read), prepared once per revision (text compressed with
 * brotli; see `CachedFile` for what is held) and dropped when `SITE_CHANGED_CHANNEL` says it was
 * published again, renamed or taken down; the next request reads it again. When a site (or a
 * file made in another encoding) does not fit, the least recently asked-for sites go. Slugs with
 * no site are remembered for `negativeTtlMs`, so a flood of made-up hosts costs one storage read
 * per slug per TTL, not one per request.
 *
 * A project with a verified custom domain (`DomainTable`) is served with the domain as its public
 * address: the stored snapshot keeps the project's address, and its pages' heads, sitemap and
 * robots.txt are rewritten once, when the site is read (`readdressFiles`). A domain verified,
 * changed or removed drops the site (`DomainTable.onChange`), so the next request reads it again
 * with the new address: no publish, and nothing done per request.
 *
 * `peek` is synchronous and touches nothing but memory: the runtime's hot path uses it.
 */
@injectable()
export class SiteCache {
  private readonly settings: SiteCacheSettings;
  /** Least recently asked-for first. */
  private readonly sites = new Map<string, SiteEntry>();
  /** The slug asked for last, so a run of requests to one site does not reorder the map each time. */
  private newest: string | undefined;
  private total = 0;
  /** Unknown slug -> time (ms) until which it stays unknown without asking storage. */
  private readonly unknown = new Map<string, number>();
  private readonly loading = new Map<string, Promise<CachedSite | null>>();
  /**
   * Bumped per slug on every change event while a read of it is under way, so that read is not
   * kept. Only slugs being read have an entry: a site changed now and then costs no memory.
   */
  private readonly generations = new Map<string, number>();
  /** Reads under way per slug. */
  private readonly reads = new Map<string, number>();
  private readonly unsubscribe: () => void;
  private readonly unwatchDomains: () => void;

  constructor(
    @inject(PublishedSiteStore) private readonly store: PublishedSiteStore,
    @inject(EVENTS) events: EventBus,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(CONFIG) config: RepositeConfig,
    @inject(DomainTable) private readonly domains: DomainTable,
    @inject(SITE_CACHE_SETTINGS, { isOptional: true }) settings?: Partial<SiteCacheSettings>,
  ) {
    this.settings = { ...DEFAULT_SITE_CACHE_SETTINGS, maxBytes: config.siteCacheBytes, ...settings };
    this.unsubscribe = events.subscribe(SITE_CHANGED_CHANNEL, (event) => {
      const slug = (event as { slug?: unknown } | null)?.slug;
      if (typeof slug === "string") this.invalidate(slug);
    });
    this.unwatchDomains = domains.onChange(({ before, after }) => {
      for (const siteId of new Set([before?.siteId, after?.siteId])) if (siteId) this.readdress(siteId);
    });
  }

  /** Where `site`'s files point now: its verified custom domain, else its own address. */
  publicUrlOf(site: PublishedSiteInfo): string {
    const entry = this.domains.ofSite(site.site_id);
    return (entry?.verified ? customDomainUrl(site.url, entry.domain) : null) ?? site.url;
  }

  /**
   * What memory knows about `slug`, without waiting: the site, `null` when the slug is known to
   * have no site, `undefined` when it has to be read (call `get`).
   */
  peek(slug: string): CachedSite | null | undefined {
    const site = this.sites.get(slug);
    if (site) {
      if (this.newest !== slug) {
        // Most recently used goes last; the least recently used is then the first to go.
        this.sites.delete(slug);
        this.sites.set(slug, site);
        this.newest = slug;
      }
      return site;
    }
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
    this.drop(slug);
    this.unknown.delete(slug);
    this.loading.delete(slug);
    if (this.reads.has(slug)) this.generations.set(slug, (this.generations.get(slug) ?? 0) + 1);
  }

  /** Sites and bytes held now, and the budget. */
  stats(): SiteCacheStats {
    return { sites: this.sites.size, bytes: this.total, maxBytes: this.settings.maxBytes };
  }

  /** Stops listening for change events and forgets every site. */
  close(): void {
    this.unsubscribe();
    this.unwatchDomains();
    for (const entry of this.sites.values()) entry.kept = false;
    this.sites.clear();
    this.total = 0;
    this.newest = undefined;
    this.unknown.clear();
    this.loading.clear();
    this.generations.clear();
    this.reads.clear();
  }

  private async load(slug: string): Promise<CachedSite | null> {
    const generation = this.generations.get(slug) ?? 0;
    const current = () => (this.generations.get(slug) ?? 0) === generation;
    this.reads.set(slug, (this.reads.get(slug) ?? 0) + 1);
    try {
      const snapshot = await this.store.get(slug);
      const entry = isSnapshot(snapshot) ? await this.prepare(slug, snapshot) : null;
      // A change event while reading: answer what was read, but keep nothing (the next request reads again).
      // A domain verified or removed while reading: likewise (the address the files name is not the site's any more).
      if (!current() || (entry && entry.publicUrl !== this.publicUrlOf(entry.site))) return entry;
      if (entry) this.remember(entry);
      else this.rememberUnknown(slug);
      return entry;
    } finally {
      if (current()) this.loading.delete(slug);
      const left = (this.reads.get(slug) ?? 1) - 1;
      if (left > 0) this.reads.set(slug, left);
      else (this.reads.delete(slug), this.generations.delete(slug));
    }
  }

  private async prepare(slug: string, snapshot: PublishedSite): Promise<SiteEntry> {
    const { files, ...site } = snapshot;
    const publicUrl = this.publicUrlOf(site);
    const entry = new SiteEntry(slug, site, publicUrl);
    const hooks: CachedFileHooks = {
      keep: (bytes) => this.grow(entry, bytes),
      readApart: (file) => this.store.apartBody(site.site_id, file),
    };
    const served = publicUrl === site.url ? files : readdressFiles(files, site.url, publicUrl);
    const prepared = await Promise.all(Object.entries(served).map(([path, file]) => prepareFile(path, file, hooks)));
    entry.setFiles(prepared);
    return entry;
  }

  /** A project's custom domain changed: its site is dropped when it names another address now (read again on the next request). */
  private readdress(siteId: string): void {
    for (const [slug, entry] of [...this.sites]) {
      if (entry.site.site_id === siteId && entry.publicUrl !== this.publicUrlOf(entry.site)) this.invalidate(slug);
    }
  }

  private remember(entry: SiteEntry): void {
    this.unknown.delete(entry.slug);
    this.drop(entry.slug);
    if (entry.bytes > this.settings.maxBytes) return; // served once, never kept
    this.makeRoom(entry.bytes, entry.slug);
    this.sites.set(entry.slug, entry);
    this.newest = entry.slug;
    entry.kept = true;
    this.total += entry.bytes;
  }

  /** Whether a kept site may hold `bytes` more (a file made in another encoding); counts them when so. */
  private grow(entry: SiteEntry, bytes: number): boolean {
    if (!entry.kept || entry.bytes + bytes > this.settings.maxBytes) return false;
    this.makeRoom(bytes, entry.slug);
    entry.bytes += bytes;
    this.total += bytes;
    return true;
  }

  /** Drops the least recently asked-for sites, never `keep`, until `bytes` more fit in the budget. */
  private makeRoom(bytes: number, keep: string): void {
    for (const slug of this.sites.keys()) {
      if (this.total + bytes <= this.settings.maxBytes) return;
      if (slug !== keep) this.drop(slug);
    }
  }

  private drop(slug: string): void {
    const entry = this.sites.get(slug);
    if (!entry) return;
    this.sites.delete(slug);
    entry.kept = false;
    this.total -= entry.bytes;
    if (this.newest === slug) this.newest = undefined;
  }

  private rememberUnknown(slug: string): void {
    if (this.unknown.size >= this.settings.maxUnknown) this.unknown.clear();
    this.unknown.set(slug, this.clock.now().getTime() + this.settings.negativeTtlMs);
  }
}

/** A site in the cache, with the bytes it is counted for. */
class SiteEntry implements CachedSite {
  files: ReadonlyMap<string, CachedFile> = new Map();
  notFound: CachedFile | null = null;
  bytes = 0;
  /** In the cache now; a site dropped (or never kept) keeps nothing more. */
  kept = false;

  constructor(
    readonly slug: string,
    readonly site: PublishedSiteInfo,
    readonly publicUrl: string,
  ) {}

  setFiles(files: CachedFile[]): void {
    this.files = new Map(files.map((file) => [file.path, file]));
    this.notFound = this.files.get(NOT_FOUND_PATH) ?? null;
    this.bytes = SITE_OVERHEAD_BYTES + files.reduce((sum, file) => sum + FILE_OVERHEAD_BYTES + file.heldBytes(), 0);
  }
}

function isSnapshot(value: unknown): value is PublishedSite {
  const files = (value as PublishedSite | null)?.files;
  return typeof files === "object" && files !== null;
}

/** A snapshot prepared outside any cache (nothing counted), served at `publicUrl` (default its own): for tests and tools. */
export async function prepareSite(snapshot: PublishedSite, hooks: CachedFileHooks = {}, publicUrl = snapshot.url): Promise<CachedSite> {
  const { files, ...site } = snapshot;
  const entry = new SiteEntry(snapshot.slug, site, publicUrl);
  const served = publicUrl === site.url ? files : readdressFiles(files, site.url, publicUrl);
  entry.setFiles(await Promise.all(Object.entries(served).map(([path, file]) => prepareFile(path, file, hooks))));
  return entry;
}
