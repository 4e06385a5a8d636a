import type { BuildMode, Diagnosis, DockerfileSource, RunDetailView, RunStatus, RunView } from "@reposite/contract";

// A run's states and its views are the HTTP contract's (`GET …/deployment/runs`).
export { RUN_STATUSES, type RunStatus, type RunView, type RunDetailView, type DockerfileSource } from "@reposite/contract";

/** Runs the deployment keeps per app (older records are removed). */
export const RUNS_KEPT = 20;

/** Said by a run that was under way when the server stopped (found again at the next start). */
export const SERVER_STOPPED_REASON = "The server stopped during the run. Deploy again.";

/** What is stored at `deploy-runs:<siteId>:<runId>`. */
export interface DeployRunRecord {
  run_id: string;
  site_id: string;
  owner_id: string;
  /** The job streaming this run's log; a queued run found again after a restart gets a new one. */
  job_id: string | null;
  status: RunStatus;
  ref: string;
  build_mode: BuildMode;
  created_at: string;
  /** When it left the queue. */
  started_at: string | null;
  finished_at: string | null;
  /** Why it failed (env values masked); null otherwise. */
  reason: string | null;
  /** The new container was killed for using more memory than its limit. */
  exit_oom: boolean;
  /** What went wrong, for a failed run; null otherwise. */
  diagnosis: Diagnosis | null;
  /**
   * Where the Dockerfile came from: the repository's (or `auto`'s, or the bare box's), the fix
   * the service kept (`override`), or an attempt of `POST …/deployment/fix` (`fix`).
   */
  dockerfile_source: DockerfileSource;
  /** The Dockerfile this run built when it was not the repository's (an override or a fix attempt). */
  dockerfile: string | null;
  /** The image this run built (removed when the run failed or a later run replaced it). */
  image: string | null;
  /** Log lines written in total (before the cap). */
  log_lines: number;
  /** The last lines of the log (masked), kept after the job is forgotten. */
  log_tail: string[];
}

export const isRunUnderWay = (status: RunStatus): boolean => status === "queued" || status === "building" || status === "starting";

export function toRunView({ site_id, owner_id, image, log_lines, log_tail, dockerfile, ...view }: DeployRunRecord): RunView {
  return view;
}

export function toRunDetailView(run: DeployRunRecord): RunDetailView {
  return { ...toRunView(run), log_lines: run.log_lines, log_tail: run.log_tail.map((line) => `${line}\n`).join("") };
}
