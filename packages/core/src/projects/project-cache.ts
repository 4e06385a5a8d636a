import { inject, injectable, type InjectionToken } from "tsyringe";
import { EVENTS, type EventBus } from "../ports/events.js";
import { isWellFormedId } from "../util/record-ids.js";
import { GenerationPlanStore } from "../generation/plan-store.js";
import { logoSource, type ColorMode, type ProjectRecord, type ProjectType, type Wizard } from "./project.js";
import { PROJECT_CHANGED_CHANNEL } from "./project-events.js";
import { ProjectStore } from "./project-store.js";

/** What a site's host needs of its project on every request: the app gate and the page frame. */
export interface CachedProject {
  id: string;
  owner_id: string;
  /** Only signed-in members may use the app at `/app/`. */
  auth_redirect_to_app: boolean;
  /** The project's design id ("" for the automatic pick). */
  design: string;
  color_mode: ColorMode;
  /** The copied logo as the pages draw it (`logoSource`), "" for none. */
  logo: string;
  type: ProjectType;
  repository_url: string;
}

export interface ProjectCacheSettings {
  /** Most bytes held (strings, the logo's data URL included, plus an allowance per entry); past it the least recently asked-for go. Default 8 MiB. */
  maxBytes: number;
}

export const DEFAULT_PROJECT_CACHE_SETTINGS: ProjectCacheSettings = { maxBytes: 8 * 1024 * 1024 };

/** Optional: register a `Partial<ProjectCacheSettings>` under it to change the cache's settings. */
export const PROJECT_CACHE_SETTINGS: InjectionToken<Partial<ProjectCacheSettings>> = Symbol.for("reposite.ProjectCacheSettings");

/** Bytes counted per entry besides its strings. An estimate. */
const ENTRY_OVERHEAD_BYTES = 512;

interface Entry {
  value: CachedProject | null;
  bytes: number;
}

/**
 * Projects as a site's host sees them, in memory, for the `/app/` proxy: it decides the members
 * gate without reading storage. A project is read once (concurrent first requests share one read)
 * and dropped when `PROJECT_CHANGED_CHANNEL` says it was written, so the next request reads it
 * again; deleted projects are remembered as null. The budget counts bytes, since a logo can weigh
 * tens of kilobytes.
 *
 * `peek` is synchronous and touches nothing but memory.
 */
@injectable()
export class ProjectCache {
  private readonly settings: ProjectCacheSettings;
  /** Least recently asked-for first. */
  private readonly entries = new Map<string, Entry>();
  private newest: string | undefined;
  private total = 0;
  private readonly loading = new Map<string, Promise<CachedProject | null>>();
  /** Projects changed while a read of them was under way: that read's answer is not kept. */
  private readonly changedWhileLoading = new Set<string>();
  private readonly unsubscribe: () => void;

  constructor(
    @inject(ProjectStore) private readonly store: ProjectStore,
    @inject(GenerationPlanStore) private readonly plans: GenerationPlanStore,
    @inject(EVENTS) events: EventBus,
    @inject(PROJECT_CACHE_SETTINGS, { isOptional: true }) settings?: Partial<ProjectCacheSettings>,
  ) {
    this.settings = { ...DEFAULT_PROJECT_CACHE_SETTINGS, ...settings };
    this.unsubscribe = events.subscribe(PROJECT_CHANGED_CHANNEL, (event) => {
      const id = (event as { id?: unknown } | null)?.id;
      if (typeof id === "string") this.invalidate(id);
    });
  }

  /** The project from memory: `null` when it does not exist, `undefined` when storage has to be asked (call `get`). */
  peek(id: string): CachedProject | null | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (this.newest !== id) {
      this.entries.delete(id);
      this.entries.set(id, entry);
      this.newest = id;
    }
    return entry.value;
  }

  /** The project, read from storage when memory does not hold it; null when there is none. */
  get(id: string): Promise<CachedProject | null> {
    const known = this.peek(id);
    if (known !== undefined) return Promise.resolve(known);
    let pending = this.loading.get(id);
    if (!pending) {
      pending = this.load(id).finally(() => {
        this.loading.delete(id);
        this.changedWhileLoading.delete(id);
      });
      this.loading.set(id, pending);
    }
    return pending;
  }

  /** Forgets a project; the next request reads storage. Change events call it. */
  invalidate(id: string): void {
    this.drop(id);
    if (this.loading.has(id)) this.changedWhileLoading.add(id);
  }

  /** Projects and bytes held now. */
  stats(): { projects: number; bytes: number; maxBytes: number } {
    return { projects: this.entries.size, bytes: this.total, maxBytes: this.settings.maxBytes };
  }

  /** Stops listening for change events and forgets everything. */
  close(): void {
    this.unsubscribe();
    this.entries.clear();
    this.total = 0;
    this.newest = undefined;
    this.loading.clear();
    this.changedWhileLoading.clear();
  }

  private async load(id: string): Promise<CachedProject | null> {
    const [record, plan] = isWellFormedId(id, "site") ? await Promise.all([this.store.get(id), this.plans.get(id)]) : [null, null];
    const value = record ? cachedProject(record, plan) : null;
    if (this.changedWhileLoading.has(id)) return value;
    const bytes = ENTRY_OVERHEAD_BYTES + (value ? value.logo.length + value.design.length + value.repository_url.length + value.id.length + value.owner_id.length : 0);
    this.drop(id);
    if (bytes > this.settings.maxBytes) return value;
    for (const oldest of this.entries.keys()) {
      if (this.total + bytes <= this.settings.maxBytes) break;
      this.drop(oldest);
    }
    this.entries.set(id, { value, bytes });
    this.total += bytes;
    this.newest = id;
    return value;
  }

  private drop(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.total -= entry.bytes;
    if (this.newest === id) this.newest = undefined;
  }
}

function cachedProject(record: ProjectRecord, plan: Wizard | null): CachedProject {
  return {
    id: record.id,
    owner_id: record.owner_id,
    auth_redirect_to_app: record.auth_redirect_to_app === true,
    design: record.design,
    color_mode: record.color_mode,
    logo: logoSource(record),
    type: plan?.mode ?? "landing",
    repository_url: record.repository.url,
  };
}
