import { createReadStream, createWriteStream } from "node:fs";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { extract, pack, type Pack } from "tar-stream";
import { RepositeError } from "../errors.js";
import { sourceTreeFromArchive } from "../repo-analysis/source-tree-from-archive.js";
import type { SourceTree } from "../repo-analysis/source-tree.js";

/** A gzipped source archive larger than this is refused before anything is built. */
export const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;

/**
 * Writes the code host's archive to `file`, so it can be read twice (once to decide how to build,
 * once as the build context) without asking the host again.
 */
export async function spoolArchive(archive: ReadableStream<Uint8Array>, file: string, maxBytes = MAX_ARCHIVE_BYTES): Promise<void> {
  let bytes = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) done(new RepositeError(422, `The repository archive is larger than ${Math.round(maxBytes / 1024 / 1024)} MB.`, "repo_too_large"));
      else done(null, chunk);
    },
  });
  await pipeline(Readable.fromWeb(archive as never), cap, createWriteStream(file, { mode: 0o600 }));
}

/** What the build needs to know of a spooled archive: its small text files and its symbolic links. */
export interface ArchiveFacts {
  tree: SourceTree;
  /** Symbolic links by path, to their target as written. */
  links: Map<string, string>;
}

export async function readArchiveFacts(file: string): Promise<ArchiveFacts> {
  const tree = await sourceTreeFromArchive(Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>);
  const links = new Map<string, string>();
  const reader = extract();
  reader.on("entry", (header, stream, next) => {
    const path = stripTopFolder(header.name);
    if (path && header.type === "symlink" && header.linkname) links.set(path, header.linkname);
    stream.on("end", next).resume();
  });
  await pipeline(createReadStream(file), createGunzip(), reader);
  return { tree, links };
}

/**
 * Where `path` leads inside the repository, symbolic links followed; null when it leads out (an
 * absolute target, or `..` above the root) or loops. The build is refused then: the engine must
 * never be pointed at a file outside the repository.
 */
export function resolveInside(path: string, links: ReadonlyMap<string, string>): string | null {
  let parts = path.split("/");
  const resolved: string[] = [];
  let hops = 0;
  while (parts.length > 0) {
    const part = parts.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (resolved.length === 0) return null;
      resolved.pop();
      continue;
    }
    const target = links.get([...resolved, part].join("/"));
    if (target === undefined) {
      resolved.push(part);
      continue;
    }
    if (++hops > 40 || target.startsWith("/")) return null;
    parts = [...target.split("/"), ...parts];
  }
  return resolved.join("/");
}

/**
 * The build context: the archive's entries with the top folder removed (files, folders and links
 * inside the repository), then `extra` files (a written Dockerfile, the static server), which
 * replace files of the same path. Streamed: the archive is never held in memory.
 */
export function buildContext(file: string, extra: Record<string, string> = {}): Readable {
  const packer = pack();
  const reader = extract();
  const replaced = new Set(Object.keys(extra));
  reader.on("entry", (header, stream, next) => {
    const name = stripTopFolder(header.name);
    const skip = () => stream.on("end", () => next()).resume();
    if (!name || replaced.has(name.replace(/\/$/, ""))) return skip();
    const entry = { name, type: header.type, mode: header.mode, mtime: header.mtime, size: header.size };
    if (header.type === "file") {
      stream.pipe(packer.entry(entry, (error) => next(error ?? undefined)));
      return;
    }
    if (header.type === "directory") packer.entry(entry);
    // Links stay links; where they lead is the builder's business inside the context.
    else if (header.type === "symlink" && header.linkname) packer.entry({ ...entry, size: 0, linkname: header.linkname });
    skip();
  });
  reader.on("finish", () => {
    for (const [path, content] of Object.entries(extra)) packer.entry({ name: path, mode: 0o644, mtime: new Date(0) }, content);
    packer.finalize();
  });
  pipeline(createReadStream(file), createGunzip(), reader).catch((error: unknown) => packer.destroy(error as Error));
  return nodeStream(packer);
}

/** A context of a few files only (the bare box). */
export function contextOf(files: Record<string, string>): Readable {
  const packer = pack();
  for (const [path, content] of Object.entries(files)) packer.entry({ name: path, mode: 0o644, mtime: new Date(0) }, content);
  packer.finalize();
  return nodeStream(packer);
}

/** tar-stream packs are streamx streams; runtimes expect Node's. */
function nodeStream(packer: Pack): Readable {
  return Readable.from(packer, { objectMode: false });
}

/** `owner-repo-abc1234/src/index.ts` → `src/index.ts`; the folder itself → "". */
function stripTopFolder(name: string): string {
  const slash = name.indexOf("/");
  return slash === -1 ? "" : name.slice(slash + 1);
}
