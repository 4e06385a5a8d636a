import { inject, injectable } from "tsyringe";
import { RepositeError } from "../errors.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { RateLimiter } from "../util/rate-limiter.js";
import { DEFAULT_HOSTING_SETTINGS, HOSTING_SETTINGS, type HostingSettings } from "./hosting-settings.js";

/** Builds one account may have queued or under way at once. */
export const BUILDS_AT_A_TIME = 1;
/** Builds one account may start per 24 hours. */
export const BUILDS_PER_DAY = 20;

/** What a deploy refused while the account's build runs suggests waiting: a typical small build. */
export const BUSY_RETRY_AFTER_SECONDS = 30;

/** One run in the queue. */
export interface QueueEntry {
  run_id: string;
  site_id: string;
  owner_id: string;
}

/** The queue, durable: `queued` in arrival order, `active` holding a build slot. */
interface QueueState {
  queued: QueueEntry[];
  active: QueueEntry[];
}

/** The one record of the queue, changed only under the lock of the same name. */
const QUEUE_KEY = "build-queue";

interface Turn {
  promise: Promise<void>;
  resolve(): void;
}

/**
 * The build queue: one build at a time per account, `BUILDS_PER_DAY` per account, and at most
 * `buildConcurrency` builds on the server. A run waits here (`queued`) while other accounts'
 * builds hold every slot, and holds its slot until it ends (built, started and health-checked, or
 * failed). The queue is a storage record, so a restarted server finds its queued runs again.
 */
@injectable()
export class BuildQueue {
  private readonly settings: HostingSettings;
  private readonly turns = new Map<string, Turn>();
  /** Shutting down: no run takes a slot any more; queued runs wait for the next start. */
  private closed = false;

  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
    @inject(HOSTING_SETTINGS, { isOptional: true }) settings?: Partial<HostingSettings>,
  ) {
    this.settings = { ...DEFAULT_HOSTING_SETTINGS, ...settings };
  }

  /**
   * Checks the account's limits and queues the run, as one step under the queue's lock (so two
   * concurrent deploys cannot both take the account's slot); `create` runs in that step, after the
   * checks, to make the run's records. `429 build_limit` when the account has a build queued or
   * under way, or started `BUILDS_PER_DAY` in the last 24 hours (with `retry_after`).
   */
  enqueue<T>(entry: QueueEntry, create: () => Promise<T>): Promise<T> {
    return this.locks.withLock(QUEUE_KEY, async () => {
      const state = await this.read();
      if ([...state.queued, ...state.active].filter((each) => each.owner_id === entry.owner_id).length >= BUILDS_AT_A_TIME) {
        throw new RepositeError(429, "This account has a deploy queued or under way already; wait for it to finish (its job's finished_at).", "build_limit", {
          retry_after: BUSY_RETRY_AFTER_SECONDS,
        });
      }
      const quota = await this.limiter.take({ name: "builds", max: BUILDS_PER_DAY, windowMs: 86_400_000 }, entry.owner_id);
      if (!quota.allowed) {
        throw new RepositeError(429, `At most ${BUILDS_PER_DAY} deploys a day per account; try again later.`, "build_limit", { retry_after: quota.retryAfter });
      }
      this.turnOf(entry.run_id);
      let created: T;
      try {
        created = await create();
      } catch (error) {
        this.turns.delete(entry.run_id);
        throw error;
      }
      state.queued.push(entry);
      await this.dispatch(state);
      return created;
    });
  }

  /** Resolves when the run holds a build slot. */
  waitForTurn(runId: string): Promise<void> {
    return this.turnOf(runId).promise;
  }

  /**
   * Where a queued run stands: the runs ahead of it in the queue and the builds under way; null
   * when it holds a slot (or is not queued). Read under the queue's lock, so a run asking right
   * after it was queued sees itself.
   */
  waiting(runId: string): Promise<{ ahead: number; building: number } | null> {
    return this.locks.withLock(QUEUE_KEY, async () => {
      const { queued, active } = await this.read();
      const index = queued.findIndex((entry) => entry.run_id === runId);
      return index === -1 ? null : { ahead: index, building: active.length };
    });
  }

  /** The run ended (or was cancelled while waiting): its slot goes to the next run in line. */
  async leave(runId: string): Promise<void> {
    this.turns.delete(runId);
    await this.locks.withLock(QUEUE_KEY, async () => {
      const state = await this.read();
      state.queued = state.queued.filter((entry) => entry.run_id !== runId);
      state.active = state.active.filter((entry) => entry.run_id !== runId);
      await this.dispatch(state);
    });
  }

  /**
   * At start: the runs that held a slot when the server stopped leave the queue (they are
   * answered for by the caller), and queued runs are returned to be taken up again.
   */
  async takeOver(): Promise<{ interrupted: QueueEntry[]; queued: QueueEntry[] }> {
    return this.locks.withLock(QUEUE_KEY, async () => {
      const state = await this.read();
      const interrupted = state.active;
      state.active = [];
      await this.storage.setItem(QUEUE_KEY, state);
      for (const entry of state.queued) this.turnOf(entry.run_id);
      return { interrupted, queued: [...state.queued] };
    });
  }

  /** Puts runs back at the head of the queue (runs that held a slot but had not begun). */
  async requeue(entries: QueueEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.locks.withLock(QUEUE_KEY, async () => {
      const state = await this.read();
      const ids = new Set(entries.map((entry) => entry.run_id));
      state.queued = [...entries, ...state.queued.filter((entry) => !ids.has(entry.run_id))];
      for (const entry of entries) this.turnOf(entry.run_id);
      await this.storage.setItem(QUEUE_KEY, state);
    });
  }

  /** The server stops: slots freed from now on go to nobody, so queued runs stay queued in storage. */
  close(): void {
    this.closed = true;
  }

  /** Gives free slots to queued runs (after `takeOver`, once their work waits again). */
  async resume(): Promise<void> {
    await this.locks.withLock(QUEUE_KEY, async () => this.dispatch(await this.read()));
  }

  /** Whether a run of `siteId` is queued or under way. */
  async runOf(siteId: string): Promise<QueueEntry | null> {
    const state = await this.read();
    return [...state.active, ...state.queued].find((entry) => entry.site_id === siteId) ?? null;
  }

  /** Moves queued runs into free slots and stores the queue; under the queue's lock. */
  private async dispatch(state: QueueState): Promise<void> {
    const started: QueueEntry[] = [];
    while (!this.closed && state.active.length < this.settings.buildConcurrency && state.queued.length > 0) {
      const next = state.queued.shift()!;
      state.active.push(next);
      started.push(next);
    }
    await this.storage.setItem(QUEUE_KEY, state);
    for (const entry of started) this.turnOf(entry.run_id).resolve();
  }

  private turnOf(runId: string): Turn {
    let turn = this.turns.get(runId);
    if (!turn) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => (resolve = done));
      turn = { promise, resolve };
      this.turns.set(runId, turn);
    }
    return turn;
  }

  private async read(): Promise<QueueState> {
    const state = await this.storage.getItem<QueueState>(QUEUE_KEY);
    return { queued: [...(state?.queued ?? [])], active: [...(state?.active ?? [])] };
  }
}
