import type { AppTarget } from "../hosting/app-routes.js";
import type { EdgeApp, EdgeRoutes } from "./edge-routes.js";
import { appDownHosts, appPagesHttp, appPagesLocations, appPagesRoutes, APP_DOWN_UPSTREAM, type NginxAppPagesSettings } from "./nginx-app-pages.js";
import { appCookies, appLocations, forwardedProto, forwarding, forwardingHttp } from "./nginx-forwarding.js";
import { memberGateHttp, memberGateLocations, memberGateRoutes, type NginxMemberGateSettings } from "./nginx-member-gate.js";
import { siteHosts, siteHttp, siteLocations, siteLocationsAfterApp, siteModules, type NginxSiteSettings } from "./nginx-site-config.js";
import { acmeChallengeLocation, tlsHttp, tlsListen, type NginxTlsSettings } from "./nginx-tls.js";

/** What the generated nginx configuration needs besides the routes. */
export interface NginxEdgeSettings {
  /** Where nginx listens for visitors (the server's `HOST` and `PORT`). */
  listen: { hostname: string; port: number };
  /**
   * Where Reposite's own Node process answers: an internal loopback address, or a Unix socket
   * (nginx in a container reaches Node through the bind-mounted socket, not the host's loopback).
   */
  node: AppTarget | NodeSocket;
  /** More Reposite processes in the same upstream (`reposite edge`: one per control plane); nginx spreads requests and skips one that fails. */
  moreNodes?: readonly AppTarget[];
  /** Folder nginx runs in: its pid file, error log and temporary files live here. */
  dir: string;
  /** Believe the visitor's `X-Forwarded-For`/`-Proto` (REPOSITE_TRUST_PROXY: another proxy sits in front). */
  trustProxy: boolean;
  /**
   * How long nginx may take to stop (seconds); the supervisor kills it after that. Not the bound of
   * old workers after a reload: see `reloadDrainSeconds`.
   */
  shutdownSeconds: number;
  /**
   * How long old workers may finish their requests after a reload (seconds; default
   * `RELOAD_DRAIN_SECONDS`): streams through them (job streams, SSE, WebSockets to Reposite) are
   * cut after this, and every route change reloads.
   */
  reloadDrainSeconds?: number;
  /** Worker processes; default `auto` (one per core). */
  workers?: number | "auto";
  /** The user nginx's workers run as (a master started as root only): they must read `sites.dir`. */
  user?: string;
  /** Serve published sites from files (`nginx-site-config.ts`); without it every page goes to Reposite. */
  sites?: NginxSiteSettings;
  /** Serve members-only apps through Reposite's member gate (`nginx-member-gate.ts`); without it they go to Reposite. */
  memberGate?: NginxMemberGateSettings;
  /** Answer the 503/502 pages of apps that are not up from files (`nginx-app-pages.ts`); without it Reposite answers them. */
  appPages?: NginxAppPagesSettings;
  /** Also listen for HTTPS with built-in ACME's certificates (`nginx-tls.ts`); without it nginx speaks HTTP only. */
  tls?: NginxTlsSettings;
}

/**
 * Default bound of old workers after a reload (seconds), as ingress-nginx's 240 s: long enough for a
 * client following a build's job stream or a dashboard's events to finish or reconnect (the SDK,
 * CLI and dashboard resume job streams with `from`).
 */
export const RELOAD_DRAIN_SECONDS = 240;

/** The upstream name of Reposite's own process: the map's default, so whatever no app takes goes there. */
export const NODE_UPSTREAM = "reposite_node";

/** How many lengths app upstream names spread over (see `appUpstream`). */
const UPSTREAM_NAME_LENGTHS = 24;

/**
 * An app's upstream name: its site id's random part, then a filler of 0–23 underscores drawn from
 * the id. nginx finds the upstream a variable names (`proxy_pass http://$reposite_upstream…`) by
 * scanning every upstream block, comparing lengths and then names from the first character; with
 * one shared prefix and one length (`reposite_app_<site id>`), each request compared every app's
 * name in full. Spread lengths leave about 1/24 of the names to compare, and those differ at once;
 * short names keep the one full comparison and nginx's per-request parsing of the name cheap
 * (callgrind, 1,000 apps routed: see the issue notes). The scan itself stays: nginx has no lookup
 * by name here.
 */
export function appUpstream(siteId: string): string {
  const id = siteId.replace(/^[a-z]+_/, "").replace(/[^a-zA-Z0-9_]/g, "_");
  let hash = 0x811c9dc5; // FNV-1a: the same filler for the same id in every configuration
  for (let i = 0; i < siteId.length; i++) hash = Math.imul(hash ^ siteId.charCodeAt(i), 0x01000193) >>> 0;
  return `${id}${"_".repeat(hash % UPSTREAM_NAME_LENGTHS)}`;
}

