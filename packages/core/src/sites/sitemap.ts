/** One page in a sitemap. */
export interface SitemapEntry {
  /** Absolute address of the page. */
  url: string;
  /** When the page's content last changed (ISO 8601, UTC). */
  lastModified: string;
}

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Escapes text for XML content and attributes. */
export function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => XML_ESCAPES[ch]!);
}

/**
 * A sitemap (sitemaps.org protocol 0.9) of absolute URLs, each with its true `lastmod`: the time
 * the page's content last changed, so crawlers can trust it and skip pages that did not change.
 */
export function renderSitemap(entries: SitemapEntry[]): string {
  const urls = entries.map(
    (entry) => `  <url>\n    <loc>${escapeXml(entry.url)}</loc>\n    <lastmod>${escapeXml(entry.lastModified)}</lastmod>\n  </url>\n`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join("")}</urlset>\n`;
}
