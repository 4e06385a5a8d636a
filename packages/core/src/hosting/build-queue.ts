import { inject, injectable } from "tsyringe";
import { RepositeError } from "../errors.js";
import { EVENTS, type EventBus } from "../ports/events.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { RateLimiter } from "../util/rate-limiter.js";
import { DEFAULT_HOSTING_SETTINGS, HOSTING_SETTINGS, type HostingSettings } from "./hosting-settings.js";
import { ReplicaIdentity } from "../util/replica-identity.js";

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
  /**
   * The replica (server process) whose work waits for or runs this build; set by the queue.
   * Entries stored before replicas existed have none: they are the one server's.
   */
  replica?: string;
}

/** The queue, durable: `queued` in arrival order, `active` holding a build slot. */
interface QueueState {
  queued: QueueEntry[];
  active: QueueEntry[];
}

/** The one record of the queue, changed only under the lock of the same name. */
const QUEUE_KEY = "build-queue";
/** Published with the runs given a slot, so the replica whose work waits for each hears it. */
const TURNS_CHANNEL = "build-queue:turns";
/** A waiting run also reads the queue this often, in case the news of its turn was missed. */
const TURN_CHECK_MS = 1_000;

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

  private readonly stopListening: () => void;

  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
    @inject(EVENTS) private readonly events: EventBus,
    @inject(ReplicaIdentity) private readonly replica: ReplicaIdentity,
    @inject(HOSTING_SETTINGS, { isOptional: true }) settings?: Partial<HostingSettings>,
  ) {
    this.settings = { ...DEFAULT_HOSTING_SETTINGS, ...settings };
    // A slot freed by another replica goes to a run whose work waits here.
    this.stopListening = this.events.subscribe(TURNS_CHANNEL, (event) => {
      for (const runId of (event as { run_ids?: string[] }).run_ids ?? []) this.turns.get(runId)?.resolve();
    });
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
      state.queued.push({ ...entry, replica: this.replica.id });
      await this.dispatch(state);
      return created;
    });
  }

  /**
   * Resolves when the run holds a build slot, given by any replica: heard over EVENTS, or seen in
   * the queue record (read every `TURN_CHECK_MS`, in case the event was missed). Never resolves
   * once the run left the queue.
   */
  async waitForTurn(runId: string): Promise<void> {
    const turn = this.turnOf(runId);
    while (this.turns.get(runId) === turn && !this.closed) {
      let timer: NodeJS.Timeout | undefined;
      const given = await Promise.race([turn.promise.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), TURN_CHECK_MS)))]);
      clearTimeout(timer);
      if (given) return;
      if ((await this.read()).active.some((entry) => entry.run_id === runId)) return turn.resolve();
    }
    await new Promise<never>(() => undefined);
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
   * The runs of a replica that stopped, taken over by this one: those that held a slot leave the
   * queue (they are answered for by the caller), queued ones become this replica's and are
   * returned to be taken up again. At start, `whose` is this replica's own entries (and those
   * from before replicas); later, those of replicas whose lease expired. Under the queue's lock,
   * so each run is taken over by exactly one replica.
   */
  async takeOver(whose: (entry: QueueEntry) => boolean | Promise<boolean> = (entry) => this.isOwn(entry)): Promise<{ interrupted: QueueEntry[]; queued: QueueEntry[] }> {
    return this.locks.withLock(QUEUE_KEY, async () => {
      const state = await this.read();
      const interrupted: QueueEntry[] = [];
      const active: QueueEntry[] = [];
      for (const entry of state.active) ((await whose(entry)) ? interrupted : active).push(entry);
      const queued: QueueEntry[] = [];
      for (const [index, entry] of state.queued.entries()) {
        if (!(await whose(entry))) continue;
        state.queued[index] = { ...entry, replica: this.replica.id };
        queued.push(state.queued[index]!);
        this.turnOf(entry.run_id);
      }
      state.active = active;
      await this.storage.setItem(QUEUE_KEY, state);
      return { interrupted, queued };
    });
  }

  /** The replicas other than this one that have runs in the queue. */
  async otherReplicas(): Promise<string[]> {
    const { queued, active } = await this.read();
    return [...new Set([...queued, ...active].flatMap((entry) => (entry.replica && entry.replica !== this.replica.id ? [entry.replica] : [])))];
  }

  /** The runs other replicas have queued or under way. */
  async runsOfOthers(): Promise<Set<string>> {
    const { queued, active } = await this.read();
    return new Set([...queued, ...active].filter((entry) => !this.isOwn(entry)).map((entry) => entry.run_id));
  }

  /** Puts runs back at the head of the queue (runs that held a slot but had not begun). */
  async requeue(entries: QueueEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.locks.withLock(QUEUE_KEY, async () => {
      const state = await this.read();
      const ids = new Set(entries.map((entry) => entry.run_id));
      state.queued = [...entries.map((entry) => ({ ...entry, replica: this.replica.id })), ...state.queued.filter((entry) => !ids.has(entry.run_id))];
      for (const entry of entries) this.turnOf(entry.run_id);
      await this.storage.setItem(QUEUE_KEY, state);
    });
  }

  /** The server stops: slots freed from now on go to nobody, so queued runs stay queued in storage. */
  close(): void {
    this.closed = true;
    this.stopListening();
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
    for (const entry of started) this.turns.get(entry.run_id)?.resolve();
    if (started.length > 0) this.events.publish(TURNS_CHANNEL, { run_ids: started.map((entry) => entry.run_id) });
  }

  private isOwn(entry: QueueEntry): boolean {
    return entry.replica === undefined || entry.replica === this.replica.id;
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
