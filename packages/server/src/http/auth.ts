import type { Authenticated, Reposite } from "@reposite/core";
import { RepositeError } from "@reposite/core";
import type { H3Event } from "h3";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The request's bearer token as sent, or `401` when there is none. */
export function bearerSecret(event: H3Event): string {
  const header = event.req.headers.get("authorization");
  const secret = header ? BEARER.exec(header)?.[1] : undefined;
  if (!secret) {
    throw new RepositeError(401, "This call needs an API token: send the header Authorization: Bearer <token>.");
  }
  return secret;
}

/**
 * The caller behind the request's bearer token, or `401`. Asked once per request: a contract-bound
 * route authenticates before it validates (so a wrong token is `401`, not a validation error),
 * and the handler's own call then gets the same answer.
 */
export function requireToken(reposite: Reposite, event: H3Event): Promise<Authenticated> {
  const context = event.context as { authenticated?: Promise<Authenticated> };
  return (context.authenticated ??= reposite.tokens.authenticate(bearerSecret(event)));
}
