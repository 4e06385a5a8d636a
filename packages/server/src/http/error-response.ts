import type { ErrorCode } from "@reposite/contract";
import { RepositeError } from "@reposite/core";
import { HTTPError, type H3Event } from "h3";
import { errorPage } from "../pages/error-page.js";
import { pageResponse } from "../pages/layout.js";
import { isPageRequest } from "./page-route.js";

/** Messages for statuses h3 raises itself, worded for people calling the API. */
const H3_MESSAGES: Record<number, { error: string; code: ErrorCode }> = {
  400: { error: "The request is malformed.", code: "bad_request" },
  404: { error: "There is nothing at this address.", code: "not_found" },
  405: { error: "This method is not allowed here.", code: "method_not_allowed" },
  413: { error: "The request body is too large.", code: "body_too_large" },
};

/**
 * Every error leaves as JSON `{error, code?}` (plus a RepositeError's details), never h3's
 * default body. Unexpected errors are logged and answered without their internals. Errors of
 * browser pages (routes marked by `pageRoute`) are the same words as an HTML page, unless the
 * request carries an Authorization header: that is a program, and it gets the JSON.
 */
export function errorResponse(error: HTTPError, event: H3Event): Response {
  const cause = error.cause;
  let status: number;
  let body: Record<string, unknown>;
  if (RepositeError.isInstance(cause)) {
    status = cause.status;
    body = cause.toJSON();
  } else if (!error.unhandled && error.status < 500) {
    status = error.status;
    body = H3_MESSAGES[status] ?? { error: error.message };
  } else {
    status = 500;
    body = { error: "Something went wrong on our side. Try again; if it keeps happening, tell the operator.", code: "internal" satisfies ErrorCode };
    console.error(`[reposite] ${event.req.method} ${event.url.pathname} failed:`, cause ?? error);
  }
  const extra: Record<string, string> = {};
  if (typeof body.retry_after === "number") extra["retry-after"] = String(body.retry_after);
  if (status === 401) extra["www-authenticate"] = 'Bearer realm="reposite"';
  // An oversized body is read only so far (see readBodyText): the connection cannot carry another request.
  if (status === 413) extra["connection"] = "close";
  if (isPageRequest(event) && !event.req.headers.has("authorization")) {
    const code = typeof body.code === "string" ? body.code : undefined;
    return pageResponse(errorPage({ status, message: String(body.error), code }), status, extra);
  }
  const headers = new Headers({ "content-type": "application/json;charset=UTF-8", "cache-control": "no-store", ...extra });
  return new Response(JSON.stringify(body), { status, headers });
}
