import { inject, injectable } from "tsyringe";
import { EVENTS, type EventBus } from "../ports/events.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { PROJECT_CHANGED_CHANNEL, type ProjectChanged } from "../projects/project-events.js";
import { ProjectRecordsSplit } from "../projects/project-records-split.js";
import type { DeploymentStatus } from "../projects/deployment.js";
import { ReadThroughMemory } from "../util/read-through-memory.js";
import { shownStatus, type DeploymentRecord } from "./deployment-record.js";

/** One app per project, named by the project's id. Its lock is its own: a deploy never waits on a project write (a generation, a rename). */
const recordKey = (siteId: string) => `deployments:${siteId}`;

/**
 * Where hosting keeps each project's app (`deployments:<site_id>`): the only place that knows the
 * key. Other modules read an app through `get`; only hosting changes it. A change is announced on
 * `PROJECT_CHANGED_CHANNEL` with the project's id, as a project change is, so the caches that show
 * an app with its project (the `/app/` host, the list's `app_status`) follow on every replica.
 */
@injectable()
export class DeploymentStore {
  /** Each app's shown status (null: none), for project lists: emptied by changes, here at once and elsewhere by their events. */
  private readonly statuses = new ReadThroughMemory<DeploymentStatus | null>(50_000);

  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(EVENTS) private readonly events: EventBus,
    @inject(ProjectRecordsSplit) private readonly split: ProjectRecordsSplit,
  ) {
    events.subscribe(PROJECT_CHANGED_CHANNEL, (event) => {
      const id = (event as Partial<ProjectChanged> | null)?.id;
      if (typeof id === "string") this.statuses.forget(id);
    });
  }

  /** The project's app, or null when none is set up. */
  async get(siteId: string): Promise<DeploymentRecord | null> {
    await this.split.ready();
    return this.storage.getItem<DeploymentRecord>(recordKey(siteId));
  }

  /** The status a read of the app shows (`shownStatus`), or null without an app; from memory once read (what lists show). */
  status(siteId: string): Promise<DeploymentStatus | null> {
    return this.statuses.get(siteId, async () => {
      const record = await this.get(siteId);
      return record ? shownStatus(record) : null;
    });
  }

  /**
   * Changes the app under its lock, so writers (a deploy, an env change, a stop) never undo each
   * other. `change` gets null when there is no app; answering null removes it, answering the record
   * it was given writes nothing. Answers the record as it is afterwards.
   */
  async modify(
    siteId: string,
    change: (current: DeploymentRecord | null) => DeploymentRecord | null | Promise<DeploymentRecord | null>,
  ): Promise<DeploymentRecord | null> {
    await this.split.ready();
    return this.locks.withLock(recordKey(siteId), async () => {
      const current = await this.storage.getItem<DeploymentRecord>(recordKey(siteId));
      const next = await change(current);
      if (next === current) return current;
      if (next) await this.storage.setItem(recordKey(siteId), next);
      else await this.storage.removeItem(recordKey(siteId));
      this.statuses.forget(siteId);
      this.events.publish(PROJECT_CHANGED_CHANNEL, { id: siteId } satisfies ProjectChanged);
      return next;
    });
  }

  /** As `modify`, for an app that exists: answers null, and writes nothing, when there is none. */
  update(siteId: string, change: (current: DeploymentRecord) => DeploymentRecord | Promise<DeploymentRecord>): Promise<DeploymentRecord | null> {
    return this.modify(siteId, (current) => (current ? change(current) : null));
  }

  /** The app answers under its site's address: when the slug moves from `oldUrl` to `newUrl`, so does the app's (`PublishingService` calls it). */
  async followAddress(siteId: string, oldUrl: string | null, newUrl: string): Promise<void> {
    if (!oldUrl) return;
    await this.update(siteId, (deployment) =>
      deployment.url.startsWith(`${oldUrl}/`) ? { ...deployment, url: newUrl + deployment.url.slice(oldUrl.length) } : deployment,
    );
  }

  /** The app's record goes (the project keeps no trace of it). */
  async remove(siteId: string): Promise<void> {
    await this.modify(siteId, () => null);
  }
}
