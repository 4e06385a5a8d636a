import { inject, injectable, type InjectionToken } from "tsyringe";
import { z } from "zod";
import { notFound, RepositeError } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { EVENTS, type EventBus } from "../ports/events.js";
import { ReplicaIdentity } from "../util/replica-identity.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { isWellFormedId } from "../util/record-ids.js";
import { formatTimestamp, parseTimestamp } from "../util/timestamps.js";
import { parseInput } from "../util/validation.js";
import { Inbox } from "./inbox.js";
import {
  ABORTED_MESSAGE,
  CANCELLED_MESSAGE,
  DELTAS_PER_CHUNK,
  endEvent,
  FAILED_MESSAGE,
  isEnded,
  JOB_RETENTION_MS,
  toJobView,
  type JobEvent,
  type JobRecord,
  type JobType,
  type JobView,
} from "./job.js";

/** Timings of the job runner; the defaults suit production, tests shorten them. */
export interface JobSettings {
  /** Longest a written delta waits in memory before it is stored. Default 200 ms. */
  flushMs: number;
  /** How often the process running a job touches its record, to show it is alive. Default 10 s. */
  heartbeatMs: number;
  /** A running record untouched this long, and not running in this process, reads as `aborted`. Default 60 s. */
  staleMs: number;
  /** A quiet stream re-checks the job this often (a missed event, a stopped process). Default 1 s. */
  pollMs: number;
  /** How long `cancel` waits for another process to stop a job it runs. Default 5 s. */
  cancelWaitMs: number;
}

export const DEFAULT_JOB_SETTINGS: JobSettings = {
  flushMs: 200,
  heartbeatMs: 10_000,
  staleMs: 60_000,
  pollMs: 1_000,
  cancelWaitMs: 5_000,
};

/** Optional: register a `Partial<JobSettings>` under it to change the timings. */
export const JOB_SETTINGS: InjectionToken<Partial<JobSettings>> = Symbol.for("reposite.JobSettings");

/** What a job is about, given when it starts. */
export interface StartJobSpec {
  ownerId: string;
  siteId?: string | null;
  type: JobType;
  /** Extra fields shown on the job, for example `{ mode, pages, kind }`. */
  details?: Record<string, unknown>;
  /** The deploy run the job drives. */
  runId?: string | null;
}

/** What the work of a job gets. */
export interface RunningJob {
  readonly id: string;
  readonly ownerId: string;
  readonly siteId: string | null;
  /**
   * Aborts when the job is cancelled or the server shuts down. Hand it to model calls and builds
   * and stop soon after: the job has ended already, and what the work returns is ignored.
   */
  readonly signal: AbortSignal;
  /**
   * Appends text to the job's stream as one delta with the next `i`. Empty strings are ignored,
   * and so is anything written after the job ended.
   */
  write(text: string): void;
}

/** What the work answers when it succeeds; the job then ends `done` with these fields. */
export interface JobOutcome {
  version_id?: string | null;
  /** The job that continues this one, when the work started it itself. */
  next_job_id?: string | null;
  /**
   * A job to start once this one succeeded (the next page). It is started just before this job
   * is marked `done`, and its id becomes this job's `next_job_id`; when this job is cancelled
   * instead, it never starts.
   */
  next?: { spec: StartJobSpec; work: JobWork };
}

export type JobWork = (job: RunningJob) => Promise<JobOutcome | void>;

/** Published on `jobs:<job_id>`. */
type JobMessage = { type: "delta"; i: number; t: string } | { type: "end"; record: JobRecord };
/** Published on `job-control:<job_id>`, to the process that runs the job. */
type ControlMessage = { type: "cancel" };

/** A job this process runs. */
interface LocalJob {
  record: JobRecord;
  /** Every delta written so far; `record.length` of them are stored. */
  deltas: string[];
  controller: AbortController;
  ended: boolean;
  /** Storage writes of the job, one after another. */
  writes: Promise<void>;
  flushTimer: NodeJS.Timeout | undefined;
  heartbeat: NodeJS.Timeout;
  stopControl: () => void;
  finishing: Promise<void> | undefined;
}

