import { BlockList, isIP } from "node:net";

/** A DNS provider that can answer a name with its own proxy's addresses, and what to tell the person. */
export interface DnsProxy {
  name: string;
  /** What to switch off, in the provider's words. */
  fix: string;
  ranges: string[];
}

/**
 * DNS providers whose "proxied" records answer with the provider's own addresses: the name then
 * does not point to this service, HTTP-01 certificates cannot be issued and the check cannot see
 * the records behind. Cloudflare's ranges as it publishes them at https://www.cloudflare.com/ips/
 * (they change rarely; add a provider here with its published ranges).
 */
export const DNS_PROXIES: readonly DnsProxy[] = [
  {
    name: "Cloudflare",
    fix: "set the record to DNS only (the grey cloud) in Cloudflare's DNS settings",
    ranges: [
      "173.245.48.0/20",
      "103.21.244.0/22",
      "103.22.200.0/22",
      "103.31.4.0/22",
      "141.101.64.0/18",
      "108.162.192.0/18",
      "190.93.240.0/20",
      "188.114.96.0/20",
      "197.234.240.0/22",
      "198.41.128.0/17",
      "162.158.0.0/15",
      "104.16.0.0/13",
      "104.24.0.0/14",
      "172.64.0.0/13",
      "131.0.72.0/22",
      "2400:cb00::/32",
      "2606:4700::/32",
      "2803:f800::/32",
      "2405:b500::/32",
      "2405:8100::/32",
      "2a06:98c0::/29",
      "2c0f:f248::/32",
    ],
  },
];

const lists = DNS_PROXIES.map((proxy) => {
  const list = new BlockList();
  for (const range of proxy.ranges) {
    const [network, bits] = range.split("/") as [string, string];
    list.addSubnet(network, Number(bits), isIP(network) === 6 ? "ipv6" : "ipv4");
  }
  return { proxy, list };
});

/** The proxying DNS provider an address belongs to, or null. */
export function dnsProxyOf(address: string): DnsProxy | null {
  const family = isIP(address);
  if (family === 0) return null;
  return lists.find(({ list }) => list.check(address, family === 6 ? "ipv6" : "ipv4"))?.proxy ?? null;
}
