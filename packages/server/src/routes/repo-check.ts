import type { Reposite } from "@reposite/core";
import { getQuery, getRouterParam, type H3 } from "h3";
import { requireToken } from "../http/auth.js";

/** Reads a project's repository without building it: Dockerfile facts, automatic build, settings. */
export function repoCheckRoutes(app: H3, reposite: Reposite): void {
  app.get("/app/sites/:site_id/repo-check", async (event) => {
    const { account } = await requireToken(reposite, event);
    const { ref, path } = getQuery(event);
    return reposite.repoCheck.check(account.id, getRouterParam(event, "site_id")!, {
      ...(ref !== undefined ? { ref: String(ref) } : {}),
      ...(path !== undefined ? { path: String(path) } : {}),
    });
  });
}
