import type { ErrorCode } from "./error-codes.js";
import type { ApiErrorBody } from "./types.js";

/*
 * Every class carries its own `Symbol.for` marker, and `isInstance` checks for it: unlike
 * `instanceof`, that works when an application ends up with two copies of this package.
 * (Written out one by one: `Symbol.for(...)` assigned to a const is a `unique symbol` type,
 * which class members keyed by it need.)
 */
const hasMarker = (value: unknown, symbol: symbol): boolean =>
  typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[symbol] === true;

const SDK_ERROR = Symbol.for("@reposite/sdk.RepositeSDKError");
const API_ERROR = Symbol.for("@reposite/sdk.RepositeAPIError");
const BAD_REQUEST = Symbol.for("@reposite/sdk.BadRequestError");
const AUTHENTICATION = Symbol.for("@reposite/sdk.AuthenticationError");
const PAYMENT_REQUIRED = Symbol.for("@reposite/sdk.PaymentRequiredError");
const PERMISSION_DENIED = Symbol.for("@reposite/sdk.PermissionDeniedError");
const NOT_FOUND = Symbol.for("@reposite/sdk.NotFoundError");
const CONFLICT = Symbol.for("@reposite/sdk.ConflictError");
const GONE = Symbol.for("@reposite/sdk.GoneError");
const UNPROCESSABLE = Symbol.for("@reposite/sdk.UnprocessableEntityError");
const RATE_LIMIT = Symbol.for("@reposite/sdk.RateLimitError");
const INTERNAL = Symbol.for("@reposite/sdk.InternalServerError");
const CONNECTION = Symbol.for("@reposite/sdk.APIConnectionError");
const TIMEOUT = Symbol.for("@reposite/sdk.APIConnectionTimeoutError");
const USER_ABORT = Symbol.for("@reposite/sdk.APIUserAbortError");

/** Every error this SDK throws; also thrown as is for calls it refuses to send (for example an empty id). */
export class RepositeSDKError extends Error {
  private readonly [SDK_ERROR] = true;
  override name = "RepositeSDKError";

  static isInstance(value: unknown): value is RepositeSDKError {
    return hasMarker(value, SDK_ERROR);
  }
}

/** The API answered with an error status. Subclasses tell the common statuses apart. */
export class RepositeAPIError extends RepositeSDKError {
  private readonly [API_ERROR] = true;
  override name = "RepositeAPIError";
  /** The HTTP status. */
  readonly status: number;
  /**
   * The body's machine-readable `code`, when it has one (for example `payment_required`): tells
   * apart errors of one status. Known codes are listed in `ApiErrorCode`.
   */
  readonly code: ErrorCode | undefined;
  /** The error body; undefined when the answer was not a JSON object (a proxy's HTML page, say). */
  readonly body: ApiErrorBody | undefined;
  /** The response headers (`retry-after` and the like). */
  readonly headers: Headers;

  constructor(status: number, message: string, body: ApiErrorBody | undefined, headers: Headers) {
    super(message);
    this.status = status;
    this.body = body;
    this.code = typeof body?.code === "string" ? body.code : undefined;
    this.headers = headers;
  }

  static override isInstance(value: unknown): value is RepositeAPIError {
    return hasMarker(value, API_ERROR);
  }
}

/** 400: the request is malformed, or a value is wrong (`invalid_code`, `invalid_units`, …). */
export class BadRequestError extends RepositeAPIError {
  private readonly [BAD_REQUEST] = true;
  override name = "BadRequestError";
  static override isInstance(value: unknown): value is BadRequestError {
    return hasMarker(value, BAD_REQUEST);
  }
}

/** 401: the token is missing, wrong, expired or revoked. */
export class AuthenticationError extends RepositeAPIError {
  private readonly [AUTHENTICATION] = true;
  override name = "AuthenticationError";
  static override isInstance(value: unknown): value is AuthenticationError {
    return hasMarker(value, AUTHENTICATION);
  }
}

/** 402 `payment_required`: a paid feature that is not paid for yet. */
export class PaymentRequiredError extends RepositeAPIError {
  private readonly [PAYMENT_REQUIRED] = true;
  override name = "PaymentRequiredError";
  static override isInstance(value: unknown): value is PaymentRequiredError {
    return hasMarker(value, PAYMENT_REQUIRED);
  }
}

/** 403: refused (`denied`), or only a browser session may do this (`session_required`). */
export class PermissionDeniedError extends RepositeAPIError {
  private readonly [PERMISSION_DENIED] = true;
  override name = "PermissionDeniedError";
  static override isInstance(value: unknown): value is PermissionDeniedError {
    return hasMarker(value, PERMISSION_DENIED);
  }
}

