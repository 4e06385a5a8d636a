import type { ColorMode, PageKind } from "../projects/project.js";

/**
 * One file of a published site, ready to serve as is: the runtime answers from these bytes and
 * never renders or reads storage on the hot path.
 */
export interface PublishedFile {
  /** Path on the site host: `/`, `/about`, `/faq`, `/auth`, `/sitemap.xml`, `/robots.txt`, `/og.png`, `/<key>.txt`, `/404`. */
  path: string;
  contentType: string;
  /** The body, base64 for binary files (`encoding: "base64"`), else UTF-8 text; "" when kept `apart`. */
  body: string;
  encoding?: "base64";
  /**
   * Set when the body is kept in a record of its own instead of in the snapshot (the preview
   * image): it is asked for rarely, so loading a site never reads it and no cache holds it.
   * `size` is the body's length in bytes. `PublishedSiteStore.apartBody` reads it.
   */
  apart?: { size: number };
  /** Strong ETag of the body, quoted: `"<sha256 base64url prefix>"`. */
  etag: string;
  /** When this file's content last changed (UTC ISO 8601); sitemap `lastmod` comes from it. */
  lastModified: string;
}

/** What publishing leaves for the runtime, stored per slug (`published-sites:<slug>`). */
export interface PublishedSite {
  site_id: string;
  owner_id: string;
  slug: string;
  /** Absolute address, `https://<slug>.<sites domain>`. */
  url: string;
  /** The design every generated page and the site's own pages (404, sign-in messages, forum) are drawn in. */
  design: string;
  /**
   * The project's color_mode when the site was published: every page has this appearance, and pages
   * drawn later (one page published alone, forum, sign-in messages) take it too, so a site never
   * mixes light and dark pages. Absent in snapshots made before it was kept.
   */
  color_mode?: ColorMode;
  name: string;
  /** Pages live on the site, by kind. */
  pages: PageKind[];
  /** The built-in forum is open (`/community`). */
  community: boolean;
  /** Files by path. */
  files: Record<string, PublishedFile>;
  published_at: string;
  /** Bumped on every publish; caches compare it. */
  revision: number;
}

/** A snapshot without its files: what the dynamic pages and the runtime need to know of a site. */
export type PublishedSiteInfo = Omit<PublishedSite, "files">;

/** Event channel the runtime listens on to drop a cached site (published again, renamed, taken down). */
export const SITE_CHANGED_CHANNEL = "sites:changed";
export interface SiteChanged {
  slug: string;
}
