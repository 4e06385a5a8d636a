import { deploymentLogs, deploymentMetrics, deploymentResetData } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { operationRoute } from "../http/operation-route.js";

/** Operating an app: its output, what it uses now, and emptying its data. */
export function deploymentOperationRoutes(app: H3, reposite: Reposite): void {
  const { appOperations } = reposite;

  operationRoute(app, deploymentLogs, async (event, { params, query }) => {
    const { account } = await requireToken(reposite, event);
    const text = await appOperations.logs(account.id, params.site_id, query.tail);
    // The app's own output: never rendered as a page, never cached.
    return new Response(text, {
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" },
    });
  });

  operationRoute(app, deploymentMetrics, async (event, { params }) => {
    const { account } = await requireToken(reposite, event);
    return appOperations.metrics(account.id, params.site_id);
  });

  operationRoute(app, deploymentResetData, async (event, { params, body }) => {
    const { account } = await requireToken(reposite, event);
    return appOperations.resetData(account.id, params.site_id, body);
  });
}
