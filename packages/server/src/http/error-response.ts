import { isErrorCode, statusesOf, type ErrorCode } from "@reposite/contract";
import { RepositeError } from "@reposite/core";
import { HTTPError, type H3Event } from "h3";
import { errorPage } from "../pages/error-page.js";
import { pageResponse } from "../pages/layout.js";
import { checkAnswers } from "./operation-route.js";
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
  if (checkAnswers()) ({ status, body } = checkedAgainstTable(status, body));
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

/**
 * Where answers are being proved (REPOSITE_CHECK_ANSWERS=1, see operation-route.ts): an error
 * whose code is not in the contract's table, or comes with a status the table does not give it,
 * is answered `500 answer_mismatch` instead, so the test that caused it fails.
 */
function checkedAgainstTable(status: number, body: Record<string, unknown>): { status: number; body: Record<string, unknown> } {
  const code = body.code;
  if (code === undefined) return { status, body };
  const why = !isErrorCode(code)
    ? `the code ${JSON.stringify(code)} is not in the contract's table (packages/contract/src/errors.ts)`
    : !statusesOf(code).includes(status)
      ? `${code} is answered with ${statusesOf(code).join("/")} in the contract's table, not ${status}`
      : undefined;
  if (!why) return { status, body };
  console.error(`[reposite] an error answer against the contract: ${why}`);
  return { status: 500, body: { error: `An error answer against the contract: ${why}.`, code: "answer_mismatch" satisfies ErrorCode } };
}
