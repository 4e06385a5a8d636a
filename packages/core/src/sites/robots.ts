/**
 * `robots.txt` of a published site: everything may be crawled, and the `Sitemap:` line (an
 * absolute URL, as the protocol asks) is how engines find the sitemap now that the ping
 * endpoints are gone.
 */
export function renderRobots(siteUrl: string): string {
  return `User-agent: *\nAllow: /\n\nSitemap: ${siteUrl}/sitemap.xml\n`;
}
