import {
  APIConnectionError,
  AuthenticationError,
  NotFoundError,
  PaymentRequiredError,
  RepositeAPIError,
  RepositeSDKError,
} from "@reposite/sdk";

/**
 * What the process's exit code means. Few and stable: scripts and agents branch on them.
 * Documented in `reposite --help` (EXIT_CODES_HELP) and the package README.
 */
export const EXIT = {
  ok: 0,
  /** The API refused the call (4xx/5xx not listed below), or a generation or deploy failed. */
  failed: 1,
  /** The command line is wrong: unknown command or option, missing argument, bad value. */
  usage: 2,
  /** Not logged in, or the server refused the token (401). */
  notLoggedIn: 3,
  /** The site (or another thing named) does not exist, or is someone else's (404). */
  notFound: 4,
  /** The feature is not paid for yet (402). */
  paymentRequired: 5,
  /** The server could not be reached, or did not answer in time. */
  unreachable: 6,
} as const;

export const EXIT_CODES_HELP = `EXIT CODES

  0  done
  1  failed: the API refused the call, or the generation or deploy failed
  2  wrong command line (unknown command or option, missing argument)
  3  not logged in, or the token was refused (401)
  4  not found: no such site, or not yours (404)
  5  payment required (402)
  6  the server could not be reached or did not answer in time`;

/** A failure the CLI itself reports; `code` is what `--json` prints. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
    readonly code: string = "failed",
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** A wrong command line: the usage of the command follows the message. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage, "usage");
  }
}

/** What any error means for the person or program that ran the command. */
export interface Failure {
  message: string;
  exitCode: number;
  code: string;
  status: number | null;
}

export function failureOf(error: unknown): Failure {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode, code: error.code, status: error.status };
  if (RepositeAPIError.isInstance(error)) {
    const exitCode = AuthenticationError.isInstance(error)
      ? EXIT.notLoggedIn
      : NotFoundError.isInstance(error)
        ? EXIT.notFound
        : PaymentRequiredError.isInstance(error)
          ? EXIT.paymentRequired
          : EXIT.failed;
    const hint = AuthenticationError.isInstance(error) ? " Log in again: reposite login." : "";
    return { message: `${error.message}${hint}`, exitCode, code: error.code ?? `http_${error.status}`, status: error.status };
  }
  if (APIConnectionError.isInstance(error)) return { message: error.message, exitCode: EXIT.unreachable, code: "unreachable", status: null };
  if (RepositeSDKError.isInstance(error)) return { message: error.message, exitCode: EXIT.failed, code: "failed", status: null };
  return { message: (error as Error)?.message ?? String(error), exitCode: EXIT.failed, code: "internal", status: null };
}
