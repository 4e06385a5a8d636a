import { repohostCallback, repohostConnect, repohostDisconnect, repohostLookup, repohostStatus } from "@reposite/contract";
import { RepositeError, type Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { currentSession } from "../http/browser-session.js";
import { dashboardPaths } from "../dashboard/dashboard-paths.js";
import { operationRoute } from "../http/operation-route.js";

const HOST_NAMES: Record<string, string> = { github: "GitHub" };
const hostName = (host: string | undefined) => (host && HOST_NAMES[host]) ?? "The code host";

/**
 * Connecting the account to the code host (GitHub OAuth) and checking repositories with it.
 * The callback is a browser page: the person lands there from GitHub, without an API token.
 */
export function repohostRoutes(app: H3, reposite: Reposite): void {
  operationRoute(app, repohostLookup, async (event, { query }) => {
    const { account } = await requireToken(reposite, event);
    return reposite.repoAccess.check(account.id, query.url);
  });

  operationRoute(app, repohostConnect, async (event, { body }) => {
    const { account } = await requireToken(reposite, event);
    return reposite.repoAccess.connect(account.id, body);
  });

  operationRoute(app, repohostStatus, async (event) => {
    const { account } = await requireToken(reposite, event);
    return reposite.repoAccess.status(account.id);
  });

  operationRoute(app, repohostDisconnect, async (event) => {
    const { account } = await requireToken(reposite, event);
    await reposite.repoAccess.disconnect(account.id);
    event.res.status = 204;
    return null;
  });

  // The query carries a one-time code and state: they are never logged nor shown on the page.
  operationRoute(app, repohostCallback, async (event, { query }) => {
    const state = query.state ?? "";
    try {
      const service = reposite.repoAccess;
      const hostError = query.error ?? "";
      if (hostError) {
        await service.abandon(state);
        return hostError === "access_denied"
          ? page(403, "Nothing was connected", "You did not authorize Reposite, so nothing was connected. You can close this tab.")
          : page(502, "Nothing was connected", `The code host could not authorize Reposite (${hostError.slice(0, 100)}). Start connecting again.`);
      }
      const session = await currentSession(reposite, event).catch(() => null);
      const { host, repo } = await service.finish(state, query.code ?? "", session?.account.id);
      const name = hostName(host);
      return page(
        200,
        `${name} is connected`,
        `${name} is connected; you can close this tab. Reposite can now see your private repositories, such as ${repo}.`,
      );
    } catch (error) {
      if (RepositeError.isInstance(error)) return page(error.status, "Nothing was connected", error.message);
      // Logged without the request's address: its query holds the code and state.
      console.error("[reposite] GET /app/repohost/callback failed:", error);
      return page(500, "Something went wrong", "Something went wrong on our side. Start connecting again; if it keeps happening, tell the operator.");
    }
  });
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escape = (value: string) => value.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

/**
 * A small self-contained page; no referrer leaves it, so the callback's query stays here. A person
 * who started connecting from the dashboard came in this tab: it links back to their sites.
 */
function page(status: number, title: string, message: string): Response {
  const body = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)} · Reposite</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}h1{font-size:1.5rem}</style></head>
<body><h1>${escape(title)}</h1><p>${escape(message)}</p><p><a href="${dashboardPaths.sites}">Back to your sites</a></p></body>
</html>
`;
  return new Response(body, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      "x-content-type-options": "nosniff",
    },
  });
}
