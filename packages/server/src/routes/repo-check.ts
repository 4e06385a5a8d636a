import { repoCheck } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { operationRoute } from "../http/operation-route.js";

/** Reads a project's repository without building it: Dockerfile facts, automatic build, settings. */
export function repoCheckRoutes(app: H3, reposite: Reposite): void {
  operationRoute(app, repoCheck, async (event, { params, query }) => {
    const { account } = await requireToken(reposite, event);
    return reposite.repoCheck.check(account.id, params.site_id, query);
  });
}
