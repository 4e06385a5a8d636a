import { inject, injectable } from "tsyringe";
import { EVENTS, type EventBus } from "../ports/events.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { ReadThroughMemory } from "../util/read-through-memory.js";
import { withTransaction } from "../util/storage-transactions.js";
import type { ProjectRecord } from "./project.js";
import { PROJECT_CHANGED_CHANNEL, type ProjectChanged } from "./project-events.js";

const recordKey = (id: string) => `projects:${id}`;
/** The lock `modify` takes: the project's own fields only (its app is a record of its own, under its own lock). */
export const projectLockKey = recordKey;
/** Per-owner index: listing one account's projects reads this record and those projects, nothing else. */
const ownerIndexKey = (ownerId: string) => `owner-projects:${ownerId}`;

/** A project as lists show it: the record without its logo image (tens of kilobytes, which lists never draw). */
export type ProjectSummary = Omit<ProjectRecord, "logo_image">;

/** Projects and accounts whose lists are kept in memory (about a kilobyte a project). */
const MEMORY_PROJECTS = 50_000;
const MEMORY_OWNERS = 10_000;

/**
 * Where project records live. The only place that knows their storage keys, and so the one that
 * says on `PROJECT_CHANGED_CHANNEL` when a record changed (ProjectCache follows it).
 */
@injectable()
export class ProjectStore {
  /** What `summariesByOwner` answers from: filled by reads, emptied by changes (this process's at once, other replicas' by their events). */
  private readonly summaries = new ReadThroughMemory<ProjectSummary | null>(MEMORY_PROJECTS);
  private readonly ownerLists = new ReadThroughMemory<string[]>(MEMORY_OWNERS);

  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(EVENTS) private readonly events: EventBus,
  ) {
    events.subscribe(PROJECT_CHANGED_CHANNEL, (event) => {
      const { id, owner_id: ownerId } = (event ?? {}) as Partial<ProjectChanged>;
      if (typeof id === "string") this.summaries.forget(id);
      if (typeof ownerId === "string") this.ownerLists.forget(ownerId);
    });
  }

  get(id: string): Promise<ProjectRecord | null> {
    return this.storage.getItem<ProjectRecord>(recordKey(id));
  }

  async insert(project: ProjectRecord): Promise<void> {
    await this.locks.withLock(ownerIndexKey(project.owner_id), () =>
      // The record first, then the owner's list that points to it: one transaction where the storage has them.
      withTransaction(this.storage, async (tx) => {
        await tx.setItem(recordKey(project.id), project);
        const ids = (await tx.getItem<string[]>(ownerIndexKey(project.owner_id))) ?? [];
        await tx.setItem(ownerIndexKey(project.owner_id), [...ids, project.id]);
      }),
    );
    this.changed(project.id, project.owner_id);
  }

  /**
   * Changes a project under its lock, so writers (a PATCH, a page becoming current, a deploy)
   * never undo each other. Answers the changed record, or null when the project is gone.
   */
  modify(id: string, change: (project: ProjectRecord) => ProjectRecord | Promise<ProjectRecord>): Promise<ProjectRecord | null> {
    return this.modifyWith(id, change, async () => {});
  }

  /**
   * As `modify`, with other records that must hold together with the change (a slug claim):
   * `alongWith` writes them through `tx`, in the same transaction as the project where the storage
   * has transactions, and before it elsewhere. Nothing is written when the project is gone.
   */
  async modifyWith(
    id: string,
    change: (project: ProjectRecord) => ProjectRecord | Promise<ProjectRecord>,
    alongWith: (tx: RecordStorage) => Promise<void>,
  ): Promise<ProjectRecord | null> {
    return this.locks.withLock(projectLockKey(id), async () => {
      const project = await this.get(id);
      if (!project) return null;
      const changed = await change(project);
      await withTransaction(this.storage, async (tx) => {
        await alongWith(tx);
        await tx.setItem(recordKey(id), changed);
      });
      this.changed(id);
      return changed;
    });
  }

  async remove(project: ProjectRecord): Promise<void> {
    await this.locks.withLock(ownerIndexKey(project.owner_id), async () => {
      const ids = await this.ownerIds(project.owner_id);
      await this.storage.setItem(
        ownerIndexKey(project.owner_id),
        ids.filter((id) => id !== project.id),
      );
    });
    await this.storage.removeItem(recordKey(project.id));
    this.changed(project.id, project.owner_id);
  }

  /** One owner's projects in the order they were created. */
  async listByOwner(ownerId: string): Promise<ProjectRecord[]> {
    const ids = await this.ownerIds(ownerId);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((record): record is ProjectRecord => record !== null);
  }

  /**
   * One owner's projects as lists show them, in the order they were created, from memory once read:
   * the list of a busy account costs no storage read until one of its projects changes.
   */
  async summariesByOwner(ownerId: string): Promise<ProjectSummary[]> {
    const ids = await this.ownerLists.get(ownerId, () => this.ownerIds(ownerId));
    const summaries = await Promise.all(ids.map((id) => this.summaries.get(id, async () => summaryOf(await this.get(id)))));
    return summaries.filter((summary): summary is ProjectSummary => summary !== null);
  }

  private changed(id: string, ownerId?: string): void {
    // Forgotten here at once: the events port may deliver even this process's own events later.
    this.summaries.forget(id);
    if (ownerId) this.ownerLists.forget(ownerId);
    this.events.publish(PROJECT_CHANGED_CHANNEL, { id, ...(ownerId ? { owner_id: ownerId } : {}) } satisfies ProjectChanged);
  }

  private async ownerIds(ownerId: string): Promise<string[]> {
    return (await this.storage.getItem<string[]>(ownerIndexKey(ownerId))) ?? [];
  }
}

function summaryOf(record: ProjectRecord | null): ProjectSummary | null {
  if (!record) return null;
  const { logo_image: _image, ...summary } = record;
  return summary;
}
