import type { Reposite } from "@reposite/core";
import { getRouterParam, type H3 } from "h3";
import { requireToken } from "../http/auth.js";

/** People who registered on a project's published site, for its owner. */
export function memberRoutes(app: H3, reposite: Reposite): void {
  app.get("/app/sites/:site_id/members", async (event) => {
    const { account } = await requireToken(reposite, event);
    return reposite.members.list(account.id, getRouterParam(event, "site_id")!);
  });
}
