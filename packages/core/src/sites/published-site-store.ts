import { inject, injectable } from "tsyringe";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import type { PublishedFile, PublishedSite } from "./published-site.js";

/** The snapshot the site runtime serves for a host. */
const siteKey = (slug: string) => `published-sites:${slug}`;
/** Which slug a project's snapshot lives under (absent when the project has none live). */
const bySiteKey = (siteId: string) => `published-by-site:${siteId}`;
/** Who holds an address: the `site_id`. */
const claimKey = (slug: string) => `slugs:${slug}`;
/**
 * The body of a file kept apart from its snapshot, by content (its ETag), so a publish writes the
 * new body before the snapshot that names it, and a snapshot never names a body that is not there.
 */
const apartPrefix = (siteId: string) => `published-files:${siteId}`;
const apartKey = (siteId: string, file: Pick<PublishedFile, "etag">) => `${apartPrefix(siteId)}:${file.etag.replace(/[^A-Za-z0-9_-]/g, "")}`;

/**
 * Published snapshots and the claims on addresses. The only place that knows their storage keys.
 *
 * A claim is written under the lock of its slug, so of several projects asking for one slug at
 * the same time exactly one gets it. The embedded Locks hold inside one process: with several
 * server replicas, register a Locks shared by all of them (for example on Redis), or two replicas
 * could each hand the same slug out.
 */
@injectable()
export class PublishedSiteStore {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
  ) {}

  /** The snapshot served at `slug`, or null. */
  get(slug: string): Promise<PublishedSite | null> {
    return this.storage.getItem<PublishedSite>(siteKey(slug));
  }

  /** Slugs of every published snapshot (the edge writes their files at start). */
  async slugs(): Promise<string[]> {
    const prefix = siteKey("");
    return (await this.storage.getKeys(prefix)).map((key) => key.slice(prefix.length)).filter((slug) => slug && !slug.includes(":"));
  }

  /** The project's live snapshot, wherever it is, or null. */
  async getBySite(siteId: string): Promise<PublishedSite | null> {
    const slug = await this.storage.getItem<string>(bySiteKey(siteId));
    if (!slug) return null;
    const site = await this.get(slug);
    return site?.site_id === siteId ? site : null;
  }

  /**
   * Stores `site` at its slug and points the project at it. When the project's snapshot lived at
   * another slug (a rename), that copy goes after the new one is in place, so there is no moment
   * with neither. Answers the slug the snapshot left, if any.
   */
  async put(site: PublishedSite): Promise<{ previousSlug: string | null }> {
    const previousSlug = await this.storage.getItem<string>(bySiteKey(site.site_id));
    await this.storage.setItem(siteKey(site.slug), site);
    await this.storage.setItem(bySiteKey(site.site_id), site.slug);
    if (previousSlug && previousSlug !== site.slug) {
      const left = await this.get(previousSlug);
      if (left?.site_id === site.site_id) await this.storage.removeItem(siteKey(previousSlug));
      return { previousSlug };
    }
    return { previousSlug: null };
  }

  /** Takes the project's snapshot down. Answers the slug it was served at, or null when none was live. */
  async remove(siteId: string): Promise<string | null> {
    const slug = await this.storage.getItem<string>(bySiteKey(siteId));
    if (!slug) return null;
    const site = await this.get(slug);
    const live = site?.site_id === siteId ? site : null;
    if (live) await this.storage.removeItem(siteKey(slug));
    await this.storage.removeItem(bySiteKey(siteId));
    if (live) await this.removeUnusedApartBodies(siteId, live, null);
    return live ? slug : null;
  }

  /** Stores the body of a file the snapshot keeps `apart`; call before storing the snapshot. */
  async putApartBody(siteId: string, file: PublishedFile, body: Buffer): Promise<void> {
    await this.storage.setItem(apartKey(siteId, file), { body: body.toString("base64") });
  }

  /** The body of a file kept `apart`, or null when it is not there (the site was published again or taken down meanwhile). */
  async apartBody(siteId: string, file: PublishedFile): Promise<Buffer | null> {
    const record = await this.storage.getItem<{ body?: unknown }>(apartKey(siteId, file));
    return typeof record?.body === "string" ? Buffer.from(record.body, "base64") : null;
  }

  /** Removes the bodies `previous` kept apart that `current` (null: nothing) no longer names. */
  async removeUnusedApartBodies(siteId: string, previous: PublishedSite, current: PublishedSite | null): Promise<void> {
    const used = new Set(Object.values(current?.files ?? {}).flatMap((file) => (file.apart ? [apartKey(siteId, file)] : [])));
    for (const file of Object.values(previous.files)) {
      const key = apartKey(siteId, file);
      if (file.apart && !used.has(key)) await this.storage.removeItem(key);
    }
  }

  /** Removes every body the project kept apart, whatever snapshot named it (a purge). */
  async removeAllApartBodies(siteId: string): Promise<void> {
    for (const key of await this.storage.getKeys(apartPrefix(siteId))) await this.storage.removeItem(key);
  }

  /** The `site_id` holding `slug`, or null. */
  holder(slug: string): Promise<string | null> {
    return this.storage.getItem<string>(claimKey(slug));
  }

  /**
   * Gives `slug` to `siteId` unless another project holds it. `isStale(holder)` may say a
   * holder's claim is left over (its project is gone and nothing is served there); such a claim
   * is taken over. Answers whether `siteId` holds the slug now.
   *
   * `recordWith`, when given, writes the claim itself along with other records in one transaction
   * (the project's new slug): it is handed the claim's write and must run it through its `tx`.
   * Still under the slug's lock, so no other project takes the slug meanwhile.
   */
  async claim(
    slug: string,
    siteId: string,
    isStale?: (holder: string) => Promise<boolean>,
    recordWith?: (writeClaim: (tx: RecordStorage) => Promise<void>) => Promise<void>,
  ): Promise<boolean> {
    return this.locks.withLock(claimKey(slug), async () => {
      const holder = await this.holder(slug);
      if (holder === siteId) return true;
      if (holder !== null && !(await isStale?.(holder))) return false;
      const writeClaim = (tx: RecordStorage) => tx.setItem(claimKey(slug), siteId);
      await (recordWith ? recordWith(writeClaim) : writeClaim(this.storage));
      return true;
    });
  }

  /** Frees `slug` when `siteId` holds it; a claim of another project is left alone. */
  async release(slug: string, siteId: string): Promise<void> {
    await this.locks.withLock(claimKey(slug), async () => {
      if ((await this.holder(slug)) === siteId) await this.storage.removeItem(claimKey(slug));
    });
  }
}
