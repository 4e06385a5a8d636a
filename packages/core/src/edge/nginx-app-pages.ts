import type { DeploymentStatus } from "../projects/deployment.js";
import type { EdgeApp, EdgeRoutes } from "./edge-routes.js";
import { forwarding } from "./nginx-forwarding.js";

/**
 * The "app not up" pages served by nginx itself: a stopped (or building, starting, failed) app's
 * `503` and a running app's `502` when it does not answer, in the site's design. Reposite renders
 * them with the code the Node proxy answers with and writes them per app as
 * `<dir>/<slug>/503.html` and `502.html`; nginx sends them with that code and the same headers.
 * An app whose page is not on disk (yet) is answered by Reposite.
 */
export interface NginxAppPagesSettings {
  /** `<dataDir>/edge/app-pages`. */
  dir: string;
  /** `Retry-After` (seconds) of the 503 page by the app's state, as the Node proxy sends it. */
  retryAfter: (status: DeploymentStatus | undefined) => number;
  /** `Retry-After` (seconds) of the 502 page. */
  retryAfterNoAnswer: number;
  /** Headers of both pages besides `Retry-After` (`Content-Type` included), as the Node proxy sends them. */
  headers: Readonly<Record<string, string>>;
}

/** The upstream of apps that are not running: it has no live server, so nginx answers its own 503 at once. */
export const APP_DOWN_UPSTREAM = "reposite_app_down";

/** Apps nginx answers the 503 page for: not running, not members-only (the gate comes first: Reposite's). */
export const appsDown = (routes: EdgeRoutes) => routes.apps.filter((app) => !app.target && !app.gated);

const quoted = (text: string) => `"${text.replace(/["\\]/g, "")}"`;

function hostsOf(apps: readonly EdgeApp[], routes: EdgeRoutes): [string, EdgeApp][] {
  const bySlug = new Map(apps.map((app) => [app.slug, app]));
  const hosts: [string, EdgeApp][] = apps.map((app) => [`${app.slug}.${routes.sitesDomain}`, app]);
  for (const { domain, slug } of routes.domains) if (bySlug.has(slug)) hosts.push([domain, bySlug.get(slug)!]);
  return hosts;
}

/** http-level: which page a failed `/app` request gets. */
export function appPagesHttp(): string[] {
  return ["  map $reposite_upstream $reposite_app_state {", "    default 502;", `    ${APP_DOWN_UPSTREAM} 503;`, "  }"];
}

/** routes.conf: the down upstream, every app's host to its slug (its pages' folder), and the 503's Retry-After. */
export function appPagesRoutes(pages: NginxAppPagesSettings, routes: EdgeRoutes): string[] {
  return [
    `upstream ${APP_DOWN_UPSTREAM} {`,
    "  server 127.0.0.1:9 down;",
    "}",
    "map $host $reposite_app_slug {",
    '  default "";',
    ...hostsOf(routes.apps, routes).map(([host, app]) => `  ${quoted(host)} ${app.slug};`),
    "}",
    "map $host $reposite_app_retry {",
    `  default ${pages.retryAfter(undefined)};`,
    ...hostsOf(appsDown(routes), routes).map(([host, app]) => `  ${quoted(host)} ${pages.retryAfter(app.status)};`),
    "}",
  ];
}

/** The hosts of apps that are not running, sent to the down upstream (`$reposite_upstream`). */
export const appDownHosts = (routes: EdgeRoutes): string[] => hostsOf(appsDown(routes), routes).map(([host]) => host);

/** A server's locations that answer the pages, by the upstream nginx met (`error_page 502 503 = @reposite_app_down` in `/app`). */
export function appPagesLocations(pages: NginxAppPagesSettings, proto: string): string[] {
  const headers = Object.entries(pages.headers).filter(([name]) => name.toLowerCase() !== "content-type");
  const contentType = Object.entries(pages.headers).find(([name]) => name.toLowerCase() === "content-type")?.[1] ?? "text/html";
  const page = (code: number, retry: string) => [
    `    location = /.reposite-app-${code} {`,
    "      internal;",
    `      error_page ${code} /.reposite-app-page-${code};`,
    `      return ${code};`,
    "    }",
    `    location = /.reposite-app-page-${code} {`,
    "      internal;",
    `      root ${pages.dir}/$reposite_app_slug;`,
    "      types { }",
    `      default_type "${contentType}";`,
    "      etag off;",
    ...headers.map(([name, value]) => `      add_header ${name} ${quoted(value)} always;`),
    `      add_header Retry-After ${retry} always;`,
    "      add_header X-Reposite-Edge nginx always;",
    `      try_files /${code}.html @reposite_app_page_missing;`,
    "    }",
  ];
  return [
    // nginx's own 502/503 only (the app's own answers pass as they are): the upstream says which page.
    "    location @reposite_app_down {",
    "      rewrite ^ /.reposite-app-$reposite_app_state last;",
    "    }",
    ...page(503, "$reposite_app_retry"),
    ...page(502, String(pages.retryAfterNoAnswer)),
    // A page not written yet: Reposite answers the request as the visitor sent it.
    "    location @reposite_app_page_missing {",
    ...forwarding("      ", proto),
    '      proxy_set_header X-Forwarded-Prefix "";',
    "      proxy_pass http://reposite_node$request_uri;",
    "    }",
  ];
}
