import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Whether an address is on the public internet: not loopback, private, link-local (cloud metadata
 * at 169.254.169.254), unique-local, multicast, reserved or unspecified. IPv4-mapped IPv6 addresses
 * are judged as the IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === "unicast";
}

/**
 * A DNS lookup for `http.request` that refuses names resolving to any address that is not public,
 * so a URL a user gives cannot make the server call itself or its private network. The check is on
 * the addresses the connection then uses, so a name cannot pass it and later resolve elsewhere.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  const all = (options as LookupAllOptions).all === true;
  dnsLookup(hostname, { ...(options as LookupOneOptions), all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 0);
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused || addresses.length === 0) {
      const failure = Object.assign(new Error(`${hostname} resolves to ${refused?.address ?? "no address"}, which is not on the public internet.`), { code: "EPRIVATEADDRESS" });
      return callback(failure, "", 0);
    }
    if (all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/** An IP literal in a URL's host (`[::1]` included) is connected to without a lookup: judge it here. */
export function isPrivateLiteralHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, "");
  return isIP(bare) !== 0 && !isPublicAddress(bare);
}
