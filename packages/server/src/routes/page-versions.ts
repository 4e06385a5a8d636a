import type { Reposite } from "@reposite/core";
import { getQuery, getRouterParam, type H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { readJsonBody } from "../http/json-body.js";

/**
 * Page HTML may be 5 MB; JSON escaping can double it. The service refuses HTML over 5 MB with
 * `413 html_too_large`; the body limit only stops what could never be accepted.
 */
const VERSION_BODY_LIMIT = 12 * 1024 * 1024;

/** Each page's history of versions, and which one is current. */
export function pageVersionRoutes(app: H3, reposite: Reposite): void {
  app.get("/app/sites/:site_id/versions", async (event) => {
    const { account } = await requireToken(reposite, event);
    const { kind } = getQuery(event);
    return reposite.pageVersions.list(account.id, getRouterParam(event, "site_id")!, kind === undefined ? undefined : String(kind));
  });

  app.get("/app/versions/:version_id", async (event) => {
    const { account } = await requireToken(reposite, event);
    return reposite.pageVersions.get(account.id, getRouterParam(event, "version_id")!);
  });

  app.post("/app/sites/:site_id/versions", async (event) => {
    const { account } = await requireToken(reposite, event);
    const version = await reposite.pageVersions.addCustom(
      account.id,
      getRouterParam(event, "site_id")!,
      await readJsonBody(event, VERSION_BODY_LIMIT),
    );
    event.res.status = 201;
    return version;
  });

  app.put("/app/sites/:site_id/actual", async (event) => {
    const { account } = await requireToken(reposite, event);
    return reposite.pageVersions.makeCurrent(account.id, getRouterParam(event, "site_id")!, await readJsonBody(event));
  });
}
