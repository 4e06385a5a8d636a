import { publishingPublish, publishingPublishPage, publishingSetSlug, subdomainCheck } from "@reposite/contract";
import { PublishingService, type Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { operationRoute } from "../http/operation-route.js";

/** Addresses (slugs) and publishing the generated pages at `https://<slug>.{sites_domain}`. */
export function publishingRoutes(app: H3, reposite: Reposite): void {
  // Until the composition exposes `reposite.publishing`; registered as a singleton it is the same one.
  const publishing =
    (reposite as Reposite & { publishing?: PublishingService }).publishing ?? reposite.container.resolve(PublishingService);

  operationRoute(app, subdomainCheck, async (event, { query }) => {
    await requireToken(reposite, event);
    return publishing.checkSlug(query.slug);
  });

  operationRoute(app, publishingSetSlug, async (event, { params, body }) => {
    const { account } = await requireToken(reposite, event);
    return publishing.setSlug(account.id, params.site_id, body);
  });

  operationRoute(app, publishingPublish, async (event, { params, body }) => {
    const { account } = await requireToken(reposite, event);
    return publishing.publish(account.id, params.site_id, body);
  });

  operationRoute(app, publishingPublishPage, async (event, { params, body }) => {
    const { account } = await requireToken(reposite, event);
    return publishing.publishPage(account.id, params.site_id, body);
  });
}
