import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { dashboardAssetRoutes } from "./dashboard-assets.js";
import { dashboardAppRoutes } from "./app-routes.js";
import { dashboardCodeHostRoutes } from "./code-host-screen.js";
import { dashboardDomainRoutes } from "./domain-screen.js";
import { dashboardJobStreamRoutes } from "./job-stream.js";
import { dashboardMembersRoutes } from "./members-screen.js";
import { designRoutes } from "./design-screen.js";
import { pagesRoutes } from "./pages-screen.js";
import { siteRoutes } from "./site-screen.js";
import { sitesRoutes } from "./sites-screen.js";

export { dashboardPaths, SITE_SECTIONS, type SiteSection } from "./dashboard-paths.js";
export { dashboardForm, dashboardRead, dashboardScreen, type DashboardRequest, type Screen } from "./dashboard-route.js";
export { dashboardResponse, type Said } from "./dashboard-frame.js";
export { formInput } from "./form-input.js";

/**
 * The dashboard: a person's sites and everything about them, in the browser, with the browser
 * session only. One file per screen; each screen registers its page and its forms here.
 */
export function dashboardRoutes(app: H3, reposite: Reposite): void {
  dashboardAssetRoutes(app);
  sitesRoutes(app, reposite);
  siteRoutes(app, reposite);
  pagesRoutes(app, reposite);
  designRoutes(app, reposite);
  dashboardAppRoutes(app, reposite);
  dashboardDomainRoutes(app, reposite);
  dashboardMembersRoutes(app, reposite);
  dashboardCodeHostRoutes(app, reposite);
  dashboardJobStreamRoutes(app, reposite);
}
