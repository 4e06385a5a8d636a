/** What a retry decision needs to know about the request. */
export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Methods that may be sent twice without doing the work twice. */
const IDEMPOTENT = new Set<HttpMethod>(["GET", "HEAD", "PUT", "PATCH", "DELETE"]);

/** Statuses that say "this attempt did not happen; try again". */
const RETRY_STATUSES = new Set([408, 429, 502, 503, 504]);

/**
 * Network error codes that prove the request never reached the server: the connection was
 * refused, or the host name did not resolve. Only these make resending a POST safe.
 */
const NEVER_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"]);

/** Longest wait a `retry-after` may ask for; a longer one is not waited for at all. */
export const MAX_RETRY_AFTER_MS = 60_000;
const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/**
 * Whether an error status is worth another attempt. A POST is resent only on 429, which
 * means the server refused to start the work.
 */
export function isRetryableStatus(method: HttpMethod, status: number): boolean {
  if (IDEMPOTENT.has(method)) return RETRY_STATUSES.has(status);
  return status === 429;
}

/**
 * Whether a request that got no answer is worth another attempt. A POST is resent only when
 * the error proves it was never sent, because otherwise the server may have acted on it.
 */
export function isRetryableFailure(method: HttpMethod, cause: unknown): boolean {
  if (IDEMPOTENT.has(method)) return true;
  return networkErrorCodes(cause).some((code) => NEVER_SENT_CODES.has(code));
}

/**
 * Milliseconds to wait before retry number `attempt` (0 for the first retry): what `retry-after`
 * asks (seconds or an HTTP date), else exponential backoff from 0.5 s with up to 25 % jitter.
 * Null when `retry-after` asks for more than a minute: that limit will not lift soon enough.
 */
export function retryDelay(attempt: number, retryAfter: string | null, now = Date.now()): number | null {
  const asked = parseRetryAfter(retryAfter, now);
  if (asked !== undefined) return asked > MAX_RETRY_AFTER_MS ? null : asked;
  const backoff = Math.min(INITIAL_BACKOFF_MS * 2 ** attempt, MAX_BACKOFF_MS);
  return Math.round(backoff * (1 - Math.random() * 0.25));
}

function parseRetryAfter(value: string | null, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** `code`s along an error's `cause` chain, including each error of an AggregateError (Happy Eyeballs). */
export function networkErrorCodes(error: unknown): string[] {
  const codes: string[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown): void => {
    if (typeof value !== "object" || value === null || seen.has(value)) return;
    seen.add(value);
    const { code, cause, errors } = value as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === "string") codes.push(code);
    visit(cause);
    if (Array.isArray(errors)) errors.forEach(visit);
  };
  visit(error);
  return codes;
}
