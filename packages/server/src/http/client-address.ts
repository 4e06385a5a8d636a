import { getRequestIP, type H3Event } from "h3";

/**
 * The caller's address, for rate limits. `X-Forwarded-For` is believed only when the operator
 * says a proxy they control sets it (REPOSITE_TRUST_PROXY), since clients can send it too.
 */
export function clientAddress(event: H3Event, trustProxy: boolean): string {
  return getRequestIP(event, { xForwardedFor: trustProxy }) ?? "unknown";
}

/**
 * The same rule on a node:http request, for the node-level `/app/` proxy: the first address of
 * `X-Forwarded-For` when the operator trusts the proxy in front, else the socket's peer.
 */
export function nodeClientAddress(forwardedFor: string | undefined, socketAddress: string | undefined, trustProxy: boolean): string {
  if (trustProxy && forwardedFor) {
    const first = forwardedFor.split(",")[0]!.trim();
    if (first) return first;
  }
  return socketAddress ?? "unknown";
}