const recordKey = (jobId: string) => `jobs:${jobId}`;
const chunkKey = (jobId: string, chunk: number) => `job-deltas:${jobId}:${chunk}`;
const jobChannel = (jobId: string) => `jobs:${jobId}`;
const controlChannel = (jobId: string) => `job-control:${jobId}`;
/** The ids of the jobs in storage (running, or ended and not forgotten yet): all a sweep reads. */
const INDEX_KEY = "job-index";

const startSchema = z.object({
  ownerId: z.string().min(1),
  siteId: z.string().min(1).nullish(),
  type: z.enum(["generate", "deploy"]),
  details: z.record(z.string(), z.unknown()).optional(),
  runId: z.string().min(1).nullish(),
});

const unref = <T extends NodeJS.Timeout>(timer: T): T => {
  timer.unref?.();
  return timer;
};

/**
 * The one job runner: generation and deploys run their work through it. A job's text is
 * written as deltas, each with the next integer `i` from 0; deltas are kept in memory while the
 * job runs here and stored in chunks of `DELTAS_PER_CHUNK` at least every `flushMs`, so a reader
 * in any process sharing the storage can replay them. Live deltas and the end of a job travel
 * over the event bus. Jobs are forgotten `JOB_RETENTION_MS` after they end.
 *
 * Ending states: `done` (the work succeeded), `error` (it threw: a RepositeError's message is
 * shown, anything else is logged and shown as a generic message), `cancelled` (through
 * `cancel`), `aborted` (the process running it stopped: `close()` on shutdown, or a crash,
 * noticed when its replica's lease lapsed (`ReplicaIdentity`) or its record has had no
 * heartbeat for `staleMs`, whichever comes first; at once when that replica starts again).
 */
