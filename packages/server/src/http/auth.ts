import type { Authenticated, Reposite } from "@reposite/core";
import { RepositeError } from "@reposite/core";
import type { H3Event } from "h3";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The caller behind the request's bearer token, or `401`. */
export async function requireToken(reposite: Reposite, event: H3Event): Promise<Authenticated> {
  const header = event.req.headers.get("authorization");
  const secret = header ? BEARER.exec(header)?.[1] : undefined;
  if (!secret) {
    throw new RepositeError(401, "This call needs an API token: send the header Authorization: Bearer <token>.");
  }
  return reposite.tokens.authenticate(secret);
}
