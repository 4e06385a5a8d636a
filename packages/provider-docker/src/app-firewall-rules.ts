/**
 * The iptables rules that keep an app's bridge network away from the host, the other apps and the
 * denied ranges. Pure: names and `iptables-restore` text, applied by app-firewall.ts.
 *
 * Two paths need rules, because packets to the host itself never pass `DOCKER-USER`:
 * - FORWARD (through `DOCKER-USER` → `REPOSITE-APPS`): what an app sends elsewhere. Other Docker
 *   networks and the denied ranges are refused; the internet is left to Docker's own rules.
 * - INPUT (through `REPOSITE-APPS-INPUT`): what an app sends to any address of the host (the
 *   bridge gateway, the host's own addresses, other bridges' gateways). All of it is refused.
 * Both let replies through (conntrack ESTABLISHED,RELATED), so the published port, the health
 * check and `/app/` still reach the app, and what the app opened itself still gets answers.
 */

/** Jumped to from `DOCKER-USER`: one jump per app network, to that network's own chain. */
export const FORWARD_CHAIN = "REPOSITE-APPS";
/** Jumped to from `INPUT`: one jump per app network, to that network's own chain. */
export const INPUT_CHAIN = "REPOSITE-APPS-INPUT";
/** The chains Docker and the kernel own that the two above hang from. */
export const DOCKER_USER_CHAIN = "DOCKER-USER";
export const KERNEL_INPUT_CHAIN = "INPUT";

const NETWORK_CHAIN = /^REPOSITE-(FWD|IN)-([0-9a-f]{12})$/;
/** ICMP "administratively prohibited": a refused connection fails at once instead of hanging. */
const REFUSE = ["-j", "REJECT", "--reject-with", "icmp-admin-prohibited"];
const REPLIES = ["-m", "conntrack", "--ctstate", "RELATED,ESTABLISHED"];

/** One app network as the firewall sees it. */
export interface AppBridge {
  /** The Docker network id (64 hex digits, or at least its first 12). */
  networkId: string;
  /** The bridge interface on the host, `br-<first 12 of the id>` unless the network names one. */
  bridge: string;
}

/** Chain names hold the id's first 12 hex digits (iptables allows 28 characters). */
const shortId = (networkId: string) => networkId.slice(0, 12).toLowerCase();
export const forwardChainOf = (networkId: string) => `REPOSITE-FWD-${shortId(networkId)}`;
export const inputChainOf = (networkId: string) => `REPOSITE-IN-${shortId(networkId)}`;

/** The short network ids of the per-network chains in `iptables -S` output. */
export function networkIdsInRules(listing: string): string[] {
  const ids = new Set<string>();
  for (const line of listing.split("\n")) {
    const chain = /^-N (\S+)$/.exec(line.trim())?.[1];
    const id = chain ? NETWORK_CHAIN.exec(chain)?.[2] : undefined;
    if (id) ids.add(id);
  }
  return [...ids];
}

/** The jumps from the two Reposite chains to one network's chains, as `iptables` arguments. */
export function jumpsOf({ networkId, bridge }: AppBridge): { chain: string; rule: string[] }[] {
  return [
    { chain: FORWARD_CHAIN, rule: ["-i", bridge, "-j", forwardChainOf(networkId)] },
    { chain: INPUT_CHAIN, rule: ["-i", bridge, "-j", inputChainOf(networkId)] },
  ];
}

/**
 * `iptables-restore --noflush` input that (re)writes one network's two chains whole: declaring a
 * chain empties it, and the table is swapped at COMMIT, so a rewrite never leaves a gap.
 */
export function networkChainsRestore({ networkId, bridge }: AppBridge, denyCidrs: readonly string[]): string {
  const forward = forwardChainOf(networkId);
  const input = inputChainOf(networkId);
  const line = (chain: string, ...args: string[]) => ["-A", chain, ...args].join(" ");
  return [
    "*filter",
    `:${forward} - [0:0]`,
    `:${input} - [0:0]`,
    line(forward, ...REPLIES, "-j", "RETURN"),
    // Its own network first: a denied range may hold Docker's own subnets.
    line(forward, "-o", bridge, "-j", "RETURN"),
    // Other apps and every other Docker network (Docker's isolation says the same; this holds
    // even when the operator's own rules change it).
    line(forward, "-o", "br-+", ...REFUSE),
    line(forward, "-o", "docker0", ...REFUSE),
    ...denyCidrs.map((cidr) => line(forward, "-d", cidr, ...REFUSE)),
    line(input, ...REPLIES, "-j", "RETURN"),
    line(input, ...REFUSE),
    "COMMIT",
    "",
  ].join("\n");
}