@injectable()
export class JobsService {
  private readonly settings: JobSettings;
  private readonly local = new Map<string, LocalJob>();
  private readonly forgetTimers = new Set<NodeJS.Timeout>();
  private sweeping: Promise<void> | undefined;
  /**
   * This replica's lease, taken with its first job or at `resume()`: others end its jobs once it
   * lapses. Once taken, this process is the replica, so a running job of the replica's that is
   * not in `local` is from before a restart (a crash) and ends at once.
   */
  private presence: Promise<void> | undefined;
  private lastSweep = Number.NEGATIVE_INFINITY;
  private closed = false;

  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
    @inject(EVENTS) private readonly bus: EventBus,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(ReplicaIdentity) private readonly replica: ReplicaIdentity,
    @inject(JOB_SETTINGS, { isOptional: true }) settings?: Partial<JobSettings>,
  ) {
    this.settings = { ...DEFAULT_JOB_SETTINGS, ...settings };
  }

  /**
   * Creates a running job and starts `work` in the background; answers the job at once. The
   * job ends when the work settles (see the class comment for the states).
   */
  async start(spec: StartJobSpec, work: JobWork): Promise<JobView> {
    if (this.closed) throw new RepositeError(503, "The server is shutting down; try again in a moment.", "shutting_down");
    const input = parseInput(startSchema, spec);
    this.sweepNow();
    await (this.presence ??= this.replica.start());
    const now = this.clock.now();
    const record: JobRecord = {
      job_id: this.ids.newId("job"),
      owner_id: input.ownerId,
      site_id: input.siteId ?? null,
      type: input.type,
      status: "running",
      error: null,
      version_id: null,
      finished_at: null,
      next_job_id: null,
      run_id: input.runId ?? null,
      created_at: formatTimestamp(now),
      details: input.details ?? {},
      length: 0,
      heartbeat_at: now.getTime(),
      replica: this.replica.id,
    };
    // Known as this process's before it is stored: a read meanwhile must not take it for one left by a crash.
    const job = this.track(record);
    try {
      await this.storage.setItem(recordKey(record.job_id), record);
      await this.changeIndex((ids) => [...ids, record.job_id]);
    } catch (error) {
      this.untrack(job);
      throw error;
    }
    const running: RunningJob = {
      id: record.job_id,
      ownerId: record.owner_id,
      siteId: record.site_id,
      signal: job.controller.signal,
      write: (text) => this.write(job, text),
    };
    // Started on the next turn of the event loop, so the caller has the answer before the work runs.
    void new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => work(running))
      .then(
        (outcome) => this.succeed(job, outcome ?? {}),
        (error: unknown) => this.fail(job, error),
      )
      .catch((error: unknown) => console.error(`[reposite] job ${record.job_id} could not be ended:`, error));
    return toJobView(record);
  }

  /**
   * A server starting: this process becomes its replica (`ReplicaIdentity`, whose id its data
   * directory keeps) and ends, as `aborted`, the jobs the replica ran before it was restarted
   * (a crash or a kill), at once rather than after `staleMs` without a heartbeat. Answers how many.
   */
  async resume(): Promise<number> {
    await (this.presence ??= this.replica.start());
    let ended = 0;
    for (const jobId of (await this.storage.getItem<string[]>(INDEX_KEY)) ?? []) {
      const record = isWellFormedId(jobId, "job") && !this.local.has(jobId) ? await this.storage.getItem<JobRecord>(recordKey(jobId)) : null;
      if (record && !isEnded(record) && record.replica === this.replica.id) {
        await this.abandon(record);
        ended += 1;
      }
    }
    return ended;
  }

  /** The caller's job; `404` when it is someone else's, missing or forgotten. */
  async get(ownerId: string, jobId: string): Promise<JobView> {
    return toJobView(await this.read(ownerId, jobId));
  }

  /**
   * Stops a running job: its signal aborts and it ends `cancelled`. A job that has ended already
   * is answered unchanged (cancelling is idempotent; no `409`). A job running in another process
   * is asked to stop over the event bus; the answer waits up to `cancelWaitMs` for it.
   */
  async cancel(ownerId: string, jobId: string): Promise<JobView> {
    const record = await this.read(ownerId, jobId);
    if (isEnded(record)) return toJobView(record);
    const job = this.local.get(jobId);
    if (job) {
      await this.finish(job, { status: "cancelled", error: CANCELLED_MESSAGE });
      return toJobView(job.record);
    }
    const ended = new Promise<JobRecord | undefined>((resolve) => {
      const stop = this.bus.subscribe(jobChannel(jobId), (message) => {
        if ((message as JobMessage).type !== "end") return;
        stop();
        clearTimeout(timer);
        resolve((message as Extract<JobMessage, { type: "end" }>).record);
      });
      const timer = unref(
        setTimeout(() => {
          stop();
          resolve(undefined);
        }, this.settings.cancelWaitMs),
      );
    });
    this.bus.publish(controlChannel(jobId), { type: "cancel" } satisfies ControlMessage);
    return toJobView((await ended) ?? (await this.load(jobId)) ?? record);
  }

  /**
   * The job's stream: `meta` (the job now), every delta with `i >= from` (stored ones first,
   * then live ones, none twice, none missing), then `done`, or `error` for a job that ended
   * `error`, `cancelled` or `aborted`; then the iterable ends. It also ends, without an end
   * event, when `signal` aborts. `404` and `422` (a bad `from`) are thrown by the first `next()`.
   */
  async *events(ownerId: string, jobId: string, from = 0, signal?: AbortSignal): AsyncGenerator<JobEvent, void, undefined> {
    if (!Number.isSafeInteger(from) || from < 0) {
      throw new RepositeError(422, "from must be a whole number, 0 or more.", "invalid_request", { field: "from" });
    }
    const inbox = new Inbox<JobMessage>();
    // Subscribed before anything is read, so nothing written meanwhile slips between the two;
    // deltas seen both ways are told apart by `i`.
    const unsubscribe = this.bus.subscribe(jobChannel(jobId), (message) => inbox.push(message as JobMessage));
    try {
      const record = await this.read(ownerId, jobId);
      yield { type: "meta", job: toJobView(record) };
      let next = from;
      if (isEnded(record)) {
        yield* this.storedDeltas(jobId, next, record.length);
        yield endEvent(record);
        return;
      }
      for await (const delta of this.writtenDeltas(jobId, next)) {
        yield delta;
        next = delta.i + 1;
      }
      for (;;) {
        const message = await inbox.take(this.settings.pollMs, signal);
        if (signal?.aborted) return;
        if (message?.type === "delta") {
          if (message.i < next) continue;
          if (message.i > next) {
            for await (const delta of this.writtenDeltas(jobId, next, message.i)) {
              yield delta;
              next = delta.i + 1;
            }
            // Not stored yet (written in another process): a later delta or poll catches up.
            if (next < message.i) continue;
          }
          yield { type: "delta", i: message.i, t: message.t };
          next = message.i + 1;
          continue;
        }
        // The end, or a quiet spell: make sure the job did not end (or its process stop) unseen.
        const ended = message?.type === "end" ? message.record : await this.load(jobId);
        if (!ended) return;
        if (!isEnded(ended)) {
          for await (const delta of this.writtenDeltas(jobId, next)) {
            yield delta;
            next = delta.i + 1;
          }
          continue;
        }
        yield* this.storedDeltas(jobId, next, ended.length);
        yield endEvent(ended);
        return;
      }
    } finally {
      unsubscribe();
    }
  }

  /**
   * Ends every job this process runs as `aborted` (the server is shutting down) and stores
   * them; stops timers. Call before the storage is disposed.
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.local.values()].map((job) => this.finish(job, { status: "aborted", error: ABORTED_MESSAGE })));
    for (const timer of this.forgetTimers) clearTimeout(timer);
    this.forgetTimers.clear();
    await this.sweeping;
    if (this.presence) await this.replica.stop();
  }

  /**
   * Reads every job in the index once (never the rest of storage): forgets the ones ended more
   * than `JOB_RETENTION_MS` ago, and marks the ones whose process stopped (no heartbeat for
   * `staleMs`) `aborted`. Runs by itself on first use and then at most every `JOB_RETENTION_MS`;
   * exposed for operators and tests.
   */
  async sweep(): Promise<void> {
    const gone = new Set<string>();
    for (const jobId of (await this.storage.getItem<string[]>(INDEX_KEY)) ?? []) {
      if (!(await this.load(jobId))) gone.add(jobId);
    }
    // Forgetting drops a job from the index; this drops ids whose record went some other way.
    if (gone.size) await this.changeIndex((ids) => ids.filter((id) => !gone.has(id)));
  }

  /** Changes the index under its lock, so concurrent starts and forgets keep every id. */
  private changeIndex(change: (ids: string[]) => string[]): Promise<void> {
    return this.locks.withLock(INDEX_KEY, async () => {
      await this.storage.setItem(INDEX_KEY, change((await this.storage.getItem<string[]>(INDEX_KEY)) ?? []));
    });
  }

  private sweepNow(): void {
    const now = this.clock.now().getTime();
    if (this.sweeping || now - this.lastSweep < JOB_RETENTION_MS) return;
    this.lastSweep = now;
    this.sweeping = this.sweep()
      .catch((error: unknown) => console.error("[reposite] sweeping old jobs failed:", error))
      .finally(() => (this.sweeping = undefined));
  }

  private async read(ownerId: string, jobId: string): Promise<JobRecord> {
    this.sweepNow();
    const record = await this.load(jobId);
    if (!record || record.owner_id !== ownerId) throw notFound("Job not found.");
    return record;
  }

  /**
   * The job's record as it stands: this process's own copy for a job it runs; otherwise the
   * stored one, forgotten when its time is up, and `aborted` when its process stopped.
   */
  private async load(jobId: string): Promise<JobRecord | null> {
    // Ids go into storage keys: anything else (a `:` above all) is simply not a job.
    if (!isWellFormedId(jobId, "job")) return null;
    const job = this.local.get(jobId);
    if (job) {
      // A job being ended here is answered once its last deltas and record are stored.
      if (job.finishing) await job.finishing;
      return { ...job.record };
    }
    const record = await this.storage.getItem<JobRecord>(recordKey(jobId));
    if (!record) return null;
    const now = this.clock.now().getTime();
    if (isEnded(record)) {
      if (record.finished_at && now - parseTimestamp(record.finished_at).getTime() >= JOB_RETENTION_MS) {
        await this.forget(record);
        return null;
      }
      return record;
    }
    if (now - record.heartbeat_at > this.settings.staleMs) return this.abandon(record);
    // This replica's, not running here: left by the process before a restart.
    if (this.presence && record.replica === this.replica.id) return this.abandon(record);
    // Its replica was killed: known once the replica's lease lapses (sooner than the heartbeat).
    if (record.replica && !(await this.replica.isAlive(record.replica))) return this.abandon(record);
    return record;
  }

  /**
   * Ends now, as `aborted`, a job known to have lost its process (a server that was killed): its
   * followers need not wait for the heartbeat to go stale. A job this process runs is left alone.
   */
  async abandonOrphan(jobId: string): Promise<void> {
    if (!isWellFormedId(jobId, "job") || this.local.has(jobId)) return;
    const record = await this.storage.getItem<JobRecord>(recordKey(jobId));
    if (record && !isEnded(record)) await this.abandon(record);
  }

  /** A running job whose process stopped: it ends `aborted`. */
  private async abandon(record: JobRecord): Promise<JobRecord> {
    const aborted: JobRecord = {
      ...record,
      status: "aborted",
      error: ABORTED_MESSAGE,
      finished_at: formatTimestamp(this.clock.now()),
    };
    await this.storage.setItem(recordKey(record.job_id), aborted);
    this.bus.publish(jobChannel(record.job_id), { type: "end", record: aborted } satisfies JobMessage);
    this.scheduleForget(record.job_id);
    return aborted;
  }

  private async forget(record: JobRecord): Promise<void> {
    // One chunk past the length too: it may have been stored by a process that stopped before its record.
    const chunks = Math.ceil(record.length / DELTAS_PER_CHUNK) + 1;
    await Promise.all(Array.from({ length: chunks }, (_, n) => this.storage.removeItem(chunkKey(record.job_id, n))));
    await this.storage.removeItem(recordKey(record.job_id));
    await this.changeIndex((ids) => ids.filter((id) => id !== record.job_id));
  }

  private scheduleForget(jobId: string): void {
    const timer = unref(
      setTimeout(() => {
        this.forgetTimers.delete(timer);
        void this.storage
          .getItem<JobRecord>(recordKey(jobId))
          .then((record) => (record && isEnded(record) ? this.forget(record) : undefined))
          .catch((error: unknown) => console.error(`[reposite] forgetting job ${jobId} failed:`, error));
      }, JOB_RETENTION_MS),
    );
    this.forgetTimers.add(timer);
  }

  private track(record: JobRecord): LocalJob {
    const job: LocalJob = {
      record,
      deltas: [],
      controller: new AbortController(),
      ended: false,
      writes: Promise.resolve(),
      flushTimer: undefined,
      heartbeat: unref(setInterval(() => void this.persist(job), this.settings.heartbeatMs)),
      stopControl: () => {},
      finishing: undefined,
    };
    job.stopControl = this.bus.subscribe(controlChannel(record.job_id), (message) => {
      if ((message as ControlMessage).type === "cancel") void this.finish(job, { status: "cancelled", error: CANCELLED_MESSAGE });
    });
    this.local.set(record.job_id, job);
    return job;
  }

  /** Forgets a job that could not be stored as started. */
  private untrack(job: LocalJob): void {
    job.ended = true;
    clearInterval(job.heartbeat);
    job.stopControl();
    this.local.delete(job.record.job_id);
  }

  private write(job: LocalJob, text: string): void {
    if (job.ended || typeof text !== "string" || text === "") return;
    const i = job.deltas.length;
    job.deltas.push(text);
    this.bus.publish(jobChannel(job.record.job_id), { type: "delta", i, t: text } satisfies JobMessage);
    job.flushTimer ??= unref(
      setTimeout(() => {
        job.flushTimer = undefined;
        void this.persist(job);
      }, this.settings.flushMs),
    );
  }

  /** Stores the deltas not stored yet, then the record (with the new length and a heartbeat). */
  private persist(job: LocalJob): Promise<void> {
    job.writes = job.writes
      .then(async () => {
        // Taken together, before anything is awaited: a record never claims deltas not stored before it.
        const upto = job.deltas.length;
        const stored = job.record.length;
        const snapshot: JobRecord = { ...job.record, length: upto, heartbeat_at: this.clock.now().getTime() };
        if (upto > stored) {
          const first = Math.floor(stored / DELTAS_PER_CHUNK);
          const last = Math.floor((upto - 1) / DELTAS_PER_CHUNK);
          for (let chunk = first; chunk <= last; chunk++) {
            const start = chunk * DELTAS_PER_CHUNK;
            await this.storage.setItem(chunkKey(job.record.job_id, chunk), job.deltas.slice(start, Math.min(start + DELTAS_PER_CHUNK, upto)));
          }
        }
        await this.storage.setItem(recordKey(job.record.job_id), snapshot);
        job.record.length = Math.max(job.record.length, upto);
        job.record.heartbeat_at = snapshot.heartbeat_at;
      })
      .catch((error: unknown) => console.error(`[reposite] storing job ${job.record.job_id} failed:`, error));
    return job.writes;
  }

  private async succeed(job: LocalJob, outcome: JobOutcome): Promise<void> {
    if (job.ended) return;
    let nextJobId = outcome.next_job_id ?? null;
    if (outcome.next) {
      try {
        nextJobId = (await this.start(outcome.next.spec, outcome.next.work)).job_id;
      } catch (error) {
        return this.fail(job, error);
      }
      if (job.ended) {
        // Cancelled while the next job was being created: the chain stops here.
        const next = this.local.get(nextJobId);
        if (next) await this.finish(next, { status: "cancelled", error: CANCELLED_MESSAGE });
        return;
      }
    }
    await this.finish(job, { status: "done", version_id: outcome.version_id ?? null, next_job_id: nextJobId });
  }

  private async fail(job: LocalJob, error: unknown): Promise<void> {
    if (job.ended) return;
    let message = FAILED_MESSAGE;
    if (RepositeError.isInstance(error)) message = error.message;
    else console.error(`[reposite] job ${job.record.job_id} (${job.record.type}) failed:`, error);
    await this.finish(job, { status: "error", error: message });
  }

  /**
   * Ends a job this process runs: the record changes at once (later writes and outcomes are
   * ignored), then deltas and record are stored, then the end is published, in that order, so
   * whoever hears of the end finds every delta stored.
   */
  private finish(
    job: LocalJob,
    changes: Pick<JobRecord, "status"> & Partial<Pick<JobRecord, "error" | "version_id" | "next_job_id">>,
  ): Promise<void> {
    if (job.ended) return job.finishing ?? Promise.resolve();
    job.ended = true;
    Object.assign(job.record, changes, { finished_at: formatTimestamp(this.clock.now()) });
    clearTimeout(job.flushTimer);
    clearInterval(job.heartbeat);
    job.stopControl();
    if (changes.status === "cancelled" || changes.status === "aborted") {
      job.controller.abort(new DOMException(changes.error ?? "The job was stopped.", "AbortError"));
    }
    job.finishing = (async () => {
      await this.persist(job);
      this.bus.publish(jobChannel(job.record.job_id), { type: "end", record: { ...job.record } } satisfies JobMessage);
      this.local.delete(job.record.job_id);
      this.scheduleForget(job.record.job_id);
    })();
    return job.finishing;
  }

  /**
   * Deltas `[start, end)` known so far: from memory for a job this process runs, otherwise
   * those stored (which may stop short of `end`).
   */
  private async *writtenDeltas(jobId: string, start: number, end = Number.POSITIVE_INFINITY): AsyncGenerator<JobEvent & { type: "delta" }> {
    const job = this.local.get(jobId);
    if (job) {
      const deltas = job.deltas.slice(start, Math.min(end, job.deltas.length));
      for (const [offset, t] of deltas.entries()) yield { type: "delta", i: start + offset, t };
      return;
    }
    const record = await this.storage.getItem<JobRecord>(recordKey(jobId));
    if (record) yield* this.storedDeltas(jobId, start, Math.min(end, record.length));
  }

  /** Deltas `[start, end)` from storage, chunk by chunk. */
  private async *storedDeltas(jobId: string, start: number, end: number): AsyncGenerator<JobEvent & { type: "delta" }> {
    for (let chunk = Math.floor(start / DELTAS_PER_CHUNK); chunk * DELTAS_PER_CHUNK < end; chunk++) {
      const texts = await this.storage.getItem<string[]>(chunkKey(jobId, chunk));
      if (!texts) return;
      for (const [offset, t] of texts.entries()) {
        const i = chunk * DELTAS_PER_CHUNK + offset;
        if (i >= start && i < end) yield { type: "delta", i, t };
      }
    }
  }
}
