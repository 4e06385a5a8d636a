import type { Storage } from "unstorage";

const METHODS = ["getItem", "getItems", "getItemRaw", "hasItem", "getKeys", "getMeta", "setItem", "setItems", "setItemRaw", "removeItem"] as const;

export interface StorageTouches {
  /** `method(key)` for each call since the last clear, lease keys left out. */
  touched(): string[];
  clear(): void;
  stop(): void;
}

/**
 * Records which storage keys the service reads or writes, to prove a hot path decides from memory.
 * Lease keys are left out: replicas renew them on a timer whatever the requests, and a slow machine
 * stretches a test's window over a renewal.
 */
export function watchStorage(storage: Storage): StorageTouches {
  const touched: string[] = [];
  const originals = METHODS.map((method) => [method, storage[method]] as const);
  for (const [method, original] of originals) {
    (storage as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const key = String(args[0]);
      if (!key.startsWith("leases:")) touched.push(`${method}(${key})`);
      return (original as (...a: unknown[]) => unknown).apply(storage, args);
    };
  }
  return {
    touched: () => [...touched],
    clear: () => void touched.splice(0),
    stop: () => originals.forEach(([method, original]) => ((storage as unknown as Record<string, unknown>)[method] = original)),
  };
}
