import { RepositeError, type Reposite } from "@reposite/core";
import { getQuery, getRouterParam, type H3, type H3Event } from "h3";
import { requireBrowserSession, type CurrentSession } from "../http/browser-session.js";
import { pageRoute, readPageForm, seeOther, toPageSession } from "../http/page-route.js";
import { appListPage, appPage, appScreenPath } from "../pages/app-page.js";
import { appScreenAsset } from "../pages/app-screen-assets.js";
import { pageResponse } from "../pages/layout.js";
import { appScreenPolicy } from "../pages/app-screen-policy.js";

/** Confirmations shown after a redirect, by the key in `?done=`. */
const NOTICES: Record<string, string> = {
  fix: "A fix was started: its runs appear below as they go.",
};

const siteId = (event: H3Event) => getRouterParam(event, "site_id")!;

/** Reads of the app's screen answer `409` (not deployed yet) with nothing to show: the page shows "none" instead. */
const orNone = <T>(read: Promise<T>, none: T): Promise<T> =>
  read.catch((error: unknown) => {
    if (RepositeError.isInstance(error) && error.status === 409) return none;
    throw error;
  });

/**
 * The app's screen: one page per app for its owner's browser session (an API token is refused,
 * `403 session_required`; someone else's app is `404`), the session-only reads its script polls
 * (output, metrics), its Fix button, and the script and xterm.js it loads from this server. The
 * terminal's WebSocket is in ../terminal (it is not an h3 route).
 */
export function appScreenRoutes(app: H3, reposite: Reposite): void {
  /** The session's account, or a redirect to sign in (pages) / `401` (the script's reads). */
  const signedIn = async (event: H3Event): Promise<CurrentSession | Response> => {
    const current = await requireBrowserSession(reposite, event);
    if (current) return current;
    return seeOther(`/account?next=${encodeURIComponent(event.url.pathname)}`);
  };

  app.get(
    "/account/apps",
    pageRoute(async (event) => {
      const current = await signedIn(event);
      if (current instanceof Response) return current;
      return pageResponse(appListPage({ session: toPageSession(reposite, current), projects: await reposite.projects.list(current.account.id) }));
    }),
  );

  /** The screen as it is now, with a notice or an error from what was just done. */
  const screen = async (current: CurrentSession, id: string, said: { notice?: string; error?: string } = {}, status = 200) => {
    const owner = current.account.id;
    const project = await reposite.projects.get(owner, id);
    const deployment = await reposite.hosting.read(owner, id);
    const [runs, log] = await Promise.all([reposite.hosting.listRuns(owner, id), orNone(reposite.appOperations.logs(owner, id, 200), "")]);
    const document = appPage({ session: toPageSession(reposite, current), siteId: id, name: project.name, deployment, runs, log, ...said });
    return pageResponse(document, status, { "content-security-policy": appScreenPolicy(reposite.config.baseUrl) });
  };

  app.get(
    "/account/apps/:site_id",
    pageRoute(async (event) => {
      const current = await signedIn(event);
      if (current instanceof Response) return current;
      const done = getQuery(event).done;
      return screen(current, siteId(event), { notice: typeof done === "string" ? NOTICES[done] : undefined });
    }),
  );

  // The script's reads: the same words as the API's logs and metrics, for the session.
  // (JSON errors, and 401 rather than a redirect: a script's fetch would follow it to the sign-in page.)
  const reader = async (event: H3Event) => {
    const current = await requireBrowserSession(reposite, event);
    if (!current) throw new RepositeError(401, "Sign in at /account to read the app's screen.", "session_required");
    return current.account.id;
  };

  app.get("/account/apps/:site_id/logs", async (event) => {
    const text = await reposite.appOperations.logs(await reader(event), siteId(event), getQuery(event).tail);
    return new Response(text, { headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" } });
  });

  app.get("/account/apps/:site_id/metrics", async (event) => {
    const metrics = await reposite.appOperations.metrics(await reader(event), siteId(event));
    event.res.headers.set("cache-control", "no-store");
    return metrics;
  });

  app.post(
    "/account/apps/:site_id/fix",
    pageRoute(async (event) => {
      const { current } = await readPageForm(reposite, event);
      const id = siteId(event);
      if (!current) return seeOther(`/account?next=${encodeURIComponent(appScreenPath(id))}`);
      try {
        await reposite.appFixer.fix(current.account.id, id);
      } catch (error) {
        // A fix refused (a run under way, nothing to fix, no model for this failure) is said on the screen itself.
        if (!RepositeError.isInstance(error) || error.status === 404 || (error.status >= 500 && error.status !== 503)) throw error;
        return screen(current, id, { error: error.message }, error.status);
      }
      return seeOther(`${appScreenPath(id)}?done=fix`);
    }),
  );

  app.get("/account/assets/:file", (event) => appScreenAsset(getRouterParam(event, "file")!));
}
