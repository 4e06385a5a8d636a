import { PublishingService, type Reposite } from "@reposite/core";
import { getQuery, getRouterParam, type H3, type H3Event } from "h3";
import { requireToken } from "../http/auth.js";
import { readJsonBody } from "../http/json-body.js";

const siteId = (event: H3Event) => getRouterParam(event, "site_id")!;

/** Addresses (slugs) and publishing the generated pages at `https://<slug>.{sites_domain}`. */
export function publishingRoutes(app: H3, reposite: Reposite): void {
  // Until the composition exposes `reposite.publishing`; registered as a singleton it is the same one.
  const publishing =
    (reposite as Reposite & { publishing?: PublishingService }).publishing ?? reposite.container.resolve(PublishingService);

  app.get("/app/subdomain-check", async (event) => {
    await requireToken(reposite, event);
    const { slug } = getQuery(event);
    return publishing.checkSlug(typeof slug === "string" ? slug : undefined);
  });

  app.post("/app/sites/:site_id/slug", async (event) => {
    const { account } = await requireToken(reposite, event);
    return publishing.setSlug(account.id, siteId(event), await readJsonBody(event));
  });

  app.post("/app/sites/:site_id/publish", async (event) => {
    const { account } = await requireToken(reposite, event);
    return publishing.publish(account.id, siteId(event), await readJsonBody(event));
  });

  app.post("/app/sites/:site_id/publish-page", async (event) => {
    const { account } = await requireToken(reposite, event);
    return publishing.publishPage(account.id, siteId(event), await readJsonBody(event));
  });
}
