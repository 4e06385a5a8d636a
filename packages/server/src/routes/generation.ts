import type { Reposite } from "@reposite/core";
import { getRouterParam, type H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { readJsonBody } from "../http/json-body.js";

/** Starting site generation; its jobs are followed through the job routes. */
export function generationRoutes(app: H3, reposite: Reposite): void {
  app.post("/app/sites/:site_id/generate", async (event) => {
    const { account } = await requireToken(reposite, event);
    const started = await reposite.generation.generate(account.id, getRouterParam(event, "site_id")!, await readJsonBody(event));
    event.res.status = 202;
    return started;
  });
}
