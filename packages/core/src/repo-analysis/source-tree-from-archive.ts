import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { extract } from "tar-stream";
import { RepositeError } from "../errors.js";
import type { SourceTree } from "./source-tree.js";

export interface ArchiveLimits {
  /** Bytes of the unpacked archive read at most; a larger repository is refused. */
  maxTotalBytes: number;
  /** Files larger than this are listed but not kept (analysis reads manifests, not assets). */
  maxFileBytes: number;
  /** Files listed at most. */
  maxFiles: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxTotalBytes: 512 * 1024 * 1024,
  maxFileBytes: 512 * 1024,
  maxFiles: 200_000,
};

/** Folders whose contents never tell how to build: skipped to keep big repositories cheap. */
const SKIPPED = /(^|\/)(node_modules|\.git|vendor\/bundle|\.venv|venv|__pycache__|\.next|dist|build|target)\//;

/**
 * Reads a gzipped tarball as code hosts serve them (one top-level folder, `owner-repo-sha/`)
 * into a source tree, streaming: only small text files are kept in memory.
 */
export async function sourceTreeFromArchive(
  archive: ReadableStream<Uint8Array>,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): Promise<SourceTree> {
  const files = new Map<string, string | null>();
  let total = 0;
  const tar = extract();
  tar.on("entry", (header, stream, next) => {
    const path = stripTopFolder(header.name);
    const size = header.size ?? 0;
    total += size;
    if (total > limits.maxTotalBytes || files.size >= limits.maxFiles) {
      // Stopping the extractor fails the entry stream too; the pipeline reports the reason once.
      stream.on("error", () => undefined).resume();
      next(
        new RepositeError(
          422,
          `The repository is too large to read: over ${megabytes(limits.maxTotalBytes)} unpacked or over ${limits.maxFiles} files.`,
          "repo_too_large",
        ),
      );
      return;
    }
    if (header.type !== "file" || !path || SKIPPED.test(path)) {
      stream.on("end", next).resume();
      return;
    }
    if (size > limits.maxFileBytes) {
      files.set(path, null);
      stream.on("end", next).resume();
      return;
    }
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
    stream.on("end", () => {
      const bytes = Buffer.concat(chunks);
      files.set(path, bytes.includes(0) ? null : bytes.toString("utf8"));
      next();
    });
  });
  await pipeline(Readable.fromWeb(archive as never), createGunzip(), tar);
  const sorted = [...files.keys()].sort();
  return {
    paths: () => sorted,
    read: (path) => files.get(normalize(path)) ?? null,
    has: (path) => files.has(normalize(path)),
  };
}

const megabytes = (bytes: number) => `${Math.max(1, Math.round(bytes / 1024 / 1024))} MB`;
const normalize = (path: string) => path.replace(/^\.?\//, "");

/** `owner-repo-abc1234/src/index.ts` → `src/index.ts`; the folder itself → "". */
function stripTopFolder(name: string): string {
  const slash = name.indexOf("/");
  return slash === -1 ? "" : name.slice(slash + 1);
}
