import type { Reposite } from "@reposite/core";
import { getRouterParam, type H3 } from "h3";
import { requireToken } from "../http/auth.js";

/**
 * `POST …/deployment/fix` (`202` with the fix's job) and `DELETE …/deployment/override` (the
 * deployment read): the rules live in core's AppFixer.
 */
export function deploymentFixRoutes(app: H3, reposite: Reposite): void {
  app.post("/app/sites/:site_id/deployment/fix", async (event) => {
    const { account } = await requireToken(reposite, event);
    const started = await reposite.appFixer.fix(account.id, getRouterParam(event, "site_id")!);
    event.res.status = 202;
    return started;
  });

  app.delete("/app/sites/:site_id/deployment/override", async (event) => {
    const { account } = await requireToken(reposite, event);
    return reposite.appFixer.removeOverride(account.id, getRouterParam(event, "site_id")!);
  });
}
