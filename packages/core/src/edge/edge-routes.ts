import type { AppTarget } from "../hosting/app-routes.js";
import type { DeploymentStatus } from "../projects/deployment.js";

/** One project's app as the edge routes `/app/` of its hosts. */
export interface EdgeApp {
  siteId: string;
  /** The project's slug: `<slug>.<sitesDomain>` is its host. */
  slug: string;
  /** Where the running app answers; null while it is not running (the edge then asks Reposite, which answers the 503 page). */
  target: AppTarget | null;
  /** Members only (`auth_redirect_to_app`): the gate is Reposite's, so the edge sends these to it. */
  gated: boolean;
  /** The app's state (the `/app/` table's): while it has no target, which "not running" page it answers. */
  status?: DeploymentStatus;
}

/** What the route table keeps of a project: its address and its app's gate (the rest stays in storage). */
export interface ProjectRoute {
  siteId: string;
  /** `<slug>.<sitesDomain>` is its host; null until it claims an address (the edge routes no app without one). */
  slug: string | null;
  ownerId: string;
  /** Members only (`auth_redirect_to_app`): only signed-in members of the site reach its app. */
  gated: boolean;
}

/** A verified custom domain and the slug it serves. */
export interface EdgeDomain {
  domain: string;
  slug: string;
}

/**
 * Everything an edge needs to route requests, at one moment. `version` grows with every change,
 * so an edge (or a supervisor) can tell a newer table from the one it already applied.
 */
export interface EdgeRoutes {
  version: number;
  /** Sites answer at `<slug>.<sitesDomain>` (host name only, lower case, no port). */
  sitesDomain: string;
  /** Apps by slug order, running or not. */
  apps: readonly EdgeApp[];
  /** Verified custom domains only: an unverified name is not routed anywhere. */
  domains: readonly EdgeDomain[];
  /** Slugs of the published sites whose files the edge has on disk (`<sites>/<slug>/current`), sorted. */
  sites: readonly string[];
}
