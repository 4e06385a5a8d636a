import { RepositeError } from "@reposite/core";
import type { H3Event } from "h3";
import { readBodyText } from "./body-text.js";

/** Page forms carry a few short fields; nothing a person types comes near this. */
export const FORM_BODY_LIMIT = 64 * 1024;

/**
 * The request's `application/x-www-form-urlencoded` body (what the pages' forms send), at most
 * `limit` bytes. Other content types answer `415`; an empty body gives empty fields.
 */
export async function readFormBody(event: H3Event, limit = FORM_BODY_LIMIT): Promise<URLSearchParams> {
  const request = event.req;
  const length = request.headers.get("content-length");
  if (!request.body || length === "0") return new URLSearchParams();
  // Read before any answer, even one that does not need it, so the client reads that answer.
  const text = await readBodyText(event, limit);
  if (text === null) throw new RepositeError(413, `The form is larger than ${limit} bytes.`, "body_too_large");
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    throw new RepositeError(415, "Send the form as application/x-www-form-urlencoded.", "unsupported_media_type");
  }
  return new URLSearchParams(text);
}
