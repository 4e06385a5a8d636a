import { RepositeError } from "../../errors.js";
import type { ContainerState } from "../../ports/container-runtime.js";
import type { ListeningSocket } from "./listening.js";

/** What was seen of a new container that did not come up, gathered before it was removed. */
export interface StartFacts {
  /** `exited`: it stopped before answering (or right after its first answer); `timed_out`: it ran but no good answer came in time. */
  outcome: "exited" | "timed_out";
  /** Its last state (exit code, OOM kill), when it could be read. */
  state: ContainerState | null;
  /** It stopped right after its first answer, not before. */
  afterAnswer: boolean;
  /** The last health probe's status when it answered with one that does not count (not 2xx or 3xx), else null. */
  lastStatus: number | null;
  /** Why the last probe had no answer (`the connection was refused`, `a probe timed out` …), else null. */
  lastError: string | null;
  /** Sockets listening inside the container while it still ran; null when nobody could look (no exec, no `cat`, exited). */
  listening: ListeningSocket[] | null;
  /** Its last output lines (not yet masked). */
  output: string[];
  /** The port it should listen on (`PORT`), its health path and the time it had. */
  port: number;
  healthPath: string;
  timeoutMs: number;
  /** Its memory limit (MB). */
  memoryMb: number;
  /** A bare box (kept up by a keep-alive command; nothing to probe). */
  keepAlive: boolean;
}

/**
 * `502 app_unhealthy`: a new container did not come up. `facts` travel beside the error for the
 * diagnosis and are never part of its JSON (they hold the app's unmasked output).
 */
export class AppStartFailure extends RepositeError {
  constructor(
    message: string,
    readonly facts: StartFacts,
  ) {
    super(502, message, "app_unhealthy", { exit_oom: facts.state?.oomKilled ?? false });
  }

  static facts(error: unknown): StartFacts | null {
    return RepositeError.isInstance(error) && "facts" in error ? ((error as AppStartFailure).facts ?? null) : null;
  }
}