/** 404: not there, or it belongs to another account (the API does not tell the two apart). */
export class NotFoundError extends RepositeAPIError {
  private readonly [NOT_FOUND] = true;
  override name = "NotFoundError";
  static override isInstance(value: unknown): value is NotFoundError {
    return hasMarker(value, NOT_FOUND);
  }
}

/** 409: the state does not allow it now (`token_limit`, `quota_reached`, `not_opened`, …). */
export class ConflictError extends RepositeAPIError {
  private readonly [CONFLICT] = true;
  override name = "ConflictError";
  static override isInstance(value: unknown): value is ConflictError {
    return hasMarker(value, CONFLICT);
  }
}

/** 410 `expired`: a login request that expired, was used, or had too many wrong codes. */
export class GoneError extends RepositeAPIError {
  private readonly [GONE] = true;
  override name = "GoneError";
  static override isInstance(value: unknown): value is GoneError {
    return hasMarker(value, GONE);
  }
}

/** 422: the input is understood but not acceptable (`invalid_request`, `invalid_repo_url`, …). */
export class UnprocessableEntityError extends RepositeAPIError {
  private readonly [UNPROCESSABLE] = true;
  override name = "UnprocessableEntityError";
  static override isInstance(value: unknown): value is UnprocessableEntityError {
    return hasMarker(value, UNPROCESSABLE);
  }
}

/** 429: a limit was reached (`rate_limited`, `generation_limit`, `build_limit`); try later. */
export class RateLimitError extends RepositeAPIError {
  private readonly [RATE_LIMIT] = true;
  override name = "RateLimitError";
  /**
   * Seconds to wait before trying again, from the `Retry-After` header (seconds or a date) or the
   * body's `retry_after`; undefined when the server did not say.
   */
  readonly retryAfter: number | undefined;

  constructor(...args: ConstructorParameters<typeof RepositeAPIError>) {
    super(...args);
    this.retryAfter = secondsToWait(this.headers.get("retry-after")) ?? secondsToWait(this.body?.retry_after);
  }
  static override isInstance(value: unknown): value is RateLimitError {
    return hasMarker(value, RATE_LIMIT);
  }
}

/** 500 and above: the server (or a gateway in front of it) failed. */
export class InternalServerError extends RepositeAPIError {
  private readonly [INTERNAL] = true;
  override name = "InternalServerError";
  static override isInstance(value: unknown): value is InternalServerError {
    return hasMarker(value, INTERNAL);
  }
}

/** No answer: the server could not be reached, or the connection broke. `cause` holds the network error. */
export class APIConnectionError extends RepositeSDKError {
  private readonly [CONNECTION] = true;
  override name = "APIConnectionError";
  static override isInstance(value: unknown): value is APIConnectionError {
    return hasMarker(value, CONNECTION);
  }
}

/** No answer within the `timeout`. */
export class APIConnectionTimeoutError extends APIConnectionError {
  private readonly [TIMEOUT] = true;
  override name = "APIConnectionTimeoutError";
  static override isInstance(value: unknown): value is APIConnectionTimeoutError {
    return hasMarker(value, TIMEOUT);
  }
}

/** The caller's `signal` aborted the request. */
export class APIUserAbortError extends RepositeSDKError {
  private readonly [USER_ABORT] = true;
  override name = "APIUserAbortError";
  static override isInstance(value: unknown): value is APIUserAbortError {
    return hasMarker(value, USER_ABORT);
  }
}

type APIErrorClass = new (...args: ConstructorParameters<typeof RepositeAPIError>) => RepositeAPIError;

const ERROR_BY_STATUS: Record<number, APIErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/**
 * The error for an error answer. `data` is the body as parsed (an object for JSON, a string
 * otherwise); the message is the body's `error`, or a short description when there is none.
 * @internal
 */
export function errorFromResponse(status: number, statusText: string, data: unknown, headers: Headers): RepositeAPIError {
  const body = isErrorBody(data) ? data : undefined;
  const message = body ? body.error : describe(status, statusText, data);
  const ErrorClass = status >= 500 ? InternalServerError : (ERROR_BY_STATUS[status] ?? RepositeAPIError);
  return new ErrorClass(status, message, body, headers);
}

function secondsToWait(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined;
  const text = typeof value === "string" ? value.trim() : "";
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function isErrorBody(data: unknown): data is ApiErrorBody {
  return typeof data === "object" && data !== null && !Array.isArray(data) && typeof (data as ApiErrorBody).error === "string";
}

/** For answers that are not the API's JSON: status, reason, and the text when it is short plain text. */
function describe(status: number, statusText: string, data: unknown): string {
  const head = `${status}${statusText ? ` ${statusText}` : ""}`;
  const text = typeof data === "string" ? data.trim().replace(/\s+/g, " ") : "";
  // HTML error pages of proxies say nothing a person can act on, and are long.
  if (!text || text.startsWith("<")) return `${head} (the server sent no error message)`;
  return `${head}: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}
