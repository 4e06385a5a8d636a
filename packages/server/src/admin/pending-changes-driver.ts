import { defineDriver, type Driver } from "unstorage";

/** What a removed key reads as in `changes`. */
const REMOVED = Symbol("removed");

/**
 * An unstorage driver that reads `under` and keeps every write in memory, so a step written for
 * live storage (the project records split) can run over a data directory being copied without
 * changing a byte of it. Raw reads of unchanged records go to `under`, so bytes copy as they are.
 */
export const pendingChangesDriver = defineDriver((under: Driver) => {
  const changes = new Map<string, string | Uint8Array | typeof REMOVED>();
  const changed = (key: string) => changes.has(key);
  const valueOf = (key: string) => {
    const value = changes.get(key);
    return value === REMOVED || value === undefined ? null : value;
  };
  return {
    name: "pending-changes",
    hasItem: async (key, options) => (changed(key) ? valueOf(key) !== null : Boolean(await under.hasItem(key, options))),
    getItem: async (key, options) => (changed(key) ? textOf(valueOf(key)) : ((await under.getItem(key, options)) ?? null)),
    getItemRaw: async (key, options) => {
      if (changed(key)) return bytesOf(valueOf(key));
      return under.getItemRaw ? ((await under.getItemRaw(key, options)) ?? null) : bytesOf((await under.getItem(key, options)) as string | null);
    },
    setItem: async (key, value) => void changes.set(key, value),
    setItemRaw: async (key, value) => void changes.set(key, value as Uint8Array),
    removeItem: async (key) => void changes.set(key, REMOVED),
    getKeys: async (base, options) => {
      const kept = (await under.getKeys(base, options)).filter((key) => !changed(key) || valueOf(key) !== null);
      const listed = new Set(kept);
      const added = [...changes.keys()].filter((key) => valueOf(key) !== null && !listed.has(key));
      return [...kept, ...added];
    },
    clear: async () => {
      throw new Error("[unstorage] [pending-changes] clear is not supported");
    },
  };
});

function textOf(value: string | Uint8Array | null): string | null {
  return value === null || typeof value === "string" ? value : Buffer.from(value).toString("utf8");
}

function bytesOf(value: string | Uint8Array | null): Uint8Array | null {
  return value === null ? null : typeof value === "string" ? Buffer.from(value, "utf8") : value;
}
