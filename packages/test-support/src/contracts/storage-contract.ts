import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { supportsTransactions, withTransaction, type RecordStorage } from "@reposite/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CRASH_KEYS, crashRecord, isWholeCrashRecord } from "../storage-crash-records.mjs";

/** How a child process opens the same storage: `import(module)[exportName](options)` is an unstorage driver. */
export interface StorageDriverSpec {
  module: string;
  exportName: string;
  options: unknown;
}

export interface StorageContractSetup {
  storage: RecordStorage;
  teardown(): Promise<void>;
  /** For drivers that persist: lets the contract kill a writing process and read what it left. */
  driverInChild?: StorageDriverSpec;
}

const WRITER = fileURLToPath(new URL("../storage-crash-writer.mjs", import.meta.url));
/** Ten processes started and killed: slow on a loaded machine, so more than vitest's default. */
const KILL_TEST_TIMEOUT_MS = 120_000;
const TRANSACTION_WRITER = fileURLToPath(new URL("../storage-transaction-writer.mjs", import.meta.url));

/** Starts a child that writes until it is killed; resolves once its first write is done. */
async function startWriter(script: string, spec: StorageDriverSpec, firstVersion: number) {
  const child = spawn(process.execPath, [script, JSON.stringify(spec), String(firstVersion)], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`the writer exited (${code}) before it was ready`)));
  });
  return { child, exited };
}

/**
 * What core needs of a storage driver, proved the same way for each one: JSON records under
 * `:`-separated keys, read back as written, removable, listable by prefix; readers see the old
 * or the new record while it is rewritten, and a writer killed mid-write leaves one of the two.
 */
