import type { OutgoingHttpHeaders } from "node:http";
import type { MemberView } from "@reposite/core";
import { isRepositeCookie } from "./reposite-cookies.js";

/** Who the member is, for the app behind `/app/`. Only Reposite sets these; see `appRequestHeaders`. */
export const MEMBER_ID_HEADER = "x-reposite-member-id";
export const MEMBER_EMAIL_HEADER = "x-reposite-member-email";
/** Every header with this prefix is Reposite's to set: whatever a visitor sends under it is dropped. */
export const RESERVED_HEADER_PREFIX = "x-reposite-";
/** The path the app is mounted at, removed before the app sees the request and sent as `X-Forwarded-Prefix`. */
export const APP_PREFIX = "/app";

/** The visitor as the proxy saw them: the app receives these as `X-Forwarded-*`. */
export interface AppVisitor {
  /** The client's address, `REPOSITE_TRUST_PROXY` honoured (see `nodeClientAddress`). */
  address: string;
  /** The scheme the visitor used. */
  proto: "http" | "https";
  /** The `Host` the visitor asked for (the site's host). */
  host: string;
}

/**
 * Headers that describe one connection, not the message (RFC 9110 §7.6.1), plus `expect` (the
 * server already answered `100 Continue`). They are never passed on; neither are the headers the
 * visitor names in `Connection`.
 */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade", "proxy-authorization", "proxy-authenticate", "http2-settings", "expect"]);
/** The proxy says where a request came from; a visitor's own claims are dropped, not passed on. */
const FORWARDING = new Set(["forwarded", "x-real-ip", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port", "x-forwarded-prefix", "x-forwarded-ssl", "x-forwarded-server"]);
/** Never dropped for being named in `Connection`: without them the request would change meaning. */
const FRAMING = new Set(["host", "content-length", "transfer-encoding"]);
/** Methods node:http sends chunked when no length is given; for the others a chunked body keeps its header. */
const UNCHUNKED_METHODS = new Set(["GET", "HEAD", "DELETE", "OPTIONS", "TRACE", "CONNECT"]);

/** A header value must be a ByteString; an email outside ASCII travels percent-encoded. */
export const headerValue = (value: string) => (/^[\x20-\x7e]*$/.test(value) ? value : encodeURIComponent(value));

/** The Cookie header without Reposite's own cookies (the member session above all), or null when nothing is left. */
export function withoutRepositeCookies(cookie: string): string | null {
  const kept: string[] = [];
  for (const part of cookie.split(";")) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf("=");
    if (isRepositeCookie(eq === -1 ? "" : trimmed.slice(0, eq).trim())) continue;
    kept.push(trimmed);
  }
  return kept.length ? kept.join("; ") : null;
}

/**
 * The headers the app receives for one request (or WebSocket upgrade), from the visitor's raw
 * headers. Dropped: hop-by-hop headers and those named in `Connection`; every `X-Reposite-*` (a
 * visitor could send `X-Reposite-Member-Id` themselves); the visitor's `Forwarded`/`X-Forwarded-*`/
 * `X-Real-IP`; Reposite's cookies (the member session must not reach the app or its logs). Set:
 * `X-Forwarded-For`, `-Proto`, `-Host`, `X-Forwarded-Prefix: /app`, and the member's id and email
 * when someone is signed in. `Host` stays the visitor's. An upgrade keeps `Connection: upgrade`
 * and its `Upgrade`, which the app needs to switch protocols.
 */
export function appRequestHeaders(
  raw: readonly string[],
  context: { method: string; member: MemberView | null; visitor: AppVisitor; upgrade?: boolean },
): OutgoingHttpHeaders {
  let named: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== "connection") continue;
    for (const token of raw[i + 1]!.split(",")) {
      const name = token.trim().toLowerCase();
      if (name && !FRAMING.has(name)) (named ??= new Set()).add(name);
    }
  }
  const headers: OutgoingHttpHeaders = {};
  let cookie: string | null = null;
  let upgrade: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    if (name === "upgrade") upgrade ??= value;
    if (HOP_BY_HOP.has(name) || FORWARDING.has(name) || named?.has(name) || name.startsWith(RESERVED_HEADER_PREFIX)) continue;
    if (name === "cookie") {
      const kept = withoutRepositeCookies(value);
      if (kept) cookie = cookie ? `${cookie}; ${kept}` : kept;
      continue;
    }
    // node:http frames the body again: a chunked POST goes out chunked without the header, and the
    // connection to the app stays open for the next request.
    if (name === "transfer-encoding" && !UNCHUNKED_METHODS.has(context.method)) continue;
    const previous = headers[name];
    if (previous === undefined) headers[name] = value;
    else headers[name] = Array.isArray(previous) ? [...previous, value] : [previous as string, value];
  }
  if (cookie) headers.cookie = cookie;
  if (context.upgrade && upgrade) {
    headers.connection = "upgrade";
    headers.upgrade = upgrade;
  }
  headers["x-forwarded-for"] = context.visitor.address;
  headers["x-forwarded-proto"] = context.visitor.proto;
  headers["x-forwarded-host"] = context.visitor.host;
  headers["x-forwarded-prefix"] = APP_PREFIX;
  if (context.member) {
    headers[MEMBER_ID_HEADER] = context.member.id;
    headers[MEMBER_EMAIL_HEADER] = headerValue(context.member.email);
  }
  return headers;
}

/** Whether a request target is under `/app`: `/app`, `/app/…` or `/app?…`. */
export function isAppUrl(url: string): boolean {
  return url.startsWith(APP_PREFIX) && (url.length === APP_PREFIX.length || url[APP_PREFIX.length] === "/" || url[APP_PREFIX.length] === "?");
}

/** The target the app sees: `/app/x?y` -> `/x?y`; `/app` -> `/`; `/app?y` -> `/?y`. */
export function appPath(url: string): string {
  const rest = url.slice(APP_PREFIX.length);
  return rest.startsWith("/") ? rest : `/${rest}`;
}
