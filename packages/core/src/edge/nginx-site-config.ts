import { dirname, join } from "node:path";
import { DOMAIN_PROOF_PATH } from "../domains/domain-settings.js";
import { isCompressible } from "../sites/cached-file.js";
import { EDGE_FILE_TYPES, EDGE_NOT_FOUND_FILE, EDGE_ROOT_PAGE_FILE } from "./edge-site-files.js";
import type { EdgeRoutes } from "./edge-routes.js";

/**
 * The part of the edge's nginx configuration that serves published sites from files (see
 * `edge-site-files.ts` for the layout). The headers are the Node runtime's
 * (`packages/server/src/site-runtime/serve-published.ts`): keep the two in step.
 */
export interface NginxSiteSettings {
  /** `<dataDir>/edge/sites`: one folder per slug, its `current` link naming the version served. */
  dir: string;
  /** Path of Debian's `ngx_http_brotli_static_module.so` when installed: then `.br` files are served too. */
  brotliModule: string | null;
  /** File nginx logs page views to, read by Reposite (`visit-log.ts`), or null to log nothing. */
  visitsLog: string | null;
}

const HTML_CACHE_CONTROL = "public, max-age=0, must-revalidate";
const IMAGE_CACHE_CONTROL = "public, max-age=86400";
const CONTENT_ADDRESSED_CACHE_CONTROL = "public, max-age=31536000, immutable";
const HTML_CSP = "frame-ancestors 'self'; base-uri 'self'; object-src 'none'";
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
/** Where a site's 404 page is reached inside nginx (internal only). */
const NOT_FOUND_URI = "/.reposite-404";

/**
 * Paths Reposite answers on a site host even for GET: sign-in, members' account, the forum, and a
 * custom domain's proof (what `GET …/domain` fetches to say the domain is live). Each has its own
 * location, so a page read costs no regular expression.
 */
const DYNAMIC_LOCATIONS = ["= /auth", "^~ /auth/", "= /community", "^~ /community/", `= ${DOMAIN_PROOF_PATH}`];

/** Headers of a page (`index.html`, `pages/*.html`): always HTML with .br/.gz beside it, so fixed, not looked up per request. */
const PAGE_HEADERS = [
  `add_header Cache-Control "${HTML_CACHE_CONTROL}";`,
  `add_header Content-Security-Policy "${HTML_CSP}";`,
  'add_header Vary "Accept-Encoding";',
];

export const siteModules = (sites: NginxSiteSettings | undefined): string[] => (sites?.brotliModule ? [`load_module ${sites.brotliModule};`] : []);

/** `http`-level maps: the headers of a file served, and the visits log's line. */
export function siteHttp(sites: NginxSiteSettings): string[] {
  const texts = Object.keys(EDGE_FILE_TYPES).filter((ext) => isCompressible(EDGE_FILE_TYPES[ext]!));
  const images = Object.keys(EDGE_FILE_TYPES).filter((ext) => EDGE_FILE_TYPES[ext]!.startsWith("image/") && ext !== "svg");
  // A file's $uri, once try_files found it, is `/<host>/current/<folder>/…` (see fileServing).
  const inFolder = (folders: string) => `^/[^/]+/current/${folders}/`;
  return [
    // Headers of a file other than a page, by its folder and extension.
    "  map $uri $reposite_cache_control {",
    `    default "${HTML_CACHE_CONTROL}";`,
    `    "~${inFolder("(files|plain|typed)/_images")}" "${CONTENT_ADDRESSED_CACHE_CONTROL}";`,
    `    "~\\.(${images.join("|")})$" "${IMAGE_CACHE_CONTROL}";`,
    "  }",
    // Text may be sent as .br or .gz: it varies by Accept-Encoding, whichever body this client gets.
    "  map $uri $reposite_vary {",
    '    default "";',
    `    "~${inFolder("plain")}" "";`,
    `    "~\\.(${texts.join("|")})$" "Accept-Encoding";`,
    "  }",
    "  map $uri $reposite_csp {",
    '    default "";',
    `    "~\\.html$" "${HTML_CSP}";`,
    `    "~\\.svg$" "${SVG_CSP}";`,
    "  }",
    // Every file answer is logged with its status: Reposite counts 200s and 304s (a revisit) and leaves
    // out bots and non-pages. (Deciding in nginx, `if=` on a map of $status, cost 5% of a page's work.)
    // No escaping: nginx refuses spaces and control characters in the request line and line breaks in headers.
    "  log_format reposite_visits escape=none '$status $host $request_method $request_uri $http_user_agent';",
  ];
}

/**
 * Where the edge links each site host to its site's folder: `<hosts>/<host>` -> `../sites/<slug>`
 * (a custom domain beside its slug's host). nginx finds a site's files by `$host`, which it has
 * already: looking the slug up in a map of hosts cost 4% of a page's work.
 */
export const siteHostsDir = (sitesDir: string) => join(dirname(sitesDir), "hosts");

