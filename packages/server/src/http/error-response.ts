import { RepositeError } from "@reposite/core";
import { HTTPError, type H3Event } from "h3";

/** Messages for statuses h3 raises itself, worded for people calling the API. */
const H3_MESSAGES: Record<number, { error: string; code: string }> = {
  400: { error: "The request is malformed.", code: "bad_request" },
  404: { error: "There is nothing at this address.", code: "not_found" },
  405: { error: "This method is not allowed here.", code: "method_not_allowed" },
  413: { error: "The request body is too large.", code: "body_too_large" },
};

/**
 * Every error leaves as JSON `{error, code?}` (plus a RepositeError's details), never h3's
 * default body. Unexpected errors are logged and answered without their internals.
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
    body = { error: "Something went wrong on our side. Try again; if it keeps happening, tell the operator.", code: "internal" };
    console.error(`[reposite] ${event.req.method} ${event.url.pathname} failed:`, cause ?? error);
  }
  const headers = new Headers({ "content-type": "application/json;charset=UTF-8", "cache-control": "no-store" });
  if (typeof body.retry_after === "number") headers.set("retry-after", String(body.retry_after));
  if (status === 401) headers.set("www-authenticate", 'Bearer realm="reposite"');
  // The rest of an oversized body is never read, so this connection cannot carry another request.
  if (status === 413) headers.set("connection", "close");
  return new Response(JSON.stringify(body), { status, headers });
}
