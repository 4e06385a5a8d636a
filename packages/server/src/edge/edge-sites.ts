import { readdir } from "node:fs/promises";
import { EVENTS, prepareSite, PublishedSiteStore, SITE_CHANGED_CHANNEL, type EdgeRouteTable, type Reposite } from "@reposite/core";
import { removeSiteFiles, writeSiteVersion } from "./site-version.js";

/** The published sites on the edge's disk, kept in step with publishing. */
export interface EdgeSites {
  /** The site id of a slug whose files are on disk (for the visit log). */
  siteIdOf(slug: string): string | undefined;
  /** Resolves once every write asked for so far is done. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Writes every published site's files under `dir` at start, and again for a site whenever
 * `SITE_CHANGED_CHANNEL` names it (published again, renamed, taken down) or its custom domain
 * changes (its pages name the new address). The bodies are prepared from the stored snapshot as
 * Node would serve them, outside the site cache: Node holds no page of a site nginx serves. Writes of one slug run one after the other; the route table lists a slug once its
 * first version is on disk and drops it before its files go.
 */
export async function startEdgeSites(reposite: Reposite, table: Pick<EdgeRouteTable, "siteOnDisk">, options: { dir: string; brotli: boolean }): Promise<EdgeSites> {
  const ids = new Map<string, string>();
  const queues = new Map<string, Promise<void>>();
  let closed = false;

  const store = reposite.container.resolve(PublishedSiteStore);
  const sync = async (slug: string) => {
    if (closed) return;
    const snapshot = await store.get(slug);
    if (snapshot) {
      // Prepared outside the site cache, as Node would serve it (at its custom domain's address):
      // nginx serves the files, so Node keeps nothing of the pages.
      const site = await prepareSite(snapshot, { readApart: (file) => store.apartBody(snapshot.site_id, file) }, reposite.siteCache.publicUrlOf(snapshot));
      await writeSiteVersion(options.dir, site, { brotli: options.brotli });
      ids.set(slug, snapshot.site_id);
      table.siteOnDisk(slug, true);
    } else {
      table.siteOnDisk(slug, false);
      ids.delete(slug);
      await removeSiteFiles(options.dir, slug);
    }
  };
  const schedule = (slug: string): Promise<void> => {
    const next = (queues.get(slug) ?? Promise.resolve())
      .then(() => sync(slug))
      .catch((error: unknown) => console.error(`[reposite] [edge] writing the files of site "${slug}" failed; Reposite serves it meanwhile:`, error))
      .finally(() => {
        if (queues.get(slug) === next) queues.delete(slug);
      });
    queues.set(slug, next);
    return next;
  };

  // After the cache's own listener has dropped the old copy (listeners run in subscription order).
  const stops = [
    reposite.container.resolve(EVENTS).subscribe(SITE_CHANGED_CHANNEL, (event) => {
      const slug = (event as { slug?: unknown } | null)?.slug;
      if (typeof slug === "string") setImmediate(() => void schedule(slug));
    }),
    reposite.domainTable.onChange(({ before, after }) => {
      for (const slug of new Set([before?.slug, after?.slug])) if (slug && ids.has(slug)) setImmediate(() => void schedule(slug));
    }),
  ];

  const published = new Set(await store.slugs());
  // Folders of sites no longer published (taken down while the server was stopped) go.
  for (const slug of await readdir(options.dir).catch(() => [])) if (!published.has(slug)) await removeSiteFiles(options.dir, slug);
  for (const slug of published) await schedule(slug);

  return {
    siteIdOf: (slug) => ids.get(slug),
    settled: async () => {
      while (queues.size > 0) await Promise.all(queues.values());
    },
    async close() {
      closed = true;
      for (const stop of stops) stop();
      await Promise.all(queues.values());
    },
  };
}