/**
 * What serves a site's files: the root is fixed and the host is in try_files' names, so nginx
 * builds a path from variables once per name tried rather than for each file it opens.
 */
function fileServing(sites: NginxSiteSettings, indent: string): string[] {
  return [
    `root ${siteHostsDir(sites.dir)};`,
    "types {",
    ...Object.entries(EDGE_FILE_TYPES).map(([ext, type]) => `  "${type}" ${ext};`),
    "}",
    "default_type application/octet-stream;",
    // The .gz/.br next to a file go to clients that take them; Vary is set by type.
    "gzip_static on;",
    "gzip_vary off;",
    ...(sites.brotliModule ? ["brotli_static on;"] : []),
  ].map((line) => indent + line);
}

/**
 * A name try_files tests in the site's current version. A host without a link (a members-only
 * app's host whose site has no files: it has a server of its own) finds nothing, so Reposite answers.
 */
const current = (path: string) => `/$host/current${path}`;

/**
 * The server's locations for site files: `/` (its own: nginx sees no extension in a dot file),
 * pages, the rest, the 404 page, and the paths Reposite answers for reads.
 */
export function siteLocations(sites: NginxSiteSettings): string[] {
  const typed = Object.keys(EDGE_FILE_TYPES).map((ext) => current(`/typed$uri.${ext}`));
  return [
    // Every site has a home page: a host without files goes to Reposite.
    ...filesLocation(sites, "= /", PAGE_HEADERS, `${current(`/${EDGE_ROOT_PAGE_FILE}`)} @reposite_node`),
    ...filesLocation(sites, "/", PAGE_HEADERS, `${current("/pages$uri.html")} ${SITE_FILES}`),
    ...filesLocation(
      sites,
      SITE_FILES,
      ["add_header Cache-Control $reposite_cache_control;", "add_header Content-Security-Policy $reposite_csp;", "add_header Vary $reposite_vary;"],
      `${current("/files$uri")} ${current("/plain$uri")} ${typed.join(" ")} =404`,
    ),
    // The site's 404 page in its design, without validators, asked for again each time; a site without one: Reposite's.
    `    location = ${NOT_FOUND_URI} {`,
    "      internal;",
    ...fileServing(sites, "      "),
    "      etag off;",
    // `always`: nginx adds headers to a 404 only when told.
    '      add_header Cache-Control "no-cache" always;',
    "      add_header X-Content-Type-Options nosniff always;",
    `      add_header Content-Security-Policy "${HTML_CSP}" always;`,
    '      add_header Vary "Accept-Encoding" always;',
    "      add_header X-Reposite-Edge nginx always;",
    "      access_log off;",
    `      try_files ${current(`/${EDGE_NOT_FOUND_FILE}`)} @reposite_node;`,
    "    }",
    ...DYNAMIC_LOCATIONS.flatMap((match) => [`    location ${match} {`, ...toReposite("      "), "    }"]),
  ];
}

/**
 * Locations after the app's: a read of a path ending in "/" goes to Reposite (which answers its
 * 301). Regular expressions are tried in order, and `/app/` must reach the app.
 */
export const siteLocationsAfterApp = (): string[] => ["    location ~ ./$ {", ...toReposite("      "), "    }"];

/** The files a page's path did not name: tried in a location of their own, whose headers depend on the file. */
const SITE_FILES = "@reposite_site_files";

const toReposite = (indent: string) => [`${indent}error_page 418 = @reposite_node;`, `${indent}return 418;`];

function filesLocation(sites: NginxSiteSettings, match: string, headers: string[], files: string): string[] {
  // Buffered: one write per 64 KB of lines or per second, not one per request.
  const log = sites.visitsLog ? `access_log ${sites.visitsLog} reposite_visits buffer=64k flush=1s;` : "access_log off;";
  return [
    `    location ${match} {`,
    // Other methods than GET and HEAD go to Reposite (the 405, or a form). A bit test of the method, where
    // an `if` on a map of it cost 9% of a page's work. (The files' own location is reached only from `/`.)
    ...(match === SITE_FILES ? [] : ["      limit_except GET {", "        deny all;", "      }", "      error_page 403 = @reposite_node;"]),
    ...fileServing(sites, "      "),
    ...headers.map((line) => `      ${line}`),
    "      add_header X-Content-Type-Options nosniff;",
    // Tells a file nginx served from one Reposite answered (tests, operators).
    "      add_header X-Reposite-Edge nginx;",
    `      ${log}`,
    `      error_page 404 ${NOT_FOUND_URI};`,
    `      try_files ${files};`,
    "    }",
  ];
}

/** The hosts of the sites whose files are on disk (`<slug>.<sitesDomain>` and verified custom domains), each with its slug. */
export function siteHosts(routes: EdgeRoutes): [host: string, slug: string][] {
  const onDisk = new Set(routes.sites);
  const hosts = routes.sites.map((slug): [string, string] => [`${slug}.${routes.sitesDomain}`, slug]);
  for (const { domain, slug } of routes.domains) if (onDisk.has(slug)) hosts.push([domain, slug]);
  return hosts;
}
