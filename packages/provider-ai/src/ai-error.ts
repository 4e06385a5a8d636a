import { APICallError, RetryError } from "ai";
import { RepositeError } from "@reposite/core";

/** Names the model in every error, so an operator reading a log knows which configuration failed. */
export interface ErrorContext {
  provider: string;
  modelId: string;
  /** Scrubbed from every message: a server may echo the key it was given in its error. */
  apiKey: string;
}

/**
 * Turns what the AI SDK reports into a RepositeError, decided once here by the upstream status:
 * 429 → 503 `ai_rate_limited` (try later); other 4xx → 502 `ai_rejected` (bad key, unknown model:
 * configuration to fix); no answer, 5xx or an unreadable answer → 502 `ai_unavailable`.
 */
export function toRepositeError(error: unknown, context: ErrorContext): RepositeError {
  if (RepositeError.isInstance(error)) return error;
  // After retries the SDK wraps the failures; the last one says what the server finally did.
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  const origin = `[ai] [${context.provider}] ${context.modelId}:`;
  const reason = redact(messageOf(cause), context.apiKey);

  if (APICallError.isInstance(cause) && cause.statusCode !== undefined) {
    const status = cause.statusCode;
    if (status === 429) {
      return new RepositeError(503, `${origin} the model server is rate limiting requests (429), try again later: ${reason}`, "ai_rate_limited");
    }
    if (status >= 400 && status < 500) {
      return new RepositeError(502, `${origin} the model server refused the request (${status}): ${reason}`, "ai_rejected");
    }
    return new RepositeError(502, `${origin} the model server failed (${status}): ${reason}`, "ai_unavailable");
  }
  if (APICallError.isInstance(cause)) {
    return new RepositeError(502, `${origin} the model server is not reachable: ${reason}`, "ai_unavailable");
  }
  return new RepositeError(502, `${origin} the model server's answer could not be used: ${reason}`, "ai_unavailable");
}

/**
 * The error a cancelled stream ends with: always named `AbortError`, so callers can tell
 * cancellation from failure, whatever reason the signal was aborted with.
 */
export function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  return new DOMException("The language model request was cancelled.", "AbortError");
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "ResponseAborted");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function redact(text: string, secret: string): string {
  return secret ? text.split(secret).join("***") : text;
}
