import type { Locks } from "@reposite/core";
import { describe, expect, it } from "vitest";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Mutual exclusion as core relies on it, proved the same way for each implementation. */
export function locksContract(name: string, makeLocks: () => Locks) {
  describe(`locks contract: ${name}`, () => {
    it("runs work under one name one at a time, in the order asked", async () => {
      const locks = makeLocks();
      const events: string[] = [];
      await Promise.all(
        ["a", "b", "c"].map((label) =>
          locks.withLock("index", async () => {
            events.push(`start ${label}`);
            await tick();
            events.push(`end ${label}`);
          }),
        ),
      );
      expect(events).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    });

    it("lets work under different names run side by side", async () => {
      const locks = makeLocks();
      const events: string[] = [];
      await Promise.all(
        ["x", "y"].map((label) =>
          locks.withLock(label, async () => {
            events.push(`start ${label}`);
            await tick();
            events.push(`end ${label}`);
          }),
        ),
      );
      expect(events.slice(0, 2)).toEqual(["start x", "start y"]);
    });

    it("returns the work's result and releases the lock when the work fails", async () => {
      const locks = makeLocks();
      await expect(locks.withLock("n", async () => { throw new Error("boom"); })).rejects.toThrow("boom");
      await expect(locks.withLock("n", async () => 42)).resolves.toBe(42);
    });
  });
}
