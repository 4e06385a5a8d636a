import type { AppTarget } from "../hosting/app-routes.js";
import type { NodeSocket } from "./nginx-config.js";
import { appCookies, appLocations, forwarding } from "./nginx-forwarding.js";

/**
 * Members-only apps (`auth_redirect_to_app`) served by nginx: each `/app/` request first asks
 * Reposite's member gate (`auth_request`), which decides from memory and answers who the member is;
 * nginx copies that onto the request (`auth_request_set`) and proxies it to the app. A visitor the
 * gate does not let in (`401`) is handed to Reposite as a whole, which answers as it does without
 * the edge (the redirect to sign in, the `401` page). Reposite's cookies are taken out of the
 * `Cookie` header before the app sees it.
 */
export interface NginxMemberGateSettings {
  /**
   * Reposite's member-gate listener, on loopback or on a Unix socket (nginx in a container reaches
   * only a bind-mounted socket): only nginx's internal location reaches it.
   */
  target: AppTarget | NodeSocket;
  /** How long nginx keeps a decision (seconds): a sign-out or a removal holds within this. */
  cacheSeconds: number;
}

export const MEMBER_GATE_UPSTREAM = "reposite_member_gate";
/** The upstream name the gated map falls back to: the `upstream` of Reposite's own process. */
const NODE = "reposite_node";
const GATE_URI = "/.reposite-member-gate";
/** A cookie name that is Reposite's (as `isRepositeCookie` in the server's app proxy), at a pair's start. */
const REPOSITE_COOKIE = "(?:^|;)\\s*(?:reposite_|__host-reposite|__secure-reposite)";
/** Reposite cookies taken out one by one; a visitor who sends more is handed to Reposite. */
const STRIP_PASSES = 4;

/** http-level: the Cookie header without Reposite's cookies, a mark when some are left, and the decision cache. */
export function memberGateHttp(gate: NginxMemberGateSettings, dir: string): string[] {
  const passes: string[] = [];
  for (let pass = 1; pass <= STRIP_PASSES; pass++) {
    const from = pass === 1 ? "$http_cookie" : `$reposite_cookie_${pass - 1}`;
    passes.push(
      `  map ${from} $reposite_cookie_${pass} {`,
      `    default ${from};`,
      `    "~*^(?<reposite_c${pass}a>.*?)${REPOSITE_COOKIE}[^;]*(?<reposite_c${pass}b>.*)$" "$reposite_c${pass}a$reposite_c${pass}b";`,
      "  }",
    );
  }
  const last = `$reposite_cookie_${STRIP_PASSES}`;
  return [
    ...passes,
    // Without a leading `; ` left by a first cookie taken out.
    `  map ${last} $reposite_app_cookie {`,
    `    default ${last};`,
    '    "~^[;\\s]*(?<reposite_cookie_rest>.*)$" $reposite_cookie_rest;',
    "  }",
    `  map ${last} $reposite_cookie_left {`,
    '    default "";',
    `    "~*${REPOSITE_COOKIE}" "reposite-cookie:";`,
    "  }",
    // Decisions kept a few seconds (in memory-sized files under the edge's folder, gone when inactive).
    `  proxy_cache_path ${dir}/tmp/member-gate levels=1:2 keys_zone=reposite_member_gate:1m max_size=32m inactive=${Math.max(gate.cacheSeconds * 2, 10)}s use_temp_path=off;`,
  ];
}

/** routes.conf: the gate's upstream, and the map of gated hosts (no Reposite cookie left) to their apps. */
export function memberGateRoutes(gate: NginxMemberGateSettings, hosts: readonly [string, string][]): string[] {
  const { target } = gate;
  const server = "socket" in target ? `unix:${target.socket}` : `${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.port}`;
  return [
    `upstream ${MEMBER_GATE_UPSTREAM} {`,
    `  server ${server};`,
    "  keepalive 16;",
    "}",
    "map $reposite_cookie_left$host $reposite_gated_upstream {",
    `  default ${NODE};`,
    ...hosts.map(([name, upstream]) => `  "${name.replace(/["\\]/g, "")}" ${upstream};`),
    "}",
    "map $reposite_gated_upstream $reposite_gated_path {",
    "  default $reposite_app_uri;",
    `  ${NODE} $request_uri;`,
    "}",
    // The gated app's Cookie without Reposite's; Reposite (a fallback) gets the visitor's own.
    "map $reposite_gated_upstream $reposite_gated_cookie {",
    "  default $reposite_app_cookie;",
    `  ${NODE} $http_cookie;`,
    "}",
  ];
}

/** The gated server's `/app` locations and the internal location that asks the gate. */
export function memberGateLocations(gate: NginxMemberGateSettings, proto: string, appExtra: readonly string[] = []): string[] {
  const seconds = Math.max(1, Math.round(gate.cacheSeconds));
  return [
    ...appLocations([
      `      auth_request ${GATE_URI};`,
      "      auth_request_set $reposite_member_id $upstream_http_x_reposite_member_id;",
      "      auth_request_set $reposite_member_email $upstream_http_x_reposite_member_email;",
      // Not let in: Reposite answers the whole request (redirect to sign in, or its 401 page).
      "      error_page 401 = @reposite_node;",
      ...appExtra,
      ...forwarding("      ", proto),
      "      proxy_set_header X-Forwarded-Prefix /app;",
      // Set from the gate's answer only: the visitor's own copies never pass.
      "      proxy_set_header X-Reposite-Member-Id $reposite_member_id;",
      "      proxy_set_header X-Reposite-Member-Email $reposite_member_email;",
      "      proxy_set_header Cookie $reposite_gated_cookie;",
      ...appCookies("      "),
      "      add_header X-Reposite-Edge nginx always;",
      "      proxy_pass http://$reposite_gated_upstream$reposite_gated_path;",
    ]),
    `    location = ${GATE_URI} {`,
    "      internal;",
    "      proxy_pass_request_body off;",
    '      proxy_set_header Content-Length "";',
    '      proxy_set_header Connection "";',
    "      proxy_set_header Host $http_host;",
    "      proxy_set_header Cookie $http_cookie;",
    // Keyed by everything the decision reads: the site's host and the visitor's cookies.
    "      proxy_buffering on;",
    "      proxy_cache reposite_member_gate;",
    '      proxy_cache_key "$host|$http_cookie";',
    `      proxy_cache_valid 200 401 ${seconds}s;`,
    // No cache lock: its waiters look again only every 500 ms, which put 0.44 s on a member's p99
    // each time a decision expired. The gate answers from memory, so concurrent misses are cheap.
    "      proxy_cache_lock off;",
    "      proxy_ignore_headers Cache-Control Expires Set-Cookie Vary X-Accel-Expires;",
    `      proxy_pass http://${MEMBER_GATE_UPSTREAM}/member-gate;`,
    "    }",
  ];
}
