import { isIP } from "node:net";

/**
 * Addresses no app may reach whatever the operator names: the link-local range, where cloud
 * metadata services answer (169.254.169.254). The host's own addresses and the bridge gateways
 * are refused by the INPUT rules (see app-firewall-rules.ts), whatever their address.
 */
export const ALWAYS_DENIED_CIDRS = ["169.254.0.0/16"] as const;

/**
 * Reads a comma-separated list of IPv4 ranges (`10.0.0.0/8, 192.168.1.10`) as CIDRs, a bare
 * address standing for itself (`/32`). Throws an error naming `variable` for anything else: app
 * networks are IPv4, and a range the firewall cannot read must stop the start, not be skipped.
 */
export function parseDenyCidrs(value: string, variable = "REPOSITE_APP_DENY_CIDRS"): string[] {
  const items = value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  return items.map((item) => {
    const [address = "", prefix, ...rest] = item.split("/");
    const bits = prefix === undefined ? 32 : Number(prefix);
    if (rest.length > 0 || isIP(address) !== 4 || !/^\d{1,2}$/.test(prefix ?? "32") || bits > 32) {
      throw new Error(`[reposite] ${variable} takes IPv4 addresses or ranges (10.0.0.0/8, 192.168.1.10) separated by commas, not "${item}".`);
    }
    return `${address}/${bits}`;
  });
}
