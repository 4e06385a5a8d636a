/**
 * What went wrong in a failed run, written for a person who did not write the Dockerfile: a
 * `title`, what happened (`detail`), what to do (`fix`), and for a resource that ran out the size
 * wanted (`limit`). `kind` names the case for programs (the fixer, the app's screen); `evidence`
 * keeps the facts the diagnosis found, which deterministic fixes use.
 */
export interface Diagnosis {
  kind: DiagnosisKind;
  title: string;
  detail: string;
  fix: string;
  limit?: { kind: "memory" | "disk"; needed: number };
  evidence?: DiagnosisEvidence;
}

export const DIAGNOSIS_KINDS = [
  /** A Dockerfile step exited non-zero. */
  "build_step_failed",
  /** The build went over its memory. */
  "build_out_of_memory",
  /** The build went over its time. */
  "build_timeout",
  /** The source could not be read or the Dockerfile is missing or refused. */
  "source_problem",
  /** The image has no CMD/ENTRYPOINT and the repository no start script Reposite could use. */
  "no_start_command",
  /** The app runs but nothing answers on PORT. */
  "not_listening",
  /** The app listens on PORT, but on 127.0.0.1 only: unreachable from outside its container. */
  "listening_on_localhost",
  /** The health path answered a 5xx status until the timeout. */
  "health_error",
  /** The health path did not answer within the timeout. */
  "health_timeout",
  /** The app exited on start. */
  "crash_on_start",
  /** The app was killed for using more memory than its limit. */
  "out_of_memory",
  /** The app's disk (image, writable layer and volume) is over its limit. */
  "storage_full",
  /** Anything else (the engine refused, the server stopped, the run was cancelled). */
  "other",
] as const;
export type DiagnosisKind = (typeof DIAGNOSIS_KINDS)[number];

/** Facts a diagnosis found, kept for fixes that need no model. */
export interface DiagnosisEvidence {
  /** The Dockerfile line of the failed step (1-based). */
  dockerfile_line?: number;
  /** The step's instruction as written. */
  step?: string;
  exit_code?: number;
  /** Ports found listening inside the container, with the address they are bound to. */
  listening?: { address: string; port: number }[];
  /** The start command found in the repository (for example `npm start`), when the image had none. */
  start_command?: string[];
  /** Peak memory (MB) the run reached, when known. */
  peak_memory_mb?: number;
}
