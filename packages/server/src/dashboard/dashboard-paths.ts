/**
 * The dashboard's URL scheme, in one place: every screen and form links through these, so a
 * newcomer finds every address here. A site's screens live under `/account/sites/:site_id`.
 * The same functions give the route patterns: `dashboardPaths.pages(":site_id")`. Ids are not
 * escaped: they come from our own records (`site_…`, `job_…`), never from what a person typed.
 */
const site = (siteId: string) => `/account/sites/${siteId}`;

export const dashboardPaths = {
  /** The signed-in person's sites, with the search and the create form. */
  sites: "/account/sites",
  /** Whether an address is free, for the check as you type (the same answer as `GET /app/subdomain-check`). */
  slugCheck: "/account/sites/slug-check",
  /** One site: its address, a link to open it, the address rename. */
  site,
  pages: (siteId: string) => `${site(siteId)}/pages`,
  design: (siteId: string) => `${site(siteId)}/design`,
  app: (siteId: string) => `${site(siteId)}/app`,
  domain: (siteId: string) => `${site(siteId)}/domain`,
  members: (siteId: string) => `${site(siteId)}/members`,
  /** A job's events for the session (server-sent events, resumed with Last-Event-ID or `?from=`). */
  jobStream: (siteId: string, jobId: string) => `${site(siteId)}/jobs/${jobId}/stream`,
  /** Where the dashboard's script and stylesheet are served from (this server only). */
  assets: "/dashboard/assets",
} as const;

/** The screens of a site, in the order its sub-navigation shows them. */
export const SITE_SECTIONS = [
  { key: "site", label: "Overview", path: dashboardPaths.site },
  { key: "pages", label: "Pages", path: dashboardPaths.pages },
  { key: "design", label: "Design", path: dashboardPaths.design },
  { key: "app", label: "App", path: dashboardPaths.app },
  { key: "domain", label: "Domain", path: dashboardPaths.domain },
  { key: "members", label: "Members", path: dashboardPaths.members },
] as const;

export type SiteSection = (typeof SITE_SECTIONS)[number]["key"];
