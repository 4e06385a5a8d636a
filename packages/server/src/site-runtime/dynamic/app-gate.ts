import type { MemberView, PublishedSiteInfo } from "@reposite/core";
import { MEMBER_COOKIE } from "./member-session.js";

/** Who the member is, for the app behind `/app/`. Only Reposite sets these; see appRequestHeaders. */
export const MEMBER_ID_HEADER = "x-reposite-member-id";
export const MEMBER_EMAIL_HEADER = "x-reposite-member-email";
/** Every header with this prefix is Reposite's to set: whatever a visitor sends under it is dropped. */
export const RESERVED_HEADER_PREFIX = "x-reposite-";

/** What the app proxy (app hosting) gets for one request under `/app/`. */
export interface AppRequest {
  site: PublishedSiteInfo;
  /** The request as it came in. Forward `headers`, never `request.headers`. */
  request: Request;
  /** Path for the app: `/app` removed, so `/app/x?y` is `/x?y` and `/app` is `/`. */
  path: string;
  /** The headers to send to the app: the visitor's own minus anything spoofable, plus who they are. */
  headers: Headers;
  /** The signed-in member, or null (only when the site lets everyone use its app). */
  member: MemberView | null;
}

/** Sends a request on to the site's app; app hosting provides it. */
export type AppForwarder = (request: AppRequest) => Promise<Response>;

/** A header value must be a ByteString; an email outside ASCII travels percent-encoded. */
const headerValue = (value: string) => (/^[\x20-\x7e]*$/.test(value) ? value : encodeURIComponent(value));

/** The member cookie's names on http and https sites. */
const MEMBER_COOKIE_NAMES = new Set([MEMBER_COOKIE, `__Host-${MEMBER_COOKIE}`]);

/** The Cookie header without the member session cookie, or null when nothing is left. */
function withoutMemberCookie(cookie: string): string | null {
  const kept = cookie
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part && !MEMBER_COOKIE_NAMES.has(part.split("=")[0]!.trim()));
  return kept.length ? kept.join("; ") : null;
}

/**
 * The headers the app receives. First every incoming `X-Reposite-*` header is dropped (a visitor
 * could send `X-Reposite-Member-Id` themselves), then the member's id and email are set when
 * someone is signed in. The member session cookie is taken out too: the app has no use for it,
 * and whoever reads the app's logs must not be able to sign in as its members.
 */
export function appRequestHeaders(incoming: Headers, member: MemberView | null): Headers {
  const headers = new Headers();
  for (const [name, value] of incoming) {
    const lower = name.toLowerCase();
    if (lower.startsWith(RESERVED_HEADER_PREFIX)) continue;
    if (lower === "cookie") {
      const kept = withoutMemberCookie(value);
      if (kept) headers.set("cookie", kept);
      continue;
    }
    headers.append(name, value);
  }
  if (member) {
    headers.set(MEMBER_ID_HEADER, member.id);
    headers.set(MEMBER_EMAIL_HEADER, headerValue(member.email));
  }
  return headers;
}

/** `/app/x?y` -> `/x?y`; `/app` -> `/`. */
export function appPath(pathname: string, search: string): string {
  const rest = pathname.slice("/app".length);
  return `${rest.startsWith("/") ? rest : `/${rest}`}${search}`;
}
