import { inject, injectable } from "tsyringe";
import { EVENTS, type EventBus } from "../ports/events.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import type { Wizard } from "../projects/project.js";
import { PROJECT_CHANGED_CHANNEL, type ProjectChanged } from "../projects/project-events.js";
import { ProjectRecordsSplit } from "../projects/project-records-split.js";

/** One plan per project, named by its id, under a lock of its own (a generation never waits on a project write or a deploy). */
const planKey = (siteId: string) => `plans:${siteId}`;

/**
 * Where generation keeps each project's plan (`plans:<site_id>`): its type and pages, saved when a
 * site is generated with a full plan. Other modules read it through `get`; only generation writes
 * it. A change is announced on `PROJECT_CHANGED_CHANNEL` with the project's id, so what is kept of
 * a project in memory (its type, in `ProjectCache`) follows on every replica.
 */
@injectable()
export class GenerationPlanStore {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(EVENTS) private readonly events: EventBus,
    @inject(ProjectRecordsSplit) private readonly split: ProjectRecordsSplit,
  ) {}

  /** The project's plan, or null until it is generated with one. */
  async get(siteId: string): Promise<Wizard | null> {
    await this.split.ready();
    return this.storage.getItem<Wizard>(planKey(siteId));
  }

  async set(siteId: string, plan: Wizard): Promise<void> {
    await this.split.ready();
    await this.locks.withLock(planKey(siteId), () => this.storage.setItem(planKey(siteId), plan));
    this.events.publish(PROJECT_CHANGED_CHANNEL, { id: siteId } satisfies ProjectChanged);
  }

  /** The plan goes with its project. */
  async remove(siteId: string): Promise<void> {
    await this.split.ready();
    await this.locks.withLock(planKey(siteId), () => this.storage.removeItem(planKey(siteId)));
    this.events.publish(PROJECT_CHANGED_CHANNEL, { id: siteId } satisfies ProjectChanged);
  }
}
