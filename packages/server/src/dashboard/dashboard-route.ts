import { RepositeError, type Reposite } from "@reposite/core";
import { getQuery, getRouterParam, type H3, type H3Event } from "h3";
import { requireBrowserSession, type CurrentSession } from "../http/browser-session.js";
import { pageRoute, readPageForm, seeOther, toPageSession } from "../http/page-route.js";
import type { PageSession } from "../pages/layout.js";
import { dashboardResponse, type DashboardFrame, type Said } from "./dashboard-frame.js";

/** Who asks, for a dashboard screen: always a browser session, never a token. */
export interface DashboardRequest {
  event: H3Event;
  reposite: Reposite;
  current: CurrentSession;
  /** The signed-in account's id: every service call is made as this owner. */
  ownerId: string;
  session: PageSession;
  /** A path parameter (`site_id`, …), as sent. */
  param(name: string): string;
  /** The screen as a response with the dashboard's CSP. */
  respond(frame: Omit<DashboardFrame, "session">, status?: number): Response;
}

/** Draws a screen; `said` carries what the last form post said (a notice, or an error with its status). */
export type Screen = (request: DashboardRequest, said: Said) => Promise<Response>;

const signInFirst = (event: H3Event) => seeOther(`/account?next=${encodeURIComponent(event.url.pathname)}`);

function dashboardRequest(reposite: Reposite, event: H3Event, current: CurrentSession): DashboardRequest {
  const session = toPageSession(reposite, current);
  return {
    event,
    reposite,
    current,
    ownerId: current.account.id,
    session,
    param: (name) => getRouterParam(event, name) ?? "",
    respond: (frame, status) => dashboardResponse(reposite.config.baseUrl, { ...frame, session }, status),
  };
}

/**
 * A dashboard screen at `path` (GET). A token is refused (`403 session_required`) even when
 * valid; signed out, the person is sent to sign in and brought back. `?done=<key>` shows the
 * screen's notice for that key (after a form's redirect); an unknown key shows nothing.
 */
export function dashboardScreen(app: H3, reposite: Reposite, path: string, screen: Screen, notices: Record<string, string> = {}): void {
  app.get(
    path,
    pageRoute(async (event) => {
      const current = await requireBrowserSession(reposite, event);
      if (!current) return signInFirst(event);
      const done = getQuery(event).done;
      const notice = typeof done === "string" && Object.hasOwn(notices, done) ? notices[done] : undefined;
      return screen(dashboardRequest(reposite, event, current), { notice });
    }),
  );
}

/**
 * A dashboard form at `path` (POST): a token is refused (`403 session_required`), then the post
 * must come from this server's pages with the session's CSRF token (`403 cross_site_request`,
 * `403 invalid_csrf_token`). `act` calls the service and answers, usually with `seeOther`. A
 * refusal the person can act on (a RepositeError 400–499) is drawn on `screen` with its message
 * and status; a missing or foreign site (a plain `404`) stays the error page's `404`.
 * `bodyLimit`: for a form that carries more than a few fields (a whole page's HTML).
 */
export function dashboardForm(
  app: H3,
  reposite: Reposite,
  path: string,
  act: (request: DashboardRequest, form: URLSearchParams) => Promise<Response>,
  screen: Screen,
  options: { bodyLimit?: number } = {},
): void {
  app.post(
    path,
    pageRoute(async (event) => {
      await requireBrowserSession(reposite, event);
      const { form, current } = await readPageForm(reposite, event, options.bodyLimit);
      if (!current) return signInFirst(event);
      const request = dashboardRequest(reposite, event, current);
      try {
        return await act(request, form);
      } catch (error) {
        if (!RepositeError.isInstance(error) || error.status < 400 || error.status >= 500 || isMissingThing(error)) throw error;
        const drawn = await screen(request, { error: error.message });
        return new Response(drawn.body, { status: error.status, headers: drawn.headers });
      }
    }),
  );
}

/** A `404` with no code of its own, or `not_found`: the thing the URL names is not the person's. `repo_not_found` is a form's answer. */
const isMissingThing = (error: RepositeError) => error.status === 404 && (error.code === undefined || error.code === "not_found");

/**
 * A session-only read for the dashboard's script (a job stream, a slug check, a preview): a token
 * is refused (`403 session_required`) and, signed out, the answer is `401` (a script's fetch
 * would follow a redirect to the sign-in page).
 */
export function dashboardRead(app: H3, reposite: Reposite, path: string, read: (request: DashboardRequest) => Promise<unknown>): void {
  app.get(path, async (event) => {
    const current = await requireBrowserSession(reposite, event);
    if (!current) throw new RepositeError(401, "Sign in at /account to use the dashboard.", "session_required");
    return read(dashboardRequest(reposite, event, current));
  });
}
