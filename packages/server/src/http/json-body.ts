import { RepositeError } from "@reposite/core";
import type { H3Event } from "h3";
import { readBodyText } from "./body-text.js";

/** Default limit for API bodies; routes that take page HTML raise it. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * The request's JSON body (undefined when there is none). A body must be
 * `application/json`, fit `limit` bytes and parse; each failure has its own status and code.
 */
export async function readJsonBody(event: H3Event, limit = DEFAULT_BODY_LIMIT): Promise<unknown> {
  const request = event.req;
  const length = request.headers.get("content-length");
  if (!request.body || length === "0") return undefined;
  // Read before any answer, even one that does not need it, so the client reads that answer.
  const text = await readBodyText(event, limit);
  if (text === null) throw new RepositeError(413, `The request body is larger than ${limit} bytes.`, "body_too_large");
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new RepositeError(415, "Send the request body as JSON with Content-Type: application/json.", "unsupported_media_type");
  }
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RepositeError(400, `The request body is not valid JSON: ${(error as Error).message}`, "invalid_json");
  }
}