/** Reposite's Node process on a Unix socket. */
export interface NodeSocket {
  socket: string;
}

/** nginx's `server` address of a target (IPv6 in brackets, a socket as `unix:`). */
const address = (target: AppTarget | NodeSocket) => ("socket" in target ? `unix:${target.socket}` : `${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.port}`);

/**
 * Docker's DNS inside a container on a user-defined network. It answers a Swarm service's name
 * with its healthy tasks only; `valid=1s` makes nginx ask again every second, so a task that
 * became healthy gets requests within a second, and one shutting down stops getting them.
 */
export const SWARM_RESOLVER = "resolver 127.0.0.11 valid=1s ipv6=off;";

/** A target reached on a network of its own (a Swarm app): resolved by name per request, not an `upstream`. */
const onNetwork = (target: AppTarget | null) => Boolean(target?.network);

/** A map key or value quoted for nginx. */
const quoted = (text: string) => `"${text.replace(/["\\]/g, "")}"`;

/**
 * The nginx configuration of the edge, as files by name (`nginx.conf` includes `routes.conf`).
 * Pure: the same table and settings always give the same text, so a supervisor can tell whether
 * anything changed before it reloads.
 *
 * Routing is one `map $host`: a running app that is not members-only gets its own `upstream`
 * (keepalive), reached for `/app` with the prefix stripped; every other host, every gated or
 * stopped app, and every visitor carrying a Reposite cookie go to Reposite's process, which
 * answers the sign-in, 503 and 404 pages in the site's design and strips its own cookies. No `if`
 * in the proxied location: on this machine that halved nginx's throughput.
 */
export function nginxEdgeConfig(routes: EdgeRoutes, settings: NginxEdgeSettings): Record<string, string> {
  return { "nginx.conf": mainConfig(settings, routes), "routes.conf": routesConfig(routes, settings) };
}

/**
 * nginx's hash tables of host names (the maps by `$host`, the servers' names) sized for the routes.
 * Each bucket must hold the longest name: nginx's 64 bytes hold about 40 characters, and a longer
 * slug host or custom domain would fail every configuration from then on. Enough buckets for one
 * name each, as with few names (bigger buckets mean longer scans per request).
 */
function hostHashes(routes: EdgeRoutes): string[] {
  const names = [...routes.apps.map((app) => `${app.slug}.${routes.sitesDomain}`), ...routes.domains.map(({ domain }) => domain), ...routes.sites.map((slug) => `${slug}.${routes.sitesDomain}`)];
  const longest = Math.max(0, ...names.map((name) => name.length));
  // nginx's need: a pointer, the name plus 2 aligned to 8, and the end marker; aligned to 64-byte lines.
  const bucket = Math.max(64, Math.ceil((16 + Math.ceil((longest + 2) / 8) * 8) / 64) * 64);
  const buckets = Math.max(2048, 2 * names.length);
  return bucket === 64 && buckets === 2048
    ? []
    : [`  map_hash_bucket_size ${bucket};`, `  map_hash_max_size ${buckets};`, `  server_names_hash_bucket_size ${bucket};`, `  server_names_hash_max_size ${buckets};`];
}

