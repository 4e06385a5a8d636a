import { membersList } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { operationRoute } from "../http/operation-route.js";

/** People who registered on a project's published site, for its owner. */
export function memberRoutes(app: H3, reposite: Reposite): void {
  operationRoute(app, membersList, async (event, { params }) => {
    const { account } = await requireToken(reposite, event);
    return reposite.members.list(account.id, params.site_id);
  });
}
