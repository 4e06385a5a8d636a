import type { RecordStorage } from "@reposite/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * What core needs of a storage driver, proved the same way for each one: JSON records under
 * `:`-separated keys, read back as written, removable, and listable by prefix.
 */
export function storageContract(name: string, setup: () => Promise<{ storage: RecordStorage; teardown(): Promise<void> }>) {
  describe(`storage contract: ${name}`, () => {
    let storage: RecordStorage;
    let teardown: () => Promise<void>;
    beforeAll(async () => ({ storage, teardown } = await setup()));
    afterAll(() => teardown());

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
  });
}
