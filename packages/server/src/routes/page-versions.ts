import { pageVersionCreate, pageVersionGet, pageVersionList, pageVersionMakeCurrent } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { operationRoute } from "../http/operation-route.js";

/**
 * Page HTML may be 5 MB; JSON escaping can double it. The service refuses HTML over 5 MB with
 * `413 html_too_large`; the body limit only stops what could never be accepted.
 */
const VERSION_BODY_LIMIT = 12 * 1024 * 1024;

/** Each page's history of versions, and which one is current. */
export function pageVersionRoutes(app: H3, reposite: Reposite): void {
  operationRoute(app, pageVersionList, async (event, { params, query }) => {
    const { account } = await requireToken(reposite, event);
    return reposite.pageVersions.list(account.id, params.site_id, query.kind || undefined);
  });

  operationRoute(app, pageVersionGet, async (event, { params }) => {
    const { account } = await requireToken(reposite, event);
    return reposite.pageVersions.get(account.id, params.version_id);
  });

  operationRoute(
    app,
    pageVersionCreate,
    async (event, { params, body }) => {
      const { account } = await requireToken(reposite, event);
      const version = await reposite.pageVersions.addCustom(account.id, params.site_id, body);
      event.res.status = 201;
      return version;
    },
    { bodyLimit: VERSION_BODY_LIMIT },
  );

  operationRoute(app, pageVersionMakeCurrent, async (event, { params, body }) => {
    const { account } = await requireToken(reposite, event);
    return reposite.pageVersions.makeCurrent(account.id, params.site_id, body);
  });
}
