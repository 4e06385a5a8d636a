import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type Docker from "dockerode";
import { engineBuildCache } from "./engine-disk-usage.js";

/** A BuildKit cache record as `GET /system/df` lists it. */
interface CacheRecord {
  ID: string;
  Parent?: string;
  Description?: string;
  CreatedAt: string;
  InUse?: boolean;
}

/** The records a build made, with its labels (the run's left out): how an app's cache is found again. */
interface BuildEntry {
  labels: Record<string, string>;
  ids: string[];
}

/** A record made while a build ran may be dated up to this much outside it (clock rounding). */
const CLOCK_MARGIN_MS = 1_000;
/**
 * The build's context records are dated before it goes past loading them (within this much). Narrower than the clock
 * margin: a build that starts right after this one ended must not look like this one's.
 */
const CONTEXT_MARGIN_MS = 250;

/**
 * How long after a build its records are listed. `/system/df` measures everything on Docker 20.10
 * (images, containers, volumes) and runs one at a time: asked at once, it slowed the new
 * container's start. Records are told by their dates, so asking later finds the same ones.
 */
const LIST_AFTER_MS = 3_000;

/** The tar context of a `/build` request: an `http url http://build-context-<id>` source, copied once. Never used again. */
const isContext = (record: CacheRecord) => contextKind(record) !== null;
const contextKind = (record: CacheRecord) =>
  /^http url http:\/\/build-context-/.test(record.Description ?? "") ? "download" : record.Description === "fileop target" && !record.Parent ? "copy" : null;

/**
 * A context record no build uses after this long is left over (its build's own bookkeeping could
 * not tell it from another's): pruned by the next build's. Builds read their context as they start.
 */
const STALE_CONTEXT_MS = 60 * 60_000;

/**
 * BuildKit's cache records, per app. BuildKit keeps a record for each step it ran and each
 * context it received, outside any image and with no labels of their own. After each build, the
 * records made while it ran are listed (`GET /system/df`): its context's are pruned at once (each
 * build sends a new one; see `ownContext`), the steps' are noted under the build's labels and pruned when the app's
 * cache is removed (`POST /build/prune`, filtered by their ids). A record made while two builds ran
 * is noted for both: removing one app then costs the other a cache miss, never a wrong image.
 * The notes live in `indexFile` (a JSON file) so a restarted server still finds them; in memory
 * without one.
 */
export class BuildCache {
  private entries: BuildEntry[] | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly pending = new Set<Promise<void>>();
  private readonly measure: ReturnType<typeof engineBuildCache>;

  constructor(
    private readonly docker: Docker,
    private readonly indexFile?: string,
  ) {
    this.measure = engineBuildCache(docker);
  }

  /**
   * Notes the records made from `since` to `until` (ms) under `labels`, and prunes the build's
   * context (loaded by `contextLoaded`), a moment later.
   */
  afterBuild(labels: Record<string, string>, since: number, until = Date.now(), contextLoaded = until): Promise<void> {
    const later = new Promise((resolve) => setTimeout(resolve, LIST_AFTER_MS).unref()).then(() => this.note(labels, since, until, contextLoaded));
    this.pending.add(later);
    void later.catch(() => undefined).finally(() => this.pending.delete(later));
    return later;
  }

  private note(labels: Record<string, string>, since: number, until: number, contextLoaded: number): Promise<void> {
    return this.serially(async () => {
      const records = await this.records();
      const madeWithin = (from: number, to: number, margin: number) => (record: CacheRecord) => {
        const created = Date.parse(record.CreatedAt);
        return created >= from - margin && created <= to + margin;
      };
      const made = records.filter(madeWithin(since, until, CLOCK_MARGIN_MS));
      await this.prune([...ownContext(records.filter(madeWithin(since, contextLoaded, CONTEXT_MARGIN_MS))), ...staleContexts(records)]);
      const ids = made.filter((record) => !isContext(record)).map((record) => record.ID);
      if (ids.length === 0) return;
      const entries = await this.load();
      const same = entries.find((entry) => sameLabels(entry.labels, labels));
      if (same) same.ids = [...new Set([...same.ids, ...ids])];
      else entries.push({ labels, ids });
      await this.save(entries);
    });
  }

  /** Prunes the records of every build whose labels include all of `labels` (once the builds' notes are taken). */
  async remove(labels: Record<string, string>): Promise<void> {
    await Promise.allSettled([...this.pending]);
    return this.serially(async () => {
      const entries = await this.load();
      const matching = entries.filter((entry) => Object.entries(labels).every(([key, value]) => entry.labels[key] === value));
      if (matching.length === 0) return;
      const others = new Set(entries.filter((entry) => !matching.includes(entry)).flatMap((entry) => entry.ids));
      await this.prune([...new Set(matching.flatMap((entry) => entry.ids))].filter((id) => !others.has(id)));
      await this.save(entries.filter((entry) => !matching.includes(entry)));
    });
  }

  private async records(): Promise<CacheRecord[]> {
    return (await this.measure()).BuildCache ?? [];
  }

  /** One request: the `id` filter is a regular expression on this Engine (and takes one value). */
  private async prune(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const filters = JSON.stringify({ id: [`^(${ids.map((id) => id.replace(/[^a-z0-9]/gi, "")).join("|")})$`] });
    await this.docker.pruneBuilder({ all: true, filters } as never);
  }

  private async load(): Promise<BuildEntry[]> {
    if (this.entries) return this.entries;
    const text = this.indexFile ? await readFile(this.indexFile, "utf8").catch(() => "[]") : "[]";
    try {
      this.entries = JSON.parse(text) as BuildEntry[];
    } catch {
      this.entries = [];
    }
    return this.entries;
  }

  private async save(entries: BuildEntry[]): Promise<void> {
    this.entries = entries;
    if (!this.indexFile) return;
    await mkdir(dirname(this.indexFile), { recursive: true });
    const temporary = `${this.indexFile}.tmp`;
    await writeFile(temporary, JSON.stringify(entries), { mode: 0o600 });
    await rename(temporary, this.indexFile);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }
}

/**
 * This build's context records: those made while it loaded its context, when they are the only ones
 * of their kind then. Another client's build may have sent its context a moment later, within the
 * clock margin, and be about to read it (a record is not "in use" between its download and its
 * first read): pruned then, that build fails with "context not found". Ambiguous ones are left
 * for `staleContexts`.
 */
function ownContext(sending: CacheRecord[]): string[] {
  const ids: string[] = [];
  for (const kind of ["download", "copy"] as const) {
    const ofKind = sending.filter((record) => contextKind(record) === kind && !record.InUse);
    if (ofKind.length === 1) ids.push(ofKind[0]!.ID);
  }
  return ids;
}

/** Context records of builds long past their start, not in use: no build reads them again. */
function staleContexts(records: CacheRecord[], now = Date.now()): string[] {
  return records.filter((record) => isContext(record) && !record.InUse && now - Date.parse(record.CreatedAt) > STALE_CONTEXT_MS).map((record) => record.ID);
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
