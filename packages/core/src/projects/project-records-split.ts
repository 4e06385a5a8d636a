import { inject, injectable } from "tsyringe";
import { CLOCK, type Clock } from "../ports/clock.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { projectLockKey } from "./project-store.js";

/**
 * A field earlier releases kept on the project record, and the record of its own it moved to.
 * The module named owns that record now; the project refers to nothing, the record names the
 * project by its id.
 */
interface MovedField {
  field: string;
  owner: string;
  key: (siteId: string) => string;
}

export const MOVED_PROJECT_FIELDS: readonly MovedField[] = [
  { field: "deployment", owner: "hosting", key: (siteId) => `deployments:${siteId}` },
  { field: "wizard", owner: "generation", key: (siteId) => `plans:${siteId}` },
  { field: "current_pages", owner: "pages", key: (siteId) => `current-pages:${siteId}` },
];

const PROJECT_PREFIX = "projects:";
/** Written once a field has been moved out of every project record: later starts read this one record and go on. */
const doneKey = (field: string) => `migrations:project-records:${field}`;

/**
 * Moves what earlier releases embedded in `projects:<site_id>` into the owning module's records,
 * once per data directory or database, idempotently: each project is changed under its own lock
 * (the one `ProjectStore.modify` takes), a record already moved is never overwritten, and the
 * whole step runs under one lock so replicas starting together do it once. The stores of the moved
 * records wait for `ready()` before their first read, so an old data directory is served as before.
 */
@injectable()
export class ProjectRecordsSplit {
  private done: Promise<void> | undefined;

  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Resolves once every moved field is out of the project records (at most one pass per process; a failed pass is tried again). */
  ready(): Promise<void> {
    const done = (this.done ??= this.run().then(
      () => undefined,
      (error: unknown) => {
        this.done = undefined;
        throw error;
      },
    ));
    return done;
  }

  /** Moves the fields still embedded anywhere; answers how many it moved (one per field and project). */
  async run(): Promise<number> {
    let changed = 0;
    for (const moved of MOVED_PROJECT_FIELDS) {
      if (await this.storage.hasItem(doneKey(moved.field))) continue;
      changed += await this.locks.withLock(doneKey(moved.field), async () => {
        if (await this.storage.hasItem(doneKey(moved.field))) return 0;
        let count = 0;
        for (const key of await this.storage.getKeys(PROJECT_PREFIX)) {
          const siteId = key.slice(PROJECT_PREFIX.length);
          if (!siteId || siteId.includes(":")) continue;
          if (await this.moveOne(siteId, moved)) count += 1;
        }
        await this.storage.setItem(doneKey(moved.field), { moved: count, at: this.clock.now().toISOString() });
        return count;
      });
    }
    return changed;
  }

  private moveOne(siteId: string, moved: MovedField): Promise<boolean> {
    return this.locks.withLock(projectLockKey(siteId), async () => {
      const project = await this.storage.getItem<Record<string, unknown>>(`${PROJECT_PREFIX}${siteId}`);
      if (!project || !(moved.field in project)) return false;
      const { [moved.field]: value, ...rest } = project;
      // The record first, then the project without it: a pass stopped between the two is finished by the next.
      if (value !== null && value !== undefined && !(await this.storage.hasItem(moved.key(siteId)))) {
        await this.storage.setItem(moved.key(siteId), value);
      }
      await this.storage.setItem(`${PROJECT_PREFIX}${siteId}`, rest);
      return true;
    });
  }
}
