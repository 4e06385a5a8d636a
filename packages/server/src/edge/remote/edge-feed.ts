import { createHash } from "node:crypto";
import type { EdgeCertificateView, EdgeFeedView, EdgeSiteView } from "@reposite/contract";
import { startCertificateFeed } from "./certificate-feed.js";
import { EdgeRouteTable, EVENTS, PublishedSiteStore, SITE_CHANGED_CHANNEL, type PublishedFile, type Reposite } from "@reposite/core";

/** What the control plane tells its edges, kept in memory and answered to long polls. */
export interface EdgeFeed {
  /** The feed now; waits first (up to `waitMs`, or until `signal` aborts) while `after` is its version. */
  after(after: number | undefined, waitMs: number, signal?: AbortSignal): Promise<EdgeFeedView>;
  /** A published site's snapshot with every body inline, or null when `slug` is not published. */
  site(slug: string): Promise<EdgeSiteView | null>;
  /** A listed certificate with its key, or null when `name` has none to serve. */
  certificate(name: string): Promise<EdgeCertificateView | null>;
  close(): void;
}

type SiteEntry = EdgeFeedView["sites"][number];

/** Changes when anything the edge writes from a site does: a publish, or the address its files name. */
const siteVersion = (siteId: string, revision: number, publishedAt: string, publicUrl: string) =>
  createHash("sha256").update(`${siteId}\n${revision}\n${publishedAt}\n${publicUrl}`).digest("base64url").slice(0, 16);

/**
 * The edge feed of one control-plane process: the route table (`EdgeRouteTable`, the one the
 * single-machine edge reads), each published site's version and built-in ACME's certificates
 * (`certificate-feed.ts`). Its version starts at the clock
 * (milliseconds) and grows by one per change, so a restarted control plane answers above what its
 * edges already have and they take its table at once; an edge with another version is answered at
 * once too (another control plane, or one it has not heard from).
 */
export async function startEdgeFeed(reposite: Reposite): Promise<EdgeFeed> {
  const table = reposite.container.resolve(EdgeRouteTable);
  const store = reposite.container.resolve(PublishedSiteStore);
  const sites = new Map<string, SiteEntry>();
  const waiters = new Set<() => void>();
  let version = Date.now();

  const changed = () => {
    version += 1;
    for (const wake of waiters) wake();
    waiters.clear();
  };
  const readSite = async (slug: string) => {
    const site = await reposite.siteCache.get(slug).catch((error: unknown) => {
      console.error(`[reposite] [edge feed] reading site "${slug}" failed; edges keep its last version:`, error);
      return undefined;
    });
    if (site === undefined) return;
    const before = sites.get(slug);
    if (!site) {
      if (sites.delete(slug)) changed();
      return;
    }
    const entry = { slug, site_id: site.site.site_id, version: siteVersion(site.site.site_id, site.site.revision, site.site.published_at, site.publicUrl) };
    if (before?.version === entry.version && before.site_id === entry.site_id) return;
    sites.set(slug, entry);
    changed();
  };

  const stops = [
    table.subscribe(changed),
    // After the site cache's own listener dropped its copy (listeners run in subscription order).
    reposite.container.resolve(EVENTS).subscribe(SITE_CHANGED_CHANNEL, (event) => {
      const slug = (event as { slug?: unknown } | null)?.slug;
      if (typeof slug === "string") setImmediate(() => void readSite(slug));
    }),
    // A custom domain changes the address a site's files name.
    reposite.domainTable.onChange(({ before, after }) => {
      for (const slug of new Set([before?.slug, after?.slug])) if (slug) setImmediate(() => void readSite(slug));
    }),
  ];
  const certificates = await startCertificateFeed(reposite, changed);
  await table.load();
  for (const slug of await store.slugs()) await readSite(slug);

  const view = (): EdgeFeedView => {
    const routes = table.snapshot();
    return {
      version,
      sites_domain: routes.sitesDomain,
      apps: routes.apps.map((app) => ({ site_id: app.siteId, slug: app.slug, target: app.target ? { host: app.target.host, port: app.target.port } : null, gated: app.gated })),
      domains: routes.domains.map(({ domain, slug }) => ({ domain, slug })),
      sites: [...sites.values()].sort((a, b) => a.slug.localeCompare(b.slug)),
      certificates: certificates.list(),
    };
  };

  return {
    async after(after, waitMs, signal) {
      if (after === version && !signal?.aborted) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiters.delete(done);
            signal?.removeEventListener("abort", done);
            resolve();
          };
          const timer = setTimeout(done, waitMs);
          waiters.add(done);
          signal?.addEventListener("abort", done, { once: true });
        });
      }
      return view();
    },
    async site(slug) {
      const cached = await reposite.siteCache.get(slug);
      const snapshot = cached ? await store.get(slug) : null;
      if (!cached || !snapshot) return null;
      const files: Record<string, PublishedFile> = {};
      for (const [path, file] of Object.entries(snapshot.files)) {
        if (!file.apart) {
          files[path] = file;
          continue;
        }
        // The preview image is kept apart from the snapshot: the edge gets it inline, and never reads this server's storage.
        const body = await store.apartBody(snapshot.site_id, file);
        if (body) files[path] = { path: file.path, contentType: file.contentType, body: body.toString("base64"), encoding: "base64", etag: file.etag, lastModified: file.lastModified };
      }
      const publicUrl = reposite.siteCache.publicUrlOf(snapshot);
      return {
        slug,
        site_id: snapshot.site_id,
        version: siteVersion(snapshot.site_id, snapshot.revision, snapshot.published_at, publicUrl),
        public_url: publicUrl,
        // Plain JSON (the contract types it loosely: the snapshot's shape is core's).
        snapshot: { ...snapshot, files } as unknown as EdgeSiteView["snapshot"],
      };
    },
    async certificate(name) {
      const certificate = await certificates.get(name);
      return certificate ? { name, version: certificate.serial, expires_at: certificate.expiresAt, key_pem: certificate.keyPem, chain_pem: certificate.chainPem } : null;
    },
    close() {
      certificates.close();
      for (const stop of stops) stop();
      for (const wake of waiters) wake();
      // The table is the composition's own (the Node runtime reads it too): it closes with the composition.
    },
  };
}
