import { RepositeError, SESSION_TTL_MS, type Account, type BrowserSession, type Reposite } from "@reposite/core";
import { deleteCookie, getCookie, setCookie, type H3Event } from "h3";

/** The account session cookie's name on http; on https it is `__Host-reposite_session` (see `hostCookieName`). */
export const SESSION_COOKIE = "reposite_session";

export interface CurrentSession {
  account: Account;
  session: BrowserSession;
}

const isHttps = (url: string) => new URL(url).protocol === "https:";

/**
 * A session cookie's name at a public address: on https `__Host-<name>`, which browsers accept
 * only when Secure, with Path=/ and without Domain, so no other host (a published site's script,
 * above all) can plant one this host believes. On http the name stays plain: browsers refuse the
 * prefix without Secure. Only this name is read, never the plain one on https.
 */
export const hostCookieName = (name: string, publicUrl: string): string => (isHttps(publicUrl) ? `__Host-${name}` : name);

/** The account session cookie's name on this service. */
export const sessionCookieName = (reposite: Reposite): string => hostCookieName(SESSION_COOKIE, reposite.config.baseUrl);

/** The secret in the browser's session cookie, if any. */
export const sessionSecret = (reposite: Reposite, event: H3Event): string | undefined => getCookie(event, sessionCookieName(reposite));

/** The signed-in person of a browser request, or null. */
export async function currentSession(reposite: Reposite, event: H3Event): Promise<CurrentSession | null> {
  return reposite.sessions.find(sessionSecret(reposite, event));
}

/** Signs the browser in: HttpOnly, SameSite=Lax, and Secure whenever the service runs on https. */
export async function startSession(reposite: Reposite, event: H3Event, accountId: string): Promise<void> {
  const { secret } = await reposite.sessions.create(accountId);
  setCookie(event, sessionCookieName(reposite), secret, {
    httpOnly: true,
    sameSite: "lax",
    secure: isHttps(reposite.config.baseUrl),
    path: "/",
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

export async function endSession(reposite: Reposite, event: H3Event): Promise<void> {
  const secret = sessionSecret(reposite, event);
  if (secret) await reposite.sessions.destroy(secret);
  deleteCookie(event, sessionCookieName(reposite), { path: "/", httpOnly: true, sameSite: "lax", secure: isHttps(reposite.config.baseUrl) });
}

/**
 * Pages only a browser session may use (the operator dashboard, the billing portal). An API token
 * is refused with `403 session_required` even when it is valid: a leaked token must not reach them.
 */
export async function requireBrowserSession(reposite: Reposite, event: H3Event): Promise<CurrentSession | null> {
  if (event.req.headers.has("authorization")) {
    throw new RepositeError(403, "This page needs a browser session; API tokens cannot use it. Sign in at /account.", "session_required");
  }
  return currentSession(reposite, event);
}

/**
 * Form posts must come from the pages of the address they were sent to: the Origin (or, failing
 * that, the Referer) must have the scheme of the public address (`publicUrl`: the service's base
 * URL, or a published site's URL) and the host and port the request was sent to. An https page
 * posting to an http site is another origin too. SameSite=Lax cookies already stop most
 * cross-site posts; this and the per-session token stop the rest.
 */
export function assertSameOrigin(event: H3Event, publicUrl: string): void {
  const source = event.req.headers.get("origin") ?? event.req.headers.get("referer");
  const host = event.req.headers.get("host");
  const sent = source ? originOf(source) : null;
  if (!sent || !host || sent !== originOf(`${new URL(publicUrl).protocol}//${host}`)) {
    throw new RepositeError(403, "This form was sent from another site, so it was refused.", "cross_site_request");
  }
}

/** `scheme://host[:port]` with the default port left out, or null for what is not a URL. */
function originOf(url: string): string | null {
  try {
    const { origin } = new URL(url);
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}

/** The session's CSRF token must come back with every form post of a signed-in page. */
export function assertCsrfToken(current: CurrentSession, sent: unknown): void {
  if (typeof sent !== "string" || sent !== current.session.csrf) {
    throw new RepositeError(403, "This form has expired. Reload the page and try again.", "invalid_csrf_token");
  }
}
