import { RepositeError, SESSION_TTL_MS, type Account, type BrowserSession, type Reposite } from "@reposite/core";
import { deleteCookie, getCookie, setCookie, type H3Event } from "h3";

export const SESSION_COOKIE = "reposite_session";

export interface CurrentSession {
  account: Account;
  session: BrowserSession;
}

const secure = (reposite: Reposite) => new URL(reposite.config.baseUrl).protocol === "https:";

/** The signed-in person of a browser request, or null. */
export async function currentSession(reposite: Reposite, event: H3Event): Promise<CurrentSession | null> {
  return reposite.sessions.find(getCookie(event, SESSION_COOKIE));
}

/** Signs the browser in: HttpOnly, SameSite=Lax, and Secure whenever the service runs on https. */
export async function startSession(reposite: Reposite, event: H3Event, accountId: string): Promise<void> {
  const { secret } = await reposite.sessions.create(accountId);
  setCookie(event, SESSION_COOKIE, secret, {
    httpOnly: true,
    sameSite: "lax",
    secure: secure(reposite),
    path: "/",
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

export async function endSession(reposite: Reposite, event: H3Event): Promise<void> {
  const secret = getCookie(event, SESSION_COOKIE);
  if (secret) await reposite.sessions.destroy(secret);
  deleteCookie(event, SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "lax", secure: secure(reposite) });
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
 * Form posts must come from this server's own pages: the Origin (or, failing that, the Referer)
 * must name the host the request was sent to. SameSite=Lax cookies already stop most cross-site
 * posts; this and the per-session token stop the rest.
 */
export function assertSameOrigin(event: H3Event): void {
  const source = event.req.headers.get("origin") ?? event.req.headers.get("referer");
  const host = event.req.headers.get("host");
  let sourceHost: string | undefined;
  try {
    sourceHost = source && source !== "null" ? new URL(source).host : undefined;
  } catch {
    sourceHost = undefined;
  }
  if (!sourceHost || !host || sourceHost !== host) {
    throw new RepositeError(403, "This form was sent from another site, so it was refused.", "cross_site_request");
  }
}

/** The session's CSRF token must come back with every form post of a signed-in page. */
export function assertCsrfToken(current: CurrentSession, sent: unknown): void {
  if (typeof sent !== "string" || sent !== current.session.csrf) {
    throw new RepositeError(403, "This form has expired. Reload the page and try again.", "invalid_csrf_token");
  }
}
