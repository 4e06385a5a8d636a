import { RepositeError } from "@reposite/core";
import type { H3 } from "h3";
import { dashboardPaths } from "./dashboard-paths.js";
import { DASHBOARD_SCRIPT, DASHBOARD_STYLESHEET } from "./dashboard-script.js";

const ASSETS: Record<string, { type: string; body: string }> = {
  "dashboard.js": { type: "text/javascript; charset=utf-8", body: DASHBOARD_SCRIPT },
  "dashboard.css": { type: "text/css; charset=utf-8", body: DASHBOARD_STYLESHEET },
};

/** /dashboard/assets/<file>: the script and stylesheet above, nothing read from the request's path. */
export function dashboardAssetRoutes(app: H3): void {
  app.get(`${dashboardPaths.assets}/:file`, (event) => {
    const name = event.context.params?.file ?? "";
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name]! : null;
    if (!asset) throw new RepositeError(404, "There is nothing at this address.", "not_found");
    return new Response(asset.body, {
      headers: { "content-type": asset.type, "cache-control": "no-cache", "x-content-type-options": "nosniff" },
    });
  });
}
