/**
 * http-level: the `Upgrade` and `Connection` passed on. Only a WebSocket upgrade is: another one
 * (`h2c`, which `curl --http2` asks on every plain request) goes as a plain request, as the Node
 * runtime sends it; an app's WebSocket server would refuse it (`400 Invalid Upgrade header`).
 * An empty `Connection` keeps the connection to the upstream alive.
 */
export function forwardingHttp(): string[] {
  return [
    "  map $http_upgrade $reposite_upgrade {",
    '    default "";',
    '    "~*^websocket$" $http_upgrade;',
    "  }",
    "  map $reposite_upgrade $reposite_connection {",
    '    default "upgrade";',
    '    "" "";',
    "  }",
  ];
}

/**
 * The scheme the app is told (`X-Forwarded-Proto`): nginx's own, or behind a trusted proxy the
 * proxy's (`map $http_x_forwarded_proto $reposite_proto`). `$scheme` itself when nothing is trusted:
 * a map whose only value is a variable cost 2% of an /app/ request's work.
 */
export const forwardedProto = (trustProxy: boolean) => (trustProxy ? "$reposite_proto" : "$scheme");

/**
 * Headers every proxied request gets. Repeated in each location: a location that sets any
 * `proxy_set_header` inherits none from the server block.
 */
export function forwarding(indent: string, proto: string): string[] {
  return [
    "proxy_set_header Host $http_host;",
    "proxy_set_header Upgrade $reposite_upgrade;",
    "proxy_set_header Connection $reposite_connection;",
    "proxy_set_header X-Forwarded-For $remote_addr;",
    `proxy_set_header X-Forwarded-Proto ${proto};`,
    "proxy_set_header X-Forwarded-Host $http_host;",
    // The visitor's own forwarding claims never pass.
    'proxy_set_header Forwarded "";',
    'proxy_set_header X-Real-IP "";',
    'proxy_set_header X-Forwarded-Port "";',
    'proxy_set_header X-Forwarded-Ssl "";',
    'proxy_set_header X-Forwarded-Server "";',
    // Hop-by-hop: meant for this proxy, never for the app (nginx itself drops TE and Keep-Alive).
    'proxy_set_header Proxy-Authorization "";',
    'proxy_set_header Proxy-Connection "";',
    // and never for the visitor (nginx itself drops Connection, Keep-Alive and Transfer-Encoding).
    "proxy_hide_header Proxy-Authenticate;",
    "proxy_hide_header Trailer;",
  ].map((line) => indent + line);
}

/**
 * What nginx does to an app's `Set-Cookie`. The Node runtime drops a cookie under a Reposite name;
 * stock nginx cannot drop one `Set-Cookie` line by its name (only all of them, `proxy_hide_header`),
 * so such a cookie is made one browsers refuse to store:
 * - `__Host-reposite…`/`__Secure-reposite…` lose `Secure`: browsers refuse these prefixes without it
 *   (this is the member cookie's name on https sites);
 * - `reposite_…` gets `Secure`: browsers refuse a Secure cookie from an http page (on https sites
 *   Reposite reads only the `__Host-` names; http://localhost is the one http origin that keeps it).
 * A cookie's `Domain` is held to the site's host, never a parent domain. (`proxy_cookie_flags` takes
 * `~` only: `(?i)` compares without case, as browsers do for the prefixes.)
 */
export function appCookies(indent: string): string[] {
  return [
    "proxy_cookie_domain ~^.*$ $host;",
    "proxy_cookie_flags ~(?i)^__(host|secure)-reposite nosecure;",
    "proxy_cookie_flags ~(?i)^reposite_ secure;",
  ].map((line) => indent + line);
}

/**
 * `/app` and everything under it, as two prefix locations with the same body: nginx tests no
 * regular expression for them (`~ ^/app(/|$)` cost 1.5% of an /app/ request's work), and `^~`
 * keeps the regular-expression locations after them from being tried.
 */
export const appLocations = (body: readonly string[]): string[] => ["= /app", "^~ /app/"].flatMap((match) => [`    location ${match} {`, ...body, "    }"]);
