import type { Job, JobEvent as ContractJobEvent, JobStatus, JobType } from "@reposite/contract";

// A job's statuses, types, view and stream events are the HTTP contract's.
export { JOB_STATUSES, type JobStatus, type JobType } from "@reposite/contract";

/** Jobs (their records and their deltas) are forgotten this long after they end. */
export const JOB_RETENTION_MS = 10 * 60_000;

/** Deltas stored together in one `job-deltas:<job_id>:<chunk>` record. */
export const DELTAS_PER_CHUNK = 100;

/** Said by a job cancelled through the service. */
export const CANCELLED_MESSAGE = "The job was cancelled.";
/** Said by a job whose server stopped while it ran. */
export const ABORTED_MESSAGE = "The server stopped while this job ran. Start it again.";
/** Said by a job that failed for a reason not meant for the caller (the reason is logged). */
export const FAILED_MESSAGE = "The job failed because of a problem on our side. Try again; if it keeps happening, tell the operator.";

/** What is stored at `jobs:<job_id>`. */
export interface JobRecord {
  job_id: string;
  owner_id: string;
  site_id: string | null;
  type: JobType;
  status: JobStatus;
  /** Why the job did not end `done`; null while running and when done. */
  error: string | null;
  /** The page version produced (generation jobs). */
  version_id: string | null;
  /** `YYYY-MM-DD HH:MM:SS` UTC once the job ended (see `formatTimestamp`); null while running. */
  finished_at: string | null;
  /** The job that continues this one (the next page); set only when this one is `done`. */
  next_job_id: string | null;
  /** The deploy run this job drives (deploy jobs). */
  run_id: string | null;
  created_at: string;
  /** Extra fields shown on the job (`mode`, `pages`, `kind`, …); they cannot replace the fields above. */
  details: Record<string, unknown>;
  /** Deltas stored so far (in `job-deltas:<job_id>:<n>` chunks); all of them once the job ended. */
  length: number;
  /**
   * Milliseconds since the epoch when the process running the job last wrote this record. A
   * running record nobody touched for a while belongs to a process that stopped: it reads as
   * `aborted`. Not shown.
   */
  heartbeat_at: number;
  /**
   * The replica (server process) running the job, from `ReplicaIdentity`; absent on records
   * written before replicas had ids. Once that replica's lease expires the job reads as
   * `aborted`, without waiting for `staleMs`. Not shown.
   */
  replica?: string;
}

/**
 * A job as `GET /app/jobs/{job_id}` answers it, and as the `meta`, `done` and `error` stream
 * events carry it: the fixed fields (null when they do not apply), then the record's `details`.
 */
export type JobView = Job;

/**
 * What a job stream carries, in this order: one `meta`, the deltas (`i` from 0 without gaps),
 * then one `done` or one `error` (status `error`, `cancelled` or `aborted`), and the stream ends.
 */
export type JobEvent = ContractJobEvent;

const VIEW_FIELDS = new Set([
  "job_id",
  "type",
  "status",
  "error",
  "site_id",
  "version_id",
  "finished_at",
  "next_job_id",
  "run_id",
]);

export const isEnded = (record: Pick<JobRecord, "status">): boolean => record.status !== "running";

export function toJobView(record: JobRecord): JobView {
  const details = Object.entries(record.details).filter(([key]) => !VIEW_FIELDS.has(key));
  return {
    job_id: record.job_id,
    type: record.type,
    status: record.status,
    error: record.error,
    site_id: record.site_id,
    version_id: record.version_id,
    finished_at: record.finished_at,
    next_job_id: record.next_job_id,
    run_id: record.run_id,
    ...Object.fromEntries(details),
  };
}

/** The event that closes a stream of an ended job. */
export const endEvent = (record: JobRecord): JobEvent =>
  ({ type: record.status === "done" ? "done" : "error", job: toJobView(record) }) as JobEvent;
