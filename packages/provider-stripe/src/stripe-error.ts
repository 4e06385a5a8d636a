import { RepositeError } from "@reposite/core";
import Stripe from "stripe";

/** Scrubbed from every message: a server may echo the key it was given in its error. */
export interface ErrorContext {
  secrets: string[];
}

/**
 * Turns what the `stripe` client throws into a RepositeError, decided once here:
 * - a card refused (402 `card_error`) → 402 `payment_declined`, with Stripe's message for the person;
 * - rate limited (429) → 503 `payments_rate_limited` (try again later);
 * - the key refused (401, 403) or a request Stripe rejects (other 4xx: an unknown price, a bad
 *   parameter) → 502 `payments_rejected`: the server's configuration is to be fixed;
 * - no answer, 5xx or anything else → 502 `payments_unavailable`.
 * `doing` says what was asked (`creating a checkout session`); no message ever carries the secrets.
 */
export function toRepositeError(error: unknown, doing: string, context: ErrorContext): RepositeError {
  if (RepositeError.isInstance(error)) return error;
  const reason = redact(error instanceof Error ? error.message : String(error), context.secrets);
  const origin = `[payments] [stripe] ${doing}:`;
  if (!(error instanceof Stripe.errors.StripeError)) {
    return new RepositeError(502, `${origin} ${reason}`, "payments_unavailable");
  }
  const status = error.statusCode;
  if (error instanceof Stripe.errors.StripeConnectionError || status === undefined) {
    return new RepositeError(502, `${origin} Stripe is not reachable: ${reason}`, "payments_unavailable");
  }
  if (status === 402 || error instanceof Stripe.errors.StripeCardError) {
    return new RepositeError(402, `${origin} the payment was declined: ${reason}`, "payment_declined");
  }
  if (status === 429) {
    return new RepositeError(503, `${origin} Stripe is rate limiting requests (429), try again later: ${reason}`, "payments_rate_limited");
  }
  if (status >= 400 && status < 500) {
    const code = error.code ? ` ${error.code}` : "";
    return new RepositeError(502, `${origin} Stripe refused the request (${status}${code}): ${reason}`, "payments_rejected");
  }
  return new RepositeError(502, `${origin} Stripe failed (${status}): ${reason}`, "payments_unavailable");
}

/** True for Stripe's 404 `resource_missing`: the object asked for does not exist. */
export function isMissing(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeError && error.statusCode === 404 && error.code === "resource_missing";
}

export function redact(text: string, secrets: string[]): string {
  return secrets.filter(Boolean).reduce((out, secret) => out.split(secret).join("***"), text);
}
