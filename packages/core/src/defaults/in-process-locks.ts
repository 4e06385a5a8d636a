import type { Locks } from "../ports/locks.js";

/** Locks that hold inside one process: each name is a promise chain. */
export function createInProcessLocks(): Locks {
  const tails = new Map<string, Promise<unknown>>();
  return {
    async withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
      const previous = tails.get(name) ?? Promise.resolve();
      const result = previous.catch(() => undefined).then(work);
      const tail = result.catch(() => undefined);
      tails.set(name, tail);
      try {
        return await result;
      } finally {
        if (tails.get(name) === tail) tails.delete(name);
      }
    },
  };
}
