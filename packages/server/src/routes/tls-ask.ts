import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { tlsAsk, type TlsAskKind } from "@reposite/contract";
import { isValidSlug, RepositeError, type Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { operationRoute } from "../http/operation-route.js";
import { hostnameOf } from "../site-runtime/host-router.js";

/** Longest DNS name (RFC 1035), without the trailing dot. */
const MAX_NAME = 253;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The "ask" endpoint of a TLS terminator with on-demand certificates (Caddy's `on_demand_tls { ask }`
 * sends `GET /tls/ask?domain=<name>` before it gets a certificate during a handshake). 200 means yes:
 * a verified custom domain, `<slug>.<sites domain>` of a published site, or the service's own host;
 * everything else is 404, so nobody can make the server request certificates for names it does not
 * serve (and spend the CA's rate limits). It needs no token: it tells no more than DNS and the sites
 * themselves do. Custom domains are answered from memory; site addresses from the published-site
 * cache, which remembers unknown slugs, so a flood of made-up names costs little.
 */
export function tlsAskRoutes(app: H3, reposite: Reposite): void {
  const { config, domainTable, siteCache } = reposite;
  const sitesDomain = hostnameOf(config.sitesDomain);
  const serviceHost = hostnameOf(new URL(config.baseUrl).host);

  const kindOf = async (name: string): Promise<TlsAskKind | null> => {
    if (domainTable.isVerified(name)) return "custom_domain";
    if (name === serviceHost) return "service";
    if (name.endsWith(`.${sitesDomain}`)) {
      const slug = name.slice(0, -sitesDomain.length - 1);
      if (!isValidSlug(slug)) return null;
      try {
        return (await siteCache.get(slug)) ? "site_address" : null;
      } catch {
        // Storage did not answer: no certificate now (Caddy asks again on a later handshake).
        throw new RepositeError(503, "Published sites cannot be read right now; ask again shortly.", "storage_unavailable");
      }
    }
    return null;
  };

  operationRoute(app, tlsAsk, async (_event, { query }) => {
    const name = askedName(query.domain ?? null);
    const kind = await kindOf(name);
    if (!kind) throw new RepositeError(404, `No certificate is issued for ${name}: it is no verified custom domain or published site here.`, "certificate_not_allowed");
    return { allowed: true as const, domain: name, kind };
  });
}

/**
 * The asked name as the tables keep names: lower case, ASCII (punycode), no trailing dot. Missing or
 * malformed is 400; an IP address is a well-formed question whose answer is no (404).
 */
function askedName(raw: string | null): string {
  if (raw === null || raw.trim() === "") throw new RepositeError(400, "Give the name to check as ?domain=<name>.", "domain_required");
  const trimmed = raw.trim().toLowerCase().replace(/\.$/, "");
  if (isIP(trimmed) || isIP(trimmed.replace(/^\[(.*)\]$/, "$1"))) {
    throw new RepositeError(404, "No certificate is issued for an IP address.", "certificate_not_allowed");
  }
  // Non-ASCII names (a person typing the URL by hand) become punycode; domainToASCII answers "" for what is no name.
  const name = /^[\x00-\x7f]*$/.test(trimmed) ? trimmed : domainToASCII(trimmed);
  if (!name || name.length > MAX_NAME || !name.split(".").every((label) => LABEL.test(label))) {
    throw new RepositeError(400, "The domain is not a valid host name.", "invalid_domain");
  }
  return name;
}