function mainConfig(settings: NginxEdgeSettings, routes: EdgeRoutes): string {
  const { dir } = settings;
  const listen = settings.listen.hostname.includes(":") ? `[${settings.listen.hostname}]:${settings.listen.port}` : `${settings.listen.hostname}:${settings.listen.port}`;
  // The client's address and scheme: nginx's own view, or (behind a trusted proxy) the first
  // X-Forwarded-For entry, as Reposite's Node runtime reads it.
  const trusted = settings.trustProxy
    ? ["  set_real_ip_from 0.0.0.0/0;", "  set_real_ip_from ::/0;", "  real_ip_header X-Forwarded-For;", "  real_ip_recursive on;"]
    : [];
  const proto = settings.trustProxy
    ? ["  map $http_x_forwarded_proto $reposite_proto {", "    default $scheme;", '    "~*^\\s*https\\b" https;', '    "~*^\\s*http\\b" http;', "  }"]
    : [];
  const sites = settings.sites;
  return [
    "# Written by Reposite (REPOSITE_EDGE=nginx); overwritten on every change of routes.",
    "daemon off;",
    "master_process on;",
    ...(settings.user ? [`user ${settings.user};`] : []),
    ...siteModules(settings.sites),
    `worker_processes ${settings.workers ?? "auto"};`,
    // The maps that pick a site and its headers are regular expressions run on every request: compiled once.
    "pcre_jit on;",
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    // Old workers' bound after a reload; at a stop the supervisor kills nginx after `shutdownSeconds` anyway.
    `worker_shutdown_timeout ${Math.max(1, Math.round(settings.reloadDrainSeconds ?? Math.max(RELOAD_DRAIN_SECONDS, settings.shutdownSeconds)))}s;`,
    "events {",
    "  worker_connections 4096;",
    "}",
    "http {",
    "  access_log off;",
    "  server_tokens off;",
    `  client_body_temp_path ${dir}/tmp/body;`,
    `  proxy_temp_path ${dir}/tmp/proxy;`,
    `  fastcgi_temp_path ${dir}/tmp/fastcgi;`,
    `  uwsgi_temp_path ${dir}/tmp/uwsgi;`,
    `  scgi_temp_path ${dir}/tmp/scgi;`,
    // Uploads and streams pass as they come; Reposite and the apps set their own limits.
    "  client_max_body_size 0;",
    "  proxy_buffering off;",
    "  proxy_request_buffering off;",
    "  proxy_http_version 1.1;",
    "  proxy_read_timeout 1h;",
    "  proxy_send_timeout 1h;",
    // Before the first map: nginx takes the sizes when it reads a map.
    ...hostHashes(routes),
    ...trusted,
    ...proto,
    // Keep-alive to upstreams needs an empty Connection; a WebSocket needs `upgrade`.
    ...forwardingHttp(),
    // A visitor carrying a Reposite cookie goes to Reposite, which takes its cookies out before the app sees the request.
    "  map $http_cookie $reposite_cookie_mark {",
    '    default "";',
    '    "~*(^|[;,]\\s*)(reposite_|__host-reposite|__secure-reposite)" "reposite-cookie:";',
    "  }",
    // The path the app sees: `/app/x?y` -> `/x?y`, `/app?y` -> `/?y`, as the visitor wrote it.
    "  map $request_uri $reposite_app_uri {",
    '    default "/";',
    '    "~^/app(?<reposite_rest>/.*)$" $reposite_rest;',
    '    "~^/app(?<reposite_query>\\?.*)$" /$reposite_query;',
    "  }",
    ...(sites ? siteHttp(sites) : []),
    // An app gets its path without `/app`; Reposite (gated, stopped, cookies) gets the request as sent.
    "  map $reposite_upstream $reposite_app_path {",
    "    default $reposite_app_uri;",
    `    ${NODE_UPSTREAM} $request_uri;`,
    "  }",
    ...(settings.memberGate ? memberGateHttp(settings.memberGate, dir) : []),
    ...(settings.appPages ? appPagesHttp() : []),
    ...(settings.tls ? tlsHttp(settings.tls) : []),
    // Relative to this file's folder: a candidate is tested beside its own routes before it replaces
    // the running pair. After the log formats and maps its members-only server uses.
    "  include routes.conf;",
    ...serverBlock(settings, listen, { kind: "default" }),
    "}",
    "",
  ].join("\n");
}

/**
 * Which `server`: the default one, for hosts no other names (a site without files, the API and
 * account pages: all to Reposite but `/app`); the one of published sites' hosts, which serves their
 * files; or the one of members-only apps' hosts, which serves site files too and whose `/app` asks
 * the member gate first. Picking the server by name costs nginx nothing more per request.
 */
type ServerKind = { kind: "default" } | { kind: "sites" | "gated"; names: readonly string[] };

function serverBlock(settings: NginxEdgeSettings, listen: string, server: ServerKind): string[] {
  const sites = server.kind === "default" ? undefined : settings.sites;
  const names = server.kind === "default" ? null : server.names;
  // nginx's own 502/503 (the app did not answer; no live server: it is not running) get the site's page.
  // The app's own answers pass as they are (no proxy_intercept_errors).
  // Recursive: the page's own location answers with error_page too, which nginx follows only so.
  const down = settings.appPages ? ["      recursive_error_pages on;", "      error_page 502 503 = @reposite_app_down;"] : [];
  const proto = forwardedProto(settings.trustProxy);
  const app =
    server.kind === "gated"
      ? memberGateLocations(settings.memberGate!, proto, down)
      : appLocations([
          ...forwarding("      ", proto),
          "      proxy_set_header X-Forwarded-Prefix /app;",
          ...down,
          // Only Reposite sets who the member is; apps reached here are not members-only.
          '      proxy_set_header X-Reposite-Member-Id "";',
          '      proxy_set_header X-Reposite-Member-Email "";',
          ...appCookies("      "),
          "      add_header X-Reposite-Edge nginx always;",
          "      proxy_pass http://$reposite_upstream$reposite_app_path;",
        ]);
  return [
    "  server {",
    names ? `    listen ${listen};` : `    listen ${listen} default_server;`,
    ...(settings.tls ? [tlsListen(settings.tls, !names)] : []),
    names ? `    server_name ${names.map((name) => `"${name.replace(/["\\]/g, "")}"`).join(" ")};` : "    server_name _;",
    ...(settings.tls ? acmeChallengeLocation(NODE_UPSTREAM, proto) : []),
    ...(sites ? siteLocations(sites) : []),
    sites ? "    location @reposite_node {" : "    location / {",
    ...forwarding("      ", proto),
    '      proxy_set_header X-Forwarded-Prefix "";',
    `      proxy_pass http://${NODE_UPSTREAM};`,
    "    }",
    ...(server.kind === "gated" && !sites ? ["    location @reposite_node {", ...forwarding("      ", proto), '      proxy_set_header X-Forwarded-Prefix "";', `      proxy_pass http://${NODE_UPSTREAM};`, "    }"] : []),
    ...app,
    ...(sites ? siteLocationsAfterApp() : []),
    ...(settings.appPages ? appPagesLocations(settings.appPages, proto) : []),
    "  }",
  ];
}

