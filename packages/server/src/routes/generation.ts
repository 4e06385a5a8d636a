import { generationStart } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { operationRoute } from "../http/operation-route.js";

/** Starting site generation; its jobs are followed through the job routes. */
export function generationRoutes(app: H3, reposite: Reposite): void {
  operationRoute(app, generationStart, async (event, { params, body }) => {
    const { account } = await requireToken(reposite, event);
    const started = await reposite.generation.generate(account.id, params.site_id, body);
    event.res.status = 202;
    return started;
  });
}
