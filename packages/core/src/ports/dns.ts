import type { InjectionToken } from "tsyringe";

/**
 * Looks names up in DNS, for checking a custom domain. The embedded default is `node:dns`'s
 * Resolver (the system's servers, or the ones the operator names); tests point it at a DNS server
 * on loopback. Each method answers `[]` for a name with no such record (NXDOMAIN, NODATA) and
 * rejects only when DNS itself cannot be asked.
 */
export interface DnsResolver {
  resolveCname(name: string): Promise<string[]>;
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
  resolveTxt(name: string): Promise<string[][]>;
}

export const DNS_RESOLVER: InjectionToken<DnsResolver> = Symbol.for("reposite.DnsResolver");
