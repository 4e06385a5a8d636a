import { Resolver } from "node:dns/promises";
import type { DnsResolver } from "../ports/dns.js";

export interface NodeDnsOptions {
  /** DNS servers to ask (`1.1.1.1`, `127.0.0.1:5353`, `[::1]:53`); default: the system's. */
  servers?: string[];
  /** Milliseconds per try; default 3000. */
  timeoutMs?: number;
  /** Tries per server; default 2. */
  tries?: number;
}

/** "This name has no such record": answered as [] (NXDOMAIN is ENOTFOUND, NODATA is ENODATA). */
const NO_RECORD = new Set(["ENOTFOUND", "ENODATA"]);

/**
 * The embedded `DnsResolver`: `node:dns`'s Resolver (c-ares, real DNS queries, no hosts file), on
 * the system's servers or the ones given. DNS answers are not cached here, so a check sees a
 * record as soon as the servers do.
 */
export function createNodeDnsResolver(options: NodeDnsOptions = {}): DnsResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 3_000, tries: options.tries ?? 2 });
  if (options.servers?.length) resolver.setServers(options.servers);
  const orNone = async <T>(lookup: Promise<T[]>): Promise<T[]> => {
    try {
      return await lookup;
    } catch (error) {
      if (NO_RECORD.has((error as NodeJS.ErrnoException).code ?? "")) return [];
      throw error;
    }
  };
  return {
    resolveCname: (name) => orNone(resolver.resolveCname(name)),
    resolve4: (name) => orNone(resolver.resolve4(name)),
    resolve6: (name) => orNone(resolver.resolve6(name)),
    resolveTxt: (name) => orNone(resolver.resolveTxt(name)),
  };
}
