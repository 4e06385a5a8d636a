import { deploymentFix, deploymentOverrideRemove } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { operationRoute } from "../http/operation-route.js";

/**
 * `POST …/deployment/fix` (`202` with the fix's job) and `DELETE …/deployment/override` (the
 * deployment read): the rules live in core's AppFixer.
 */
export function deploymentFixRoutes(app: H3, reposite: Reposite): void {
  operationRoute(app, deploymentFix, async (event, { params }) => {
    const { account } = await requireToken(reposite, event);
    const started = await reposite.appFixer.fix(account.id, params.site_id);
    event.res.status = 202;
    return started;
  });

  operationRoute(app, deploymentOverrideRemove, async (event, { params }) => {
    const { account } = await requireToken(reposite, event);
    return reposite.appFixer.removeOverride(account.id, params.site_id);
  });
}
