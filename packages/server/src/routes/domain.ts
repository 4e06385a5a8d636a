import { DOMAIN_PROOF_PATH, type Reposite } from "@reposite/core";
import { getRouterParam, type H3, type H3Event, type Middleware } from "h3";
import { requireToken } from "../http/auth.js";
import { readJsonBody } from "../http/json-body.js";
import { hostnameOf } from "../site-runtime/host-router.js";

const siteId = (event: H3Event) => getRouterParam(event, "site_id")!;

/** A project's custom domain: connect it, check its DNS, read it (with `live`), remove it. */
export function domainRoutes(app: H3, reposite: Reposite): void {
  const { domains } = reposite;

  app.put("/app/sites/:site_id/domain", async (event) => {
    const { account } = await requireToken(reposite, event);
    return domains.set(account.id, siteId(event), await readJsonBody(event));
  });

  app.post("/app/sites/:site_id/domain/verify", async (event) => {
    const { account } = await requireToken(reposite, event);
    return domains.verify(account.id, siteId(event));
  });

  app.get("/app/sites/:site_id/domain", async (event) => {
    const { account } = await requireToken(reposite, event);
    return domains.get(account.id, siteId(event));
  });

  app.delete("/app/sites/:site_id/domain", async (event) => {
    const { account } = await requireToken(reposite, event);
    await domains.remove(account.id, siteId(event));
    event.res.status = 204;
    return null;
  });
}

/**
 * `GET /.well-known/reposite-domain` on a verified custom domain: the domain's proof, which the live
 * check of `GET …/domain` asks for through the domain's DNS. Mounted before the site runtime, which
 * answers every other path of the domain; other hosts go on untouched. From memory.
 */
export function domainProof(reposite: Reposite): Middleware {
  return (event) => {
    if (event.url.pathname !== DOMAIN_PROOF_PATH || (event.req.method !== "GET" && event.req.method !== "HEAD")) return undefined;
    const proof = reposite.domains.proofFor(hostnameOf(event.req.headers.get("host") ?? ""));
    if (proof === undefined) return undefined;
    return new Response(event.req.method === "HEAD" ? null : proof, {
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" },
    });
  };
}
