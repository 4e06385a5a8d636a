import { forwarding } from "./nginx-forwarding.js";

/** nginx terminates TLS with the certificates built-in ACME orders (written per name by the server). */
export interface NginxTlsSettings {
  /** Where nginx listens for HTTPS (`REPOSITE_HTTPS_PORT`, on its own `hostname`). */
  listen: { hostname: string; port: number };
  /** Folder of `<name>.pem` files (the key, then the chain), one per name with a certificate. */
  certsDir: string;
}

/** The `listen` address of a host and port (IPv6 in brackets). */
export const listenAddress = ({ hostname, port }: { hostname: string; port: number }) => (hostname.includes(":") ? `[${hostname}]:${port}` : `${hostname}:${port}`);

/**
 * `http` lines: the certificate is picked by the handshake's SNI name (`$ssl_server_name`, nginx
 * ≥ 1.15.9), read from disk at each handshake, so a new or renewed certificate is served without a
 * reload. nginx refuses an SNI name with `/` or `..` before it gets here. A name without a file (not
 * ordered yet, not verified, or no SNI at all) fails the handshake: no other name's certificate is shown.
 */
export function tlsHttp(tls: NginxTlsSettings): string[] {
  return [
    // One file for both: a renewal can never pair a new key with the old certificate.
    `  ssl_certificate ${tls.certsDir}/$ssl_server_name.pem;`,
    `  ssl_certificate_key ${tls.certsDir}/$ssl_server_name.pem;`,
    "  ssl_protocols TLSv1.2 TLSv1.3;",
    "  ssl_session_cache shared:reposite_tls:10m;",
  ];
}

/** A server's extra `listen` for HTTPS (the default server takes names no other server has). */
export const tlsListen = (tls: NginxTlsSettings, isDefault: boolean) => `    listen ${listenAddress(tls.listen)} ssl${isDefault ? " default_server" : ""};`;

/**
 * The CA's HTTP-01 requests go to Reposite, which answers them from memory: before a site's files
 * or an app, whatever the host.
 */
export function acmeChallengeLocation(nodeUpstream: string, proto: string): string[] {
  return ["    location ^~ /.well-known/acme-challenge/ {", ...forwarding("      ", proto), '      proxy_set_header X-Forwarded-Prefix "";', `      proxy_pass http://${nodeUpstream};`, "    }"];
}
