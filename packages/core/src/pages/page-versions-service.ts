import { inject, injectable } from "tsyringe";
import { createPageVersionSchema, makeVersionCurrentSchema, pageKindSchema } from "@reposite/contract";
import { notFound, RepositeError } from "../errors.js";
import type { PageContent } from "../generation/page-content.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import type { PageKind } from "../projects/project.js";
import { ProjectRecordsSplit } from "../projects/project-records-split.js";
import { ProjectStore } from "../projects/project-store.js";
import { ProjectsService } from "../projects/projects-service.js";
import { isWellFormedId } from "../util/record-ids.js";
import { formatTimestamp } from "../util/timestamps.js";
import { parseInput } from "../util/validation.js";
import {
  MAX_PAGE_HTML_BYTES,
  PAGE_KINDS,
  type PageVersionDetail,
  type PageVersionRecord,
  type PageVersionView,
} from "./page-version.js";

const versionKey = (id: string) => `page-versions:${id}`;
const historyKey = (siteId: string, kind: PageKind) => `page-history:${siteId}:${kind}`;
/** Which version of each page is current: this module's record of the project, under a lock of its own. */
const currentKey = (siteId: string) => `current-pages:${siteId}`;

/** The current version of each page that has one. */
type CurrentPages = Partial<Record<PageKind, string>>;

/** Each page's history of versions; one version per page is current. */
@injectable()
export class PageVersionsService {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(ProjectsService) private readonly projects: ProjectsService,
    @inject(ProjectStore) private readonly store: ProjectStore,
    @inject(ProjectRecordsSplit) private readonly split: ProjectRecordsSplit,
  ) {}

  /** Versions of the project's pages (of one kind when given), newest first, without HTML. */
  async list(ownerId: string, siteId: string, kind?: string): Promise<PageVersionView[]> {
    await this.projects.getOwned(ownerId, siteId);
    const current = await this.current(siteId);
    const kinds = kind === undefined || kind === "" ? PAGE_KINDS : [parseInput(pageKindSchema, kind)];
    const versions: PageVersionView[] = [];
    for (const each of kinds) {
      const ids = (await this.storage.getItem<string[]>(historyKey(siteId, each))) ?? [];
      const records = await Promise.all(ids.map((id) => this.storage.getItem<PageVersionRecord>(versionKey(id))));
      for (const record of records.reverse()) if (record) versions.push(view(record, current));
    }
    return versions;
  }

  async get(ownerId: string, versionId: string): Promise<PageVersionDetail> {
    const record = isWellFormedId(versionId, "ver") ? await this.storage.getItem<PageVersionRecord>(versionKey(versionId)) : null;
    if (!record || record.owner_id !== ownerId) throw notFound("Page version not found.");
    await this.projects.getOwned(ownerId, record.site_id);
    return { ...view(record, await this.current(record.site_id)), html: record.html };
  }

  /** The owner's own HTML for a page; it becomes the current version. */
  async addCustom(ownerId: string, siteId: string, input: unknown): Promise<PageVersionView> {
    await this.projects.getOwned(ownerId, siteId);
    const { kind, html, name } = parseInput(createPageVersionSchema, input);
    const bytes = Buffer.byteLength(html, "utf8");
    if (bytes > MAX_PAGE_HTML_BYTES) {
      throw new RepositeError(413, `The page's HTML is ${(bytes / 1024 / 1024).toFixed(1)} MB; at most 5 MB is allowed.`, "html_too_large");
    }
    return this.add({ ownerId, siteId, kind, name, html, source: "custom", design: null });
  }

  /** Stores a version and makes it the page's current one. */
  async add(input: {
    ownerId: string;
    siteId: string;
    kind: PageKind;
    name: string;
    html: string;
    source: PageVersionRecord["source"];
    design: string | null;
    /** A generated page's content, rendered again at each publish. */
    content?: PageContent;
  }): Promise<PageVersionView> {
    const record: PageVersionRecord = {
      id: this.ids.newId("ver"),
      site_id: input.siteId,
      owner_id: input.ownerId,
      kind: input.kind,
      name: input.name,
      html: input.html,
      source: input.source,
      design: input.design,
      ...(input.content ? { content: input.content } : {}),
      created_at: formatTimestamp(this.clock.now()),
    };
    await this.storage.setItem(versionKey(record.id), record);
    await this.locks.withLock(historyKey(input.siteId, input.kind), async () => {
      const ids = (await this.storage.getItem<string[]>(historyKey(input.siteId, input.kind))) ?? [];
      await this.storage.setItem(historyKey(input.siteId, input.kind), [...ids, record.id]);
    });
    return view(record, await this.setCurrent(input.siteId, input.kind, record.id));
  }

  /** Makes an earlier version of a page current again. */
  async makeCurrent(ownerId: string, siteId: string, input: unknown): Promise<PageVersionView> {
    await this.projects.getOwned(ownerId, siteId);
    const { kind, version_id } = parseInput(makeVersionCurrentSchema, input);
    const record = await this.storage.getItem<PageVersionRecord>(versionKey(version_id));
    if (!record || record.owner_id !== ownerId || record.site_id !== siteId) throw notFound("Page version not found.");
    if (record.kind !== kind) {
      throw new RepositeError(422, `Version ${version_id} is a version of the ${record.kind} page, not of ${kind}.`, "wrong_kind", { field: "kind" });
    }
    return view(record, await this.setCurrent(siteId, kind, record.id));
  }

  /** The current version of every page that has one, for publishing. */
  async currentPages(ownerId: string, siteId: string): Promise<PageVersionRecord[]> {
    await this.projects.getOwned(ownerId, siteId);
    const records = await Promise.all(Object.values(await this.current(siteId)).map((id) => this.storage.getItem<PageVersionRecord>(versionKey(id))));
    return records.filter((record): record is PageVersionRecord => record !== null);
  }

  /** Removes every version of the site's pages and their histories. For a purge of the project. */
  async purgeSite(siteId: string): Promise<void> {
    if (!isWellFormedId(siteId, "site")) return;
    for (const kind of PAGE_KINDS) {
      await this.locks.withLock(historyKey(siteId, kind), async () => {
        for (const id of (await this.storage.getItem<string[]>(historyKey(siteId, kind))) ?? []) {
          if (isWellFormedId(id, "ver")) await this.storage.removeItem(versionKey(id));
        }
        await this.storage.removeItem(historyKey(siteId, kind));
      });
    }
    await this.locks.withLock(currentKey(siteId), () => this.storage.removeItem(currentKey(siteId)));
  }

  private async current(siteId: string): Promise<CurrentPages> {
    await this.split.ready();
    return (await this.storage.getItem<CurrentPages>(currentKey(siteId))) ?? {};
  }

  /** Under the pages' own lock: a page made current never waits on a project write or a deploy. */
  private async setCurrent(siteId: string, kind: PageKind, versionId: string): Promise<CurrentPages> {
    if (!(await this.store.get(siteId))) throw notFound("Project not found.");
    await this.split.ready();
    return this.locks.withLock(currentKey(siteId), async () => {
      const current = { ...(await this.storage.getItem<CurrentPages>(currentKey(siteId))), [kind]: versionId };
      await this.storage.setItem(currentKey(siteId), current);
      return current;
    });
  }
}

function view(record: PageVersionRecord, current: CurrentPages): PageVersionView {
  return {
    id: record.id,
    kind: record.kind,
    name: record.name,
    source: record.source,
    design: record.design,
    created_at: record.created_at,
    current: current[record.kind] === record.id,
  };
}
