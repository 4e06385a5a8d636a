import { MEMBER_SESSION_TTL_MS, RepositeError, type MemberView, type MembersService, type PublishedSiteInfo, type SiteSession } from "@reposite/core";
import { deleteCookie, getCookie, setCookie, type H3Event } from "h3";
import { hostCookieName } from "../../http/browser-session.js";

/**
 * The member cookie. It has no Domain attribute, so the browser sends it to this site's host only:
 * never to the Reposite API, nor to another site under the same sites domain. On an https site it
 * is `__Host-reposite_member`, which no other site can set for this host (see `hostCookieName`).
 */
export const MEMBER_COOKIE = "reposite_member";

/** The member cookie's name on this site: only that name is read. */
export const memberCookieName = (site: PublishedSiteInfo): string => hostCookieName(MEMBER_COOKIE, site.url);

export interface CurrentMember {
  member: MemberView;
  session: SiteSession;
}

const cookieOptions = (site: PublishedSiteInfo) => ({
  httpOnly: true,
  sameSite: "lax" as const,
  secure: new URL(site.url).protocol === "https:",
  path: "/",
});

/** The member signed in on this site in this browser, or null. */
export function currentMember(members: MembersService, event: H3Event, site: PublishedSiteInfo): Promise<CurrentMember | null> {
  return members.findSession(site.site_id, getCookie(event, memberCookieName(site)));
}

/** Signs the browser in on the site; the session this browser had there ends. */
export async function startMemberSession(members: MembersService, event: H3Event, site: PublishedSiteInfo, memberId: string): Promise<void> {
  const previous = getCookie(event, memberCookieName(site));
  if (previous) await members.endSession(previous);
  const { secret } = await members.createSession(site.site_id, memberId);
  setCookie(event, memberCookieName(site), secret, { ...cookieOptions(site), maxAge: Math.floor(MEMBER_SESSION_TTL_MS / 1000) });
}

export async function endMemberSession(members: MembersService, event: H3Event, site: PublishedSiteInfo): Promise<void> {
  const secret = getCookie(event, memberCookieName(site));
  if (secret) await members.endSession(secret);
  deleteCookie(event, memberCookieName(site), cookieOptions(site));
}

/** The session's CSRF token must come back with every form of a signed-in page. */
export function assertMemberCsrf(current: CurrentMember, sent: string | null): void {
  if (sent === null || sent !== current.session.csrf) {
    throw new RepositeError(403, "This form has expired. Reload the page and try again.", "invalid_csrf_token");
  }
}

/**
 * A path on this site to go to after signing in: only `/…` (not `//…`, no backslash, no
 * whitespace or control characters, which browsers drop and so could turn into `//evil`).
 */
export function sitePath(value: string | null | undefined): string | null {
  return value && value.length <= 2048 && /^\/(?![/\\])[^\s\x00-\x1f\x7f\\]*$/.test(value) ? value : null;
}
