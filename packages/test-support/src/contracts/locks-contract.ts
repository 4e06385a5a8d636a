import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Locks } from "@reposite/core";
import { describe, expect, it } from "vitest";

/** How a child process makes the same locks: `import(module)[exportName](options)` is a `Locks`. */
export interface LocksFactorySpec {
  module: string;
  exportName: string;
  options: unknown;
}

export interface LocksContractOptions {
  /** For locks shared between processes: a holder in another process, killed with SIGKILL mid-work. */
  inChild?: LocksFactorySpec;
  /** How soon a killed holder's lock must be free again; default 5 s. */
  releaseBoundMs?: number;
}

const HOLDER = fileURLToPath(new URL("../locks-holder.mjs", import.meta.url));

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Mutual exclusion as core relies on it, proved the same way for each implementation. */
export function locksContract(name: string, makeLocks: () => Locks, options: LocksContractOptions = {}) {
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

    it("frees a lock whose holder in another process is killed (SIGKILL), within the bound", async (test) => {
      const spec = options.inChild;
      if (!spec) return test.skip("these locks hold inside one process");
      const locks = makeLocks();
      const name = `contract-killed-holder-${process.pid}-${Date.now()}`;
      const child = spawn(process.execPath, [HOLDER, JSON.stringify(spec), name], { stdio: ["ignore", "pipe", "inherit"] });
      const exited = new Promise((resolve) => child.once("exit", resolve));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("held") && resolve());
        child.once("exit", (code) => reject(new Error(`the holder exited (${code}) before it held the lock`)));
      });
      let acquiredAt = 0;
      const taken = locks.withLock(name, async () => {
        acquiredAt = Date.now();
      });
      // While the other process holds it, nobody here gets it.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(acquiredAt, "taken while another process held it").toBe(0);
      const killedAt = Date.now();
      child.kill("SIGKILL");
      await exited;
      await taken;
      expect(acquiredAt - killedAt).toBeLessThan(options.releaseBoundMs ?? 5_000);
      await (locks as Locks & { close?: () => Promise<void> }).close?.();
    });
  });
}
