/**
 * Headers every proxied request gets. Repeated in each location: a location that sets any
 * `proxy_set_header` inherits none from the server block.
 */
export function forwarding(indent: string): string[] {
  return [
    "proxy_set_header Host $http_host;",
    "proxy_set_header Upgrade $http_upgrade;",
    "proxy_set_header Connection $reposite_connection;",
    "proxy_set_header X-Forwarded-For $remote_addr;",
    "proxy_set_header X-Forwarded-Proto $reposite_proto;",
    "proxy_set_header X-Forwarded-Host $http_host;",
    // The visitor's own forwarding claims never pass.
    'proxy_set_header Forwarded "";',
    'proxy_set_header X-Real-IP "";',
    'proxy_set_header X-Forwarded-Port "";',
    'proxy_set_header X-Forwarded-Ssl "";',
    'proxy_set_header X-Forwarded-Server "";',
  ].map((line) => indent + line);
}
