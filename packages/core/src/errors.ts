import { ERROR_CODES, type ErrorCode } from "@reposite/contract/errors";

export type { ErrorCode };

const MARKER = Symbol.for("reposite.error");

/**
 * The one error type of Reposite. Services throw it; the server turns it into
 * `{error, code}` with `status`. Extra fields (for example `attempts_left`) travel in `details`
 * and are merged into the error body. `code` is one of the contract's table (`ERROR_CODES`), so a
 * code no client knows is a type error.
 */
export class RepositeError extends Error {
  readonly [MARKER] = true;
  readonly status: number;
  readonly code: ErrorCode | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, message: string, code?: ErrorCode, details?: Record<string, unknown>) {
    super(message);
    this.name = "RepositeError";
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** Works across duplicate copies of this package, where `instanceof` would not. */
  static isInstance(value: unknown): value is RepositeError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** The error with the status the table gives `code`. */
  static of(code: ErrorCode, message: string, details?: Record<string, unknown>): RepositeError {
    return new RepositeError(ERROR_CODES[code].status, message, code, details);
  }

  toJSON(): { error: string; code?: ErrorCode } & Record<string, unknown> {
    return { ...this.details, error: this.message, ...(this.code ? { code: this.code } : {}) };
  }
}

export const badRequest = (message: string, code?: ErrorCode, details?: Record<string, unknown>) =>
  new RepositeError(400, message, code, details);
export const unauthorized = (message = "A valid API token is required.") => new RepositeError(401, message);
export const notFound = (message = "Not found.", code?: ErrorCode) => new RepositeError(404, message, code);
export const conflict = (message: string, code: ErrorCode, details?: Record<string, unknown>) =>
  new RepositeError(409, message, code, details);
export const unprocessable = (message: string, code: ErrorCode, details?: Record<string, unknown>) =>
  new RepositeError(422, message, code, details);
