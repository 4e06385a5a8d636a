import type { Account, Reposite } from "@reposite/core";
import type { H3Event } from "h3";
import type { PageSession } from "../pages/layout.js";
import { assertCsrfToken, assertSameOrigin, currentSession, type CurrentSession } from "./browser-session.js";
import { readFormBody } from "./form-body.js";

/**
 * Marks a route as a browser page, so its errors are answered as an HTML page (see
 * error-response.ts) instead of the API's JSON. The route's `meta.page` says so too: pages are
 * not part of the API, and the contract's coverage test reads the mark to leave them out.
 */
export function pageRoute<T>(handler: (event: H3Event) => Promise<T>): ((event: H3Event) => Promise<T>) & { meta: { page: true } } {
  const route = (event: H3Event) => {
    event.context.page = true;
    return handler(event);
  };
  return Object.assign(route, { meta: { page: true as const } });
}

export const isPageRequest = (event: H3Event): boolean => event.context.page === true;

/**
 * A page's form post: refused unless it comes from this server's own pages, and, when someone is
 * signed in, unless it carries their session's CSRF token. `current` is null when signed out.
 * `limit`: the body's largest size in bytes (`FORM_BODY_LIMIT` unless the form carries a whole page).
 */
export async function readPageForm(
  reposite: Reposite,
  event: H3Event,
  limit?: number,
): Promise<{ form: URLSearchParams; current: CurrentSession | null }> {
  assertSameOrigin(event, reposite.config.baseUrl);
  const form = await readFormBody(event, limit);
  const current = await currentSession(reposite, event);
  if (current) assertCsrfToken(current, form.get("csrf"));
  return { form, current };
}

/** After a form post: GET the page that shows the result (POST-redirect-GET). */
export function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}

/** Operators (REPOSITE_OPERATORS) may open the dashboard. */
export function isOperator(reposite: Reposite, account: Account): boolean {
  return reposite.config.operatorEmails.some((email) => email.toLowerCase() === account.email);
}

/** What the page header needs to know about the signed-in person. */
export function toPageSession(reposite: Reposite, current: CurrentSession): PageSession {
  return { email: current.account.email, csrf: current.session.csrf, isOperator: isOperator(reposite, current.account) };
}
