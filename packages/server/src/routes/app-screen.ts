import { RepositeError, type Reposite } from "@reposite/core";
import { getQuery, getRouterParam, type H3, type H3Event } from "h3";
import { requireBrowserSession, type CurrentSession } from "../http/browser-session.js";
import { pageRoute, seeOther, toPageSession } from "../http/page-route.js";
import { appListPage, appScreenPath } from "../pages/app-page.js";
import { appScreenAsset } from "../pages/app-screen-assets.js";
import { pageResponse } from "../pages/layout.js";

const siteId = (event: H3Event) => getRouterParam(event, "site_id")!;

/**
 * What the App screen (dashboard/app-routes.ts) reads besides its own routes, for the owner's
 * browser session only (an API token is refused, `403 session_required`; someone else's app is
 * `404`): the output and metrics its script polls, and the script and xterm.js it loads from this
 * server. The list of apps, and the old app screen's address, which leads to the App screen. The
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

  // The app's screen is its site's App screen in the dashboard (dashboard/app-routes.ts); old links land there.
  app.get(
    "/account/apps/:site_id",
    pageRoute(async (event) => {
      const current = await signedIn(event);
      if (current instanceof Response) return current;
      // Someone else's (or no) project stays `404` here too.
      const project = await reposite.projects.get(current.account.id, siteId(event));
      return seeOther(appScreenPath(project.id));
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

  app.get("/account/assets/:file", (event) => appScreenAsset(getRouterParam(event, "file")!));
}
