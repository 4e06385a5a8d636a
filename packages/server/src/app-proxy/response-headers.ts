import { isRepositeCookie } from "./reposite-cookies.js";

/**
 * Response headers that describe the connection to the app, not the answer; node:http writes its
 * own `Connection`, `Keep-Alive` and framing (`Transfer-Encoding`) to the visitor.
 */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade"]);

/**
 * A `Set-Cookie` of the app as the visitor gets it, or null when it is dropped. Reposite's own
 * names (see `isRepositeCookie`) and nameless cookies are dropped; a `Domain` attribute is taken
 * out, so the cookie belongs to the site's host alone and never to a parent domain (which would
 * reach every other site and the Reposite service). Everything else stays as the app wrote it.
 */
export function appSetCookie(line: string): string | null {
  const parts = line.split(";");
  const pair = parts[0]!;
  const eq = pair.indexOf("=");
  const name = eq === -1 ? "" : pair.slice(0, eq).trim();
  if (!name || isRepositeCookie(name)) return null;
  let kept = pair;
  for (let i = 1; i < parts.length; i++) {
    const attribute = parts[i]!;
    const end = attribute.indexOf("=");
    if ((end === -1 ? attribute : attribute.slice(0, end)).trim().toLowerCase() === "domain") continue;
    kept += `;${attribute}`;
  }
  return kept;
}

/**
 * The app's response headers as the visitor gets them, from the raw name/value list: hop-by-hop
 * headers and those named in `Connection` dropped, `Set-Cookie` held to `appSetCookie`. Answers a
 * flat list for `writeHead`, names in the app's own case.
 */
export function appResponseHeaders(raw: readonly string[]): string[] {
  let named: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length !== 10 || raw[i]!.toLowerCase() !== "connection") continue;
    for (const token of raw[i + 1]!.split(",")) {
      const name = token.trim().toLowerCase();
      if (name && name !== "content-length") (named ??= new Set()).add(name);
    }
  }
  const headers: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named?.has(lower)) continue;
    if (lower === "set-cookie") {
      const cookie = appSetCookie(raw[i + 1]!);
      if (cookie !== null) headers.push(name, cookie);
      continue;
    }
    headers.push(name, raw[i + 1]!);
  }
  return headers;
}

/**
 * The same rule on a parsed header object (the WebSocket handshake's answer, which httpxy writes
 * itself): `Set-Cookie` held to `appSetCookie`, in place.
 */
export function holdSetCookies(headers: Record<string, string | string[] | undefined>): void {
  const cookies = headers["set-cookie"];
  if (cookies === undefined) return;
  const kept = (Array.isArray(cookies) ? cookies : [cookies]).map(appSetCookie).filter((cookie): cookie is string => cookie !== null);
  if (kept.length) headers["set-cookie"] = kept;
  else delete headers["set-cookie"];
}
