import { EdgeRouteTable, type Reposite } from "@reposite/core";

/**
 * Which site a request's `Host` names. `<slug>.<sitesDomain>` is the project's site; the API's own
 * host and everything else fall through to the API and the browser pages. Custom domains plug in
 * as `hostResolvers`: small synchronous lookups (a map the domains service keeps in memory),
 * because this runs for every request and must never wait for storage.
 */

/** A custom host name (lower case, no port, no trailing dot) -> the slug it serves, or undefined when it is not one. */
export type HostResolver = (hostname: string) => string | undefined;

export interface HostRouterOptions {
  /** Domain the sites live under, as configured (`sites.example.com`, `localhost:3000`); its port is ignored. */
  sitesDomain: string;
  /** The API's public address (`baseUrl`): its host is never a site, even when it sits under `sitesDomain`. */
  baseUrl?: string;
  /** Asked, in order, about hosts that are not under `sitesDomain` (custom domains). */
  hostResolvers?: readonly HostResolver[];
}

/**
 * A `Host` header -> the slug it names, or null when the request is not for a site. The label
 * under the sites domain is answered as it is, even when it is no valid slug (`a.b`, `-x`): the
 * request is still for a site host, which answers "no site here" rather than the API.
 */
export type HostRouter = (host: string | null | undefined) => string | null;

/**
 * The resolvers a caller gave, else the composition's route table (`EdgeRouteTable.customDomain`,
 * verified custom domains only, the same names nginx is configured with): every entry point
 * (createApp, siteNodeHandler, createAppProxy) routes a verified custom domain without being told.
 */
export function hostResolversFor(reposite: Pick<Reposite, "container">, given: readonly HostResolver[] | undefined): readonly HostResolver[] {
  return given ?? [reposite.container.resolve(EdgeRouteTable).customDomain];
}

/** Hosts are remembered up to this many (a client can send any Host, so memory stays bounded). */
const MEMO_LIMIT = 1024;

/** Host name of a Host header or a configured domain: lower case, without port and trailing dot. */
export function hostnameOf(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith("[")) {
    // IPv6 literal: [::1]:3000
    const end = name.indexOf("]");
    name = end === -1 ? name : name.slice(0, end + 1);
  } else {
    const colon = name.indexOf(":");
    if (colon !== -1) name = name.slice(0, colon);
  }
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

export function createHostRouter(options: HostRouterOptions): HostRouter {
  const domain = hostnameOf(options.sitesDomain);
  const suffix = `.${domain}`;
  const apiHost = options.baseUrl ? hostnameOf(new URL(options.baseUrl).host) : undefined;
  const resolvers = options.hostResolvers ?? [];
  /**
   * Host header -> what the built-in rule says: a slug, null (not a site), or the host name to ask
   * the resolvers about. Only the built-in rule's answers are remembered: a custom domain's answer
   * changes while the process runs (verified, removed), so resolvers are asked every time.
   */
  const memo = new Map<string, string | null | { custom: string }>();

  const builtIn = (host: string): string | null | { custom: string } => {
    const name = hostnameOf(host);
    if (!name || name === apiHost || name === domain) return null;
    if (name.endsWith(suffix)) return name.slice(0, -suffix.length);
    return resolvers.length > 0 ? { custom: name } : null;
  };

  const custom = (name: string): string | null => {
    for (const resolver of resolvers) {
      const slug = resolver(name);
      if (slug !== undefined) return slug;
    }
    return null;
  };

  return (host) => {
    if (!host) return null;
    let known = memo.get(host);
    if (known === undefined) {
      known = builtIn(host);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(host, known);
    }
    return known === null || typeof known === "string" ? known : custom(known.custom);
  };
}
