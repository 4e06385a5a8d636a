import { html, type SafeHtml } from "../pages/html.js";
import { layout, pageResponse, type PageSession } from "../pages/layout.js";
import { dashboardPaths, SITE_SECTIONS, type SiteSection } from "./dashboard-paths.js";
import { dashboardPolicy } from "./dashboard-policy.js";

/** What a screen said about the form just sent: a confirmation, or the service's error message. */
export interface Said {
  notice?: string | undefined;
  error?: string | undefined;
}

export interface DashboardFrame extends Said {
  title: string;
  session: PageSession;
  /** The site this screen belongs to: shows the site's sub-navigation with `section` current. */
  site?: { id: string; name: string; section: SiteSection } | undefined;
  body: SafeHtml;
}

/** A site's sub-navigation: its name, then its screens; the current one is marked for screen readers. */
function siteNav(site: NonNullable<DashboardFrame["site"]>): SafeHtml {
  return html`<nav class="subnav" aria-label="Site">
  <a href="${dashboardPaths.sites}">All sites</a>
  ${SITE_SECTIONS.map(
    ({ key, label, path }) => html`<a href="${path(site.id)}"${key === site.section ? html` aria-current="page"` : null}>${label}</a>`,
  )}
</nav>`;
}

/** Every dashboard screen's frame: the account layout, a site's sub-navigation, what was said, the screen. */
export function dashboardDocument({ title, session, site, body, notice, error }: DashboardFrame): SafeHtml {
  return layout({
    title,
    session,
    subnav: site ? siteNav(site) : null,
    head: html`<link rel="stylesheet" href="${dashboardPaths.assets}/dashboard.css">
<script type="module" src="${dashboardPaths.assets}/dashboard.js"></script>`,
    body: html`${notice && html`<div class="notice ok" role="status"><p>${notice}</p></div>`}
${error && html`<div class="notice error" role="alert"><p>${error}</p></div>`}
${body}`,
  });
}

/** A dashboard screen as a response: the page headers, with the dashboard's own CSP. */
export function dashboardResponse(baseUrl: string, frame: DashboardFrame, status = 200): Response {
  return pageResponse(dashboardDocument(frame), status, { "content-security-policy": dashboardPolicy(baseUrl) });
}