export function storageContract(name: string, setup: () => Promise<StorageContractSetup>) {
  describe(`storage contract: ${name}`, () => {
    let storage: RecordStorage;
    let context: StorageContractSetup;
    beforeAll(async () => {
      context = await setup();
      storage = context.storage;
    });
    afterAll(() => context.teardown());

    it("reads back a record exactly as written", async () => {
      const record = { id: "site_1", nested: { list: [1, "two", null], flag: true }, text: "ünïcödé ✓", empty: "" };
      await storage.setItem("projects:site_1", record);
      expect(await storage.getItem("projects:site_1")).toEqual(record);
      await storage.setItem("owner-projects:acct_1", ["site_1", "site_2"]);
      expect(await storage.getItem("owner-projects:acct_1")).toEqual(["site_1", "site_2"]);
    });

    it("answers null for a missing key and forgets removed ones", async () => {
      expect(await storage.getItem("projects:missing")).toBeNull();
      await storage.setItem("projects:gone", { id: "gone" });
      await storage.removeItem("projects:gone");
      expect(await storage.getItem("projects:gone")).toBeNull();
      expect(await storage.hasItem("projects:gone")).toBe(false);
    });

    it("overwrites a record in place", async () => {
      await storage.setItem("tokens:t", { n: 1 });
      await storage.setItem("tokens:t", { n: 2 });
      expect(await storage.getItem("tokens:t")).toEqual({ n: 2 });
    });

    it("lists keys under a prefix, and only those", async () => {
      await storage.setItem("account-list:a1", "x");
      await storage.setItem("account-list:a2", "y");
      await storage.setItem("account-listing:other", "z");
      expect((await storage.getKeys("account-list")).sort()).toEqual(["account-list:a1", "account-list:a2"]);
    });

    it("gives readers the old or the new record while it is rewritten, never a part of one", async () => {
      const key = "contract-concurrency:record";
      await storage.setItem(key, crashRecord(0));
      let writing = true;
      const seen: unknown[] = [];
      const writers = Array.from({ length: 3 }, async (_, writer) => {
        for (let round = 1; round <= 15; round++) await storage.setItem(key, crashRecord(writer * 100 + round));
      });
      const readers = Array.from({ length: 6 }, async () => {
        while (writing) {
          const value = await storage.getItem(key);
          if (!isWholeCrashRecord(value)) seen.push(typeof value === "string" ? `${value.length} characters of text` : value);
        }
      });
      await Promise.all(writers);
      writing = false;
      await Promise.all(readers);
      expect(seen, "torn or missing records seen by readers").toEqual([]);
    });

    it("leaves the old or the new record when the writing process is killed (SIGKILL) mid-write", async (test) => {
      const spec = context.driverInChild;
      if (!spec) return test.skip("this driver keeps nothing outside its process");
      for (let kill = 0; kill < 10; kill++) {
        const child = spawn(process.execPath, [WRITER, JSON.stringify(spec), String(kill * 100_000 + 1)], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        const exited = new Promise((resolve) => child.once("exit", resolve));
        await new Promise<void>((resolve, reject) => {
          child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
          child.once("exit", (code) => reject(new Error(`the writer exited (${code}) before it was ready`)));
        });
        // A different moment each round: somewhere inside one of the next few writes.
        await new Promise((resolve) => setTimeout(resolve, 3 + ((kill * 7) % 25)));
        child.kill("SIGKILL");
        await exited;
        for (const key of CRASH_KEYS) {
          const value = await storage.getItem(key);
          expect(isWholeCrashRecord(value), `${key} after kill ${kill + 1}`).toBe(true);
        }
      }
    }, KILL_TEST_TIMEOUT_MS);

    it("commits the writes of withTransaction together; a failure between them leaves neither where the driver declares transactions, and the writes made before it where it does not", async () => {
      await storage.setItem("tx-contract:record", { v: 0 });
      await storage.setItem("tx-contract:index", ["old"]);
      const failing = withTransaction(storage, async (tx) => {
        await tx.setItem("tx-contract:record", { v: 1 });
        expect(await tx.getItem("tx-contract:record"), "a transaction reads its own writes").toEqual({ v: 1 });
        throw new Error("injected between the writes");
      });
      await expect(failing).rejects.toThrow("injected between the writes");
      const allOrNothing = supportsTransactions(storage);
      // The file store's documented behaviour: ordered writes, each whole, the ones made before a failure kept.
      expect(await storage.getItem("tx-contract:record")).toEqual(allOrNothing ? { v: 0 } : { v: 1 });
      expect(await storage.getItem("tx-contract:index")).toEqual(["old"]);

      const answer = await withTransaction(storage, async (tx) => {
        await tx.setItem("tx-contract:record", { v: 2 });
        await tx.setItem("tx-contract:index", ["old", "new"]);
        await tx.removeItem("tx-contract:gone");
        return "done";
      });
      expect(answer).toBe("done");
      expect(await storage.getItem("tx-contract:record")).toEqual({ v: 2 });
      expect(await storage.getItem("tx-contract:index")).toEqual(["old", "new"]);
    });

    it("forgets a record written with unstorage's ttl option once it is due where the driver declares ttl, and keeps it where it does not", async () => {
      const nativeExpiry = storage.getMount("").driver.flags?.ttl === true;
      await storage.setItem("ttl-contract:short", { v: 1 }, { ttl: 1 });
      await storage.setItem("ttl-contract:kept", { v: 1 });
      await storage.setItem("ttl-contract:renewed", { v: 1 }, { ttl: 1 });
      await storage.setItem("ttl-contract:renewed", { v: 2 }, { ttl: 60 });
      expect(await storage.getItem("ttl-contract:short")).toEqual({ v: 1 });
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      // The file store keeps it: core's ExpiringRecords removes such records there (documented).
      expect(await storage.getItem("ttl-contract:short")).toEqual(nativeExpiry ? null : { v: 1 });
      expect(await storage.hasItem("ttl-contract:short")).toBe(!nativeExpiry);
      expect((await storage.getKeys("ttl-contract")).sort()).toEqual(
        nativeExpiry ? ["ttl-contract:kept", "ttl-contract:renewed"] : ["ttl-contract:kept", "ttl-contract:renewed", "ttl-contract:short"],
      );
      expect(await storage.getItem("ttl-contract:renewed")).toEqual({ v: 2 });
    });

    it("hides a transaction's writes from other readers until it commits, where the driver declares transactions", async (test) => {
      if (!supportsTransactions(storage)) return test.skip("writes of this driver are seen as they are made (documented)");
      await storage.setItem("tx-contract:pending", { v: 0 });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let written!: () => void;
      const wrote = new Promise<void>((resolve) => (written = resolve));
      const running = withTransaction(storage, async (tx) => {
        await tx.setItem("tx-contract:pending", { v: 1 });
        written();
        await held;
      });
      await wrote;
      expect(await storage.getItem("tx-contract:pending")).toEqual({ v: 0 });
      release();
      await running;
      expect(await storage.getItem("tx-contract:pending")).toEqual({ v: 1 });
    });

    it("leaves all the records of a transaction old or all new when its writing process is killed (SIGKILL) mid-transaction", async (test) => {
      const spec = context.driverInChild;
      if (!spec) return test.skip("this driver keeps nothing outside its process");
      const allOrNothing = supportsTransactions(storage);
      for (let kill = 0; kill < 8; kill++) {
        const { child, exited } = await startWriter(TRANSACTION_WRITER, spec, kill * 100_000 + 1);
        await new Promise((resolve) => setTimeout(resolve, 5 + ((kill * 11) % 40)));
        child.kill("SIGKILL");
        await exited;
        const values = await Promise.all(CRASH_KEYS.map((key) => storage.getItem<{ version: number }>(key)));
        for (const [index, value] of values.entries()) expect(isWholeCrashRecord(value), `${CRASH_KEYS[index]} after kill ${kill + 1}`).toBe(true);
        // Without transactions each record is whole but they may be of different writes (documented).
        if (allOrNothing) expect(new Set(values.map((value) => value!.version)).size, `versions after kill ${kill + 1}`).toBe(1);
      }
    }, KILL_TEST_TIMEOUT_MS);
  });
}
