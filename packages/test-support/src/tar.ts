import { gunzipSync, gzipSync } from "node:zlib";

/** One entry of a tar archive; folder paths end without a slash. */
export interface TarEntry {
  path: string;
  type: "file" | "directory";
  content: Uint8Array;
}

const BLOCK = 512;

/**
 * A gzipped ustar archive of `files` under the folder `root`, with an entry for every folder, the
 * way GitHub's tarballs look (`<owner>-<repo>-<sha7>/…`).
 */
export function createTarball(files: Record<string, string | Uint8Array>, root: string): Buffer {
  const entries: TarEntry[] = [{ path: root, type: "directory", content: new Uint8Array() }];
  const folders = new Set<string>([root]);
  for (const [name, content] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
    const path = `${root}/${name.replace(/^\/+/, "")}`;
    const parts = path.split("/");
    for (let i = 2; i < parts.length; i++) {
      const folder = parts.slice(0, i).join("/");
      if (!folders.has(folder)) {
        folders.add(folder);
        entries.push({ path: folder, type: "directory", content: new Uint8Array() });
      }
    }
    entries.push({ path, type: "file", content: typeof content === "string" ? Buffer.from(content) : content });
  }
  return gzipSync(writeTar(entries));
}

/** A plain (not gzipped) ustar archive. */
export function writeTar(entries: TarEntry[], mtime = new Date(0)): Buffer {
  const chunks: Buffer[] = [];
  for (const entry of entries) {
    const size = entry.type === "file" ? entry.content.byteLength : 0;
    chunks.push(header(entry, size, mtime));
    if (size > 0) {
      chunks.push(Buffer.from(entry.content));
      chunks.push(Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK));
    }
  }
  chunks.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(chunks);
}

/** Entries of a tar archive, gunzipping first when needed. Skips pax headers (GitHub adds one). */
export function readTar(archive: Uint8Array): TarEntry[] {
  const tar = archive[0] === 0x1f && archive[1] === 0x8b ? gunzipSync(archive) : Buffer.from(archive);
  const entries: TarEntry[] = [];
  for (let offset = 0; offset + BLOCK <= tar.length; ) {
    const block = tar.subarray(offset, offset + BLOCK);
    if (block.every((byte) => byte === 0)) break;
    const name = text(block, 0, 100);
    const size = parseInt(text(block, 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(block[156] ?? 0);
    const prefix = block.subarray(257, 263).toString("latin1").startsWith("ustar") ? text(block, 345, 155) : "";
    const content = tar.subarray(offset + BLOCK, offset + BLOCK + size);
    const path = (prefix ? `${prefix}/${name}` : name).replace(/\/+$/, "");
    if (type === "0" || type === "\0") entries.push({ path, type: "file", content: new Uint8Array(content) });
    else if (type === "5") entries.push({ path, type: "directory", content: new Uint8Array() });
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}

function header(entry: TarEntry, size: number, mtime: Date): Buffer {
  const block = Buffer.alloc(BLOCK);
  const [prefix, name] = splitPath(entry.type === "directory" ? `${entry.path}/` : entry.path);
  block.write(name, 0, 100, "utf8");
  octal(block, 100, 8, entry.type === "directory" ? 0o755 : 0o644);
  octal(block, 108, 8, 0);
  octal(block, 116, 8, 0);
  octal(block, 124, 12, size);
  octal(block, 136, 12, Math.floor(mtime.getTime() / 1000));
  block.write(" ".repeat(8), 148, 8, "latin1"); // checksum is computed with this field as spaces
  block.write(entry.type === "directory" ? "5" : "0", 156, 1, "latin1");
  block.write("ustar\u000000", 257, 8, "latin1");
  block.write(prefix, 345, 155, "utf8");
  const checksum = block.reduce((sum, byte) => sum + byte, 0);
  block.write(`${checksum.toString(8).padStart(6, "0")}\u0000 `, 148, 8, "latin1");
  return block;
}

/** ustar keeps names up to 100 bytes, longer ones split at a slash into a 155-byte prefix. */
function splitPath(path: string): [prefix: string, name: string] {
  if (Buffer.byteLength(path) <= 100) return ["", path];
  for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name) return [prefix, name];
  }
  throw new Error(`[test-support] [tar] path too long for ustar: ${path}`);
}

function octal(block: Buffer, offset: number, length: number, value: number): void {
  block.write(`${value.toString(8).padStart(length - 1, "0")}\u0000`, offset, length, "latin1");
}

function text(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString("utf8");
}
