import { inspect } from "node:util";

/**
 * For the server program only (`reposite serve`), not for an embedder's process: an error nobody
 * expected (thrown in a callback, a rejected promise nobody awaited) is logged with its stack and
 * the process exits 1 instead of serving on in a state nobody checked, whatever Node's
 * `--unhandled-rejections` mode. A supervisor starts it again (docs/deploy/systemd.md); sites and
 * apps come back as after a `kill -9`.
 */
export function exitOnUnexpectedErrors(log: (line: string) => void): void {
  const fail = (error: unknown, origin: string) => {
    log(`[reposite] unexpected error (${origin}); exiting so that a supervisor starts the server again:\n${inspect(error)}`);
    process.exit(1);
  };
  process.on("uncaughtException", (error, origin) => fail(error, origin));
  process.on("unhandledRejection", (reason) => fail(reason, "unhandledRejection"));
}
