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

/** The caller behind the request's bearer token, or `401`. */
export async function requireToken(reposite: Reposite, event: H3Event): Promise<Authenticated> {
  return reposite.tokens.authenticate(bearerSecret(event));
}
