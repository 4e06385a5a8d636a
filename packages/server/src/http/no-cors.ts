import { RepositeError } from "@reposite/core";
import type { H3Event } from "h3";

/**
 * The API is for servers, terminals and CI jobs; browsers on other origins are kept out on
 * purpose. No CORS header is ever sent, and preflight requests are refused outright.
 */
export function refusePreflight(event: H3Event): void {
  const isPreflight =
    event.req.method === "OPTIONS" && event.req.headers.has("origin") && event.req.headers.has("access-control-request-method");
  if (isPreflight) {
    throw new RepositeError(403, "Cross-origin requests are not allowed. Call the API from a server, a terminal or a CI job.", "cors_refused");
  }
}
