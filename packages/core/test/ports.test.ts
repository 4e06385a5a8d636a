import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { locksContract, storageContract } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { describe, expect, it } from "vitest";
import { crashSafeFsDriver, createInProcessLocks, createReposite, randomIds, STORAGE } from "../src/index.js";

storageContract("unstorage memory driver", async () => ({ storage: createStorage(), teardown: async () => {} }));

storageContract("crash-safe fs driver (the embedded default)", async () => {
  const dir = await mkdtemp(join(tmpdir(), "reposite-storage-"));
  const storage = createStorage({ driver: crashSafeFsDriver({ base: dir }) });
  return {
    storage,
    teardown: () => rm(dir, { recursive: true, force: true }),
    driverInChild: { module: "@reposite/core", exportName: "crashSafeFsDriver", options: { base: dir } },
  };
});

describe("crash-safe fs driver", () => {
  it("keeps records readable by the service's user only, and makes an older world-readable folder private", async () => {
    const dir = await mkdtemp(join(tmpdir(), "reposite-modes-"));
    try {
      await mkdir(join(dir, "records"), { mode: 0o755 });
      await chmod(join(dir, "records"), 0o755);
      const storage = createStorage({ driver: crashSafeFsDriver({ base: join(dir, "records") }) });
      await storage.setItem("member-sessions:abc", { member_id: "m1" });
      const mode = async (path: string) => (await stat(join(dir, "records", path))).mode & 0o777;
      expect(await mode(".")).toBe(0o700);
      expect(await mode("member-sessions")).toBe(0o700);
      expect(await mode("member-sessions/abc")).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("treats a key no file may be named by as absent, refuses to write it, and never lists its temp files", async () => {
    const dir = await mkdtemp(join(tmpdir(), "reposite-keys-"));
    try {
      const storage = createStorage({ driver: crashSafeFsDriver({ base: join(dir, "records") }) });
      await writeFile(join(dir, "outside"), "secret");
      for (const key of ["jobs:\u0000", "jobs:.hidden", "jobs:a\nb"]) {
        expect(await storage.getItem(key)).toBeNull();
        expect(await storage.hasItem(key)).toBe(false);
        await expect(storage.setItem(key, { x: 1 })).rejects.toThrow(/invalid key/);
      }
      await storage.setItem("jobs:one", { id: "one" });
      expect(await storage.getKeys("")).toEqual(["jobs:one"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

locksContract("in-process locks (the embedded default)", createInProcessLocks);

describe("ids", () => {
  it("are prefixed, unguessable and distinct", () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => randomIds.newId("site")));
    expect(ids.size).toBe(10_000);
    for (const id of [...ids].slice(0, 100)) expect(id).toMatch(/^site_[0-9a-hjkmnp-tv-z]{16}$/);
  });
});

describe("createReposite", () => {
  it("keeps records under the data directory by default", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "reposite-data-"));
    const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
    try {
      await reposite.accounts.findOrCreate("ada@example.com");
      const again = createReposite({ config: { dataDir }, repoHosts: [] });
      expect(await again.accounts.findByEmail("ada@example.com")).not.toBeNull();
      await again.close();
    } finally {
      await reposite.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("takes the base URL with or without a trailing slash, so links never hold a double slash", async () => {
    const reposite = createReposite({ storage: createStorage(), config: { baseUrl: "https://reposite.example/" }, repoHosts: [] });
    try {
      expect(reposite.config.baseUrl).toBe("https://reposite.example");
    } finally {
      await reposite.close();
    }
  });

  it("lets an embedder replace any port, and keeps instances apart", async () => {
    const storage = createStorage();
    const fixed = { now: () => new Date("2030-05-06T07:08:09Z") };
    const embedded = createReposite({ storage, clock: fixed, repoHosts: [] });
    const other = createReposite({ storage: createStorage(), repoHosts: [] });
    expect(embedded.container.resolve(STORAGE)).toBe(storage);
    const { account } = await embedded.accounts.findOrCreate("ada@example.com");
    expect(account.created_at).toBe("2030-05-06 07:08:09");
    expect(await other.accounts.findByEmail("ada@example.com")).toBeNull();

    const replaced = createReposite({
      storage: createStorage(),
      repoHosts: [],
      register: (container) => container.register(STORAGE, { useValue: storage }),
    });
    expect(await replaced.accounts.findByEmail("ada@example.com")).not.toBeNull();
  });
});
