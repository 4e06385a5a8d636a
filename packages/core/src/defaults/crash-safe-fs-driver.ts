import { randomBytes } from "node:crypto";
import { constants, promises as fs } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { defineDriver } from "unstorage";

export interface CrashSafeFsOptions {
  /** Folder that holds the records; made (mode 0700) when missing. */
  base: string;
  /**
   * Flush each record (and its folder) to the disk before it replaces the old one, so a power
   * loss also leaves the old or the new record. Default true; a `kill -9` is survived either way.
   */
  durable?: boolean;
}

const DRIVER_NAME = "crash-safe-fs";
/** Half-written records live here until they are renamed into place; never listed as keys. */
const TEMP_DIR = ".tmp";
/** A temp file this old belongs to a writer that died; younger ones may be another process's write. */
const STALE_TEMP_MS = 60 * 60 * 1000;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/**
 * A key segment is a file or folder name: no `.`/`..`, no hidden names (temp files), no
 * separators or control characters. Keys that break this name no record: reads find nothing,
 * writes are refused, and no path outside `base` is ever touched.
 */
// eslint-disable-next-line no-control-regex
const BAD_SEGMENT = /^\.|[\u0000-\u001f\u007f/\\]/;

function pathOf(base: string, key: string): string | null {
  const segments = key.split(":");
  if (segments.some((segment) => segment === "" || BAD_SEGMENT.test(segment))) return null;
  return join(base, ...segments);
}

const isMissing = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
};

/**
 * unstorage driver for records on the local disk that a crash cannot tear: each write goes to a
 * temp file that is flushed, then renamed over the record, so every reader (in this process or
 * another) and every restart after a `kill -9` sees the old record or the new one, never a part.
 * Files are readable by the service's user only (0600 in 0700 folders): records hold password
 * hashes, sealed grants and sessions.
 */
export const crashSafeFsDriver = defineDriver((options: CrashSafeFsOptions) => {
  if (!options?.base) throw new Error(`[unstorage] [${DRIVER_NAME}] the "base" option is required.`);
  const base = resolve(options.base);
  const durable = options.durable ?? true;
  const tempDir = join(base, TEMP_DIR);
  let ready: Promise<void> | undefined;

  /** Makes the base private (also when an older version left it world-readable) and clears dead temp files. */
  const prepare = () =>
    (ready ??= (async () => {
      await fs.mkdir(tempDir, { recursive: true, mode: DIR_MODE });
      await fs.chmod(base, DIR_MODE);
      const now = Date.now();
      for (const name of await fs.readdir(tempDir)) {
        const file = join(tempDir, name);
        const stat = await fs.stat(file).catch(() => null);
        if (stat && now - stat.mtimeMs > STALE_TEMP_MS) await fs.rm(file, { force: true });
      }
    })());

  const keyPath = (key: string): string => {
    const path = pathOf(base, key);
    if (!path) throw new Error(`[unstorage] [${DRIVER_NAME}] invalid key ${JSON.stringify(key)}.`);
    return path;
  };

  async function read(key: string, encoding?: "utf8") {
    const path = pathOf(base, key);
    if (!path) return null;
    try {
      return await fs.readFile(path, encoding ? { encoding } : {});
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async function write(key: string, value: string | Uint8Array) {
    const path = keyPath(key);
    await prepare();
    const folder = dirname(path);
    await fs.mkdir(folder, { recursive: true, mode: DIR_MODE });
    const temp = join(tempDir, `${process.pid}-${randomBytes(8).toString("hex")}`);
    const handle = await fs.open(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, FILE_MODE);
    try {
      await handle.writeFile(value);
      if (durable) await handle.datasync();
    } catch (error) {
      await handle.close();
      await fs.rm(temp, { force: true });
      throw error;
    }
    await handle.close();
    try {
      await fs.rename(temp, path);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
    if (durable) await syncFolder(folder);
  }

  async function listFiles(folder: string, prefix: string, depth: number | undefined, keys: string[]) {
    let entries;
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const key = prefix ? `${prefix}:${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (depth === undefined || depth > 0) await listFiles(join(folder, entry.name), key, depth === undefined ? undefined : depth - 1, keys);
      } else if (entry.isFile()) {
        keys.push(key);
      }
    }
  }

  return {
    name: DRIVER_NAME,
    options,
    flags: { maxDepth: true },
    async hasItem(key) {
      const path = pathOf(base, key);
      if (!path) return false;
      const stat = await fs.stat(path).catch(() => null);
      return stat?.isFile() ?? false;
    },
    getItem: (key) => read(key, "utf8"),
    getItemRaw: (key) => read(key),
    setItem: (key, value) => write(key, value),
    setItemRaw: (key, value) => write(key, value as Uint8Array),
    async removeItem(key) {
      const path = pathOf(base, key);
      if (!path) return;
      await fs.rm(path, { force: true });
    },
    async getKeys(prefix, opts) {
      // Only the folder of the prefix is read, so listing one kind of record never walks the others.
      const folderKey = (prefix ?? "").replace(/:+$/, "");
      const folder = folderKey ? pathOf(base, folderKey) : base;
      if (!folder) return [];
      const keys: string[] = [];
      await listFiles(folder, folderKey, opts?.maxDepth, keys);
      return keys;
    },
    async clear(prefix) {
      const folderKey = (prefix ?? "").replace(/:+$/, "");
      if (!folderKey) {
        for (const name of await fs.readdir(base).catch(() => [])) {
          if (name !== TEMP_DIR) await fs.rm(join(base, name), { recursive: true, force: true });
        }
        return;
      }
      const folder = pathOf(base, folderKey);
      if (folder) await fs.rm(folder, { recursive: true, force: true });
    },
  };
});

/** A rename is durable once its folder's entry is on the disk. */
async function syncFolder(folder: string) {
  const handle = await fs.open(folder, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
