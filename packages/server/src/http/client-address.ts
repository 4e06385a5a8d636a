import { getRequestIP, type H3Event } from "h3";

/**
 * The caller's address, for rate limits. `X-Forwarded-For` is believed only when the operator
 * says a proxy they control sets it (REPOSITE_TRUST_PROXY), since clients can send it too.
 */
export function clientAddress(event: H3Event, trustProxy: boolean): string {
  return getRequestIP(event, { xForwardedFor: trustProxy }) ?? "unknown";
}