/** Apps nginx sends to directly: running, and open (or members-only with the member gate on). */
export const nginxServedApps = (routes: EdgeRoutes, settings: Pick<NginxEdgeSettings, "memberGate">) =>
  routes.apps.filter((app) => app.target && (!app.gated || settings.memberGate));

/** Each app's hosts (`<slug>.<sitesDomain>` and its verified custom domains) with its upstream. */
function hostsOf(apps: readonly EdgeApp[], routes: EdgeRoutes): [string, string][] {
  // A networked app's value is its `name:port`, which proxy_pass resolves through the resolver per request.
  const upstreamOf = new Map(apps.map((app) => [app.slug, onNetwork(app.target) ? address(app.target!) : appUpstream(app.siteId)]));
  const hosts: [string, string][] = apps.map((app) => [`${app.slug}.${routes.sitesDomain}`, upstreamOf.get(app.slug)!]);
  for (const { domain, slug } of routes.domains) {
    const upstream = upstreamOf.get(slug);
    if (upstream) hosts.push([domain, upstream]);
  }
  return hosts;
}

function routesConfig(routes: EdgeRoutes, settings: NginxEdgeSettings): string {
  const served = nginxServedApps(routes, settings);
  const hosts = hostsOf(served.filter((app) => !app.gated), routes);
  if (settings.appPages) for (const host of appDownHosts(routes)) hosts.push([host, APP_DOWN_UPSTREAM]);
  const gatedHosts = settings.memberGate ? hostsOf(served.filter((app) => app.gated), routes) : [];
  const gated = new Set(gatedHosts.map(([host]) => host));
  const siteNames = settings.sites ? siteHosts(routes).map(([host]) => host).filter((host) => !gated.has(host)) : [];
  const listen = settings.listen.hostname.includes(":") ? `[${settings.listen.hostname}]:${settings.listen.port}` : `${settings.listen.hostname}:${settings.listen.port}`;
  const server = (kind: "sites" | "gated", names: string[]) => (names.length ? serverBlock(settings, listen, { kind, names }).map((line) => line.slice(2)) : []);
  return [
    `# Route table version ${routes.version}: ${served.length} app${served.length === 1 ? "" : "s"} served by nginx directly.`,
    "map $reposite_cookie_mark$host $reposite_upstream {",
    `  default ${NODE_UPSTREAM};`,
    ...hosts.map(([host, upstream]) => `  ${quoted(host)} ${upstream};`),
    "}",
    `upstream ${NODE_UPSTREAM} {`,
    `  server ${address(settings.node)};`,
    "  keepalive 64;",
    "}",
    ...swarmTargets(served.some((app) => onNetwork(app.target))),
    ...served.filter((app) => !onNetwork(app.target)).flatMap((app) => [
      `upstream ${appUpstream(app.siteId)} {`,
      `  server ${address(app.target!)};`,
      "  keepalive 32;",
      // Below node:http's 5 s: nginx lets go of an idle connection before the app closes it.
      "  keepalive_timeout 4s;",
      "}",
    ]),
    ...(settings.appPages ? appPagesRoutes(settings.appPages, routes) : []),
    ...(settings.memberGate ? memberGateRoutes(settings.memberGate, gatedHosts) : []),
    ...server("sites", siteNames),
    // Members-only apps' hosts get a server of their own, whose /app asks the gate first: no `if`.
    ...server("gated", [...gated]),
    "",
  ].join("\n");
}

/**
 * For apps on networks of their own (Swarm): Docker's resolver, and a request whose task is gone
 * (refused, or no route once its address left the network) tried on the next address the name
 * resolved to, soon: within one overlay a connect takes well under a millisecond.
 */
function swarmTargets(any: boolean): string[] {
  if (!any) return [];
  return [
    "# Apps on networks of their own (Swarm services): names resolved per request by Docker's DNS.",
    SWARM_RESOLVER,
    "resolver_timeout 2s;",
    "proxy_next_upstream error timeout;",
    "proxy_connect_timeout 2s;",
  ];
}
