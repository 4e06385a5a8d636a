import { domainGet, domainRemove, domainSet, domainVerify } from "@reposite/contract";
import { DOMAIN_PROOF_PATH, type Reposite } from "@reposite/core";
import type { H3, Middleware } from "h3";
import { requireToken } from "../http/auth.js";
import { operationRoute } from "../http/operation-route.js";
import { hostnameOf } from "../site-runtime/host-router.js";

/** A project's custom domain: connect it, check its DNS, read it (with `live`), remove it. */
export function domainRoutes(app: H3, reposite: Reposite): void {
  const { domains } = reposite;

  operationRoute(app, domainSet, async (event, { params, body }) => {
    const { account } = await requireToken(reposite, event);
    return domains.set(account.id, params.site_id, body);
  });

  operationRoute(app, domainVerify, async (event, { params }) => {
    const { account } = await requireToken(reposite, event);
    return domains.verify(account.id, params.site_id);
  });

  operationRoute(app, domainGet, async (event, { params }) => {
    const { account } = await requireToken(reposite, event);
    return domains.get(account.id, params.site_id);
  });

  operationRoute(app, domainRemove, async (event, { params }) => {
    const { account } = await requireToken(reposite, event);
    await domains.remove(account.id, params.site_id);
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
