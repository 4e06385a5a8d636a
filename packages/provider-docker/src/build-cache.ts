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
}

/** The records a build made, with its labels (the run's left out): how an app's cache is found again. */
interface BuildEntry {
  labels: Record<string, string>;
  ids: string[];
}

/** A record made while a build ran may be dated up to this much outside it (clock rounding). */
const CLOCK_MARGIN_MS = 1_000;

/**
 * How long after a build its records are listed. `/system/df` measures everything on Docker 20.10
 * (images, containers, volumes) and runs one at a time: asked at once, it slowed the new
 * container's start. Records are told by their dates, so asking later finds the same ones.
 */
const LIST_AFTER_MS = 3_000;

/** The tar context of a `/build` request: an `http url http://build-context-<id>` source, copied once. Never used again. */
const isContext = (record: CacheRecord) => /^http url http:\/\/build-context-/.test(record.Description ?? "") || (record.Description === "fileop target" && !record.Parent);

/**
 * BuildKit's cache records, per app. BuildKit keeps a record for each step it ran and each
 * context it received, outside any image and with no labels of their own. After each build, the
 * records made while it ran are listed (`GET /system/df`): the context's are pruned at once (each
 * build sends a new one), the steps' are noted under the build's labels and pruned when the app's
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

  /** Notes the records made from `since` to `until` (ms) under `labels`, and prunes the build's context, a moment later. */
  afterBuild(labels: Record<string, string>, since: number, until = Date.now()): Promise<void> {
    const later = new Promise((resolve) => setTimeout(resolve, LIST_AFTER_MS).unref()).then(() => this.note(labels, since, until));
    this.pending.add(later);
    void later.catch(() => undefined).finally(() => this.pending.delete(later));
    return later;
  }

  private note(labels: Record<string, string>, since: number, until: number): Promise<void> {
    return this.serially(async () => {
      const made = (await this.records()).filter((record) => {
        const created = Date.parse(record.CreatedAt);
        return created >= since - CLOCK_MARGIN_MS && created <= until + CLOCK_MARGIN_MS;
      });
      const context = made.filter(isContext).map((record) => record.ID);
      await this.prune(context);
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

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
