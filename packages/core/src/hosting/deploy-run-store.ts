import { inject, injectable } from "tsyringe";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { RUNS_KEPT, type DeployRunRecord } from "./deploy-run.js";

const runKey = (siteId: string, runId: string) => `deploy-runs:${siteId}:${runId}`;
/** The app's run ids, newest first, at most `RUNS_KEPT`: all a runs list reads besides the runs. */
const indexKey = (siteId: string) => `deploy-run-index:${siteId}`;

/** Where deploy runs live. The only place that knows their storage keys. */
@injectable()
export class DeployRunStore {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
  ) {}

  get(siteId: string, runId: string): Promise<DeployRunRecord | null> {
    return this.storage.getItem<DeployRunRecord>(runKey(siteId, runId));
  }

  /** Stores a new run first in the app's index; runs past the last `RUNS_KEPT` are removed. */
  async insert(run: DeployRunRecord): Promise<void> {
    await this.storage.setItem(runKey(run.site_id, run.run_id), run);
    const dropped = await this.locks.withLock(indexKey(run.site_id), async () => {
      const ids = [run.run_id, ...(await this.ids(run.site_id)).filter((id) => id !== run.run_id)];
      await this.storage.setItem(indexKey(run.site_id), ids.slice(0, RUNS_KEPT));
      return ids.slice(RUNS_KEPT);
    });
    for (const id of dropped) await this.storage.removeItem(runKey(run.site_id, id));
  }

  /** Changes a run under its lock; answers the changed run, or null when it is gone. */
  modify(siteId: string, runId: string, change: (run: DeployRunRecord) => DeployRunRecord): Promise<DeployRunRecord | null> {
    return this.locks.withLock(runKey(siteId, runId), async () => {
      const run = await this.get(siteId, runId);
      if (!run) return null;
      const changed = change(run);
      await this.storage.setItem(runKey(siteId, runId), changed);
      return changed;
    });
  }

  /** The app's runs, newest first. */
  async list(siteId: string): Promise<DeployRunRecord[]> {
    const runs = await Promise.all((await this.ids(siteId)).map((id) => this.get(siteId, id)));
    return runs.filter((run): run is DeployRunRecord => run !== null);
  }

  /** The newest run, or null. */
  async latest(siteId: string): Promise<DeployRunRecord | null> {
    const [id] = await this.ids(siteId);
    return id ? this.get(siteId, id) : null;
  }

  /** Removes every run of the app. */
  async purge(siteId: string): Promise<void> {
    const ids = await this.locks.withLock(indexKey(siteId), async () => {
      const ids = await this.ids(siteId);
      await this.storage.removeItem(indexKey(siteId));
      return ids;
    });
    for (const id of ids) await this.storage.removeItem(runKey(siteId, id));
  }

  private async ids(siteId: string): Promise<string[]> {
    return (await this.storage.getItem<string[]>(indexKey(siteId))) ?? [];
  }
}
