import type { Reposite } from "@reposite/core";
import { getQuery, getRouterParam, type H3, type H3Event } from "h3";
import { requireToken } from "../http/auth.js";
import { readJsonBody } from "../http/json-body.js";

const siteId = (event: H3Event) => getRouterParam(event, "site_id")!;

/** Operating an app: its output, what it uses now, and emptying its data. */
export function deploymentOperationRoutes(app: H3, reposite: Reposite): void {
  const { appOperations } = reposite;

  app.get("/app/sites/:site_id/deployment/logs", async (event) => {
    const { account } = await requireToken(reposite, event);
    const text = await appOperations.logs(account.id, siteId(event), getQuery(event).tail);
    // The app's own output: never rendered as a page, never cached.
    return new Response(text, {
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" },
    });
  });

  app.get("/app/sites/:site_id/deployment/metrics", async (event) => {
    const { account } = await requireToken(reposite, event);
    return appOperations.metrics(account.id, siteId(event));
  });

  app.post("/app/sites/:site_id/deployment/reset-data", async (event) => {
    const { account } = await requireToken(reposite, event);
    return appOperations.resetData(account.id, siteId(event), await readJsonBody(event));
  });
}
