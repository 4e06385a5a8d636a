import { eventsContract, locksContract, postgresForTests, startPostgres, storageContract } from "@reposite/test-support";
import { supportsTransactions } from "@reposite/core";
import { createStorage } from "unstorage";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresEvents, createPostgresLocks, migrate, MIGRATIONS, openPool, postgresStorageDriver } from "../src/index.js";

const postgres = postgresForTests();
// One cluster for the whole file: the contracts' child processes need its address when cases are collected.
const server = postgres.available ? await startPostgres() : null;
const url = server?.url ?? "postgres://unavailable";
const lockPool = openPool({ url, max: 20 });
afterAll(async () => {
  await lockPool.end();
  await server?.stop();
});
// Child processes load the built package (plain node): `npm run build -w @reposite/provider-postgres`.
const MODULE = "@reposite/provider-postgres";

describe.skipIf(!server)("provider-postgres", () => {
  storageContract("postgres storage driver", async () => {
    const storage = createStorage({ driver: postgresStorageDriver({ url }) });
    return {
      storage,
      teardown: () => storage.dispose(),
      driverInChild: { module: MODULE, exportName: "postgresStorageDriver", options: { url } },
    };
  });

  locksContract("postgres advisory locks", () => createPostgresLocks({ pool: lockPool }), {
    inChild: { module: MODULE, exportName: "createPostgresLocks", options: { url } },
    releaseBoundMs: 2_000,
  });

  eventsContract("postgres LISTEN/NOTIFY", async () => {
    const bus = createPostgresEvents({ url });
    return { bus, teardown: () => bus.close(), inChild: { module: MODULE, exportName: "createPostgresEvents", options: { url } } };
  });

  it("declares transactions and ttl, and deletes expired records in its sweep", async () => {
    const storage = createStorage({ driver: postgresStorageDriver({ url, sweepEveryMs: 200 }) });
    try {
      expect(supportsTransactions(storage)).toBe(true);
      await storage.setItem("sweep-test:due", { v: 1 }, { ttl: 1 });
      await storage.setItem("sweep-test:kept", { v: 1 });
      const rows = () => lockPool.query<{ key: string }>("SELECT key FROM reposite_records WHERE key LIKE 'sweep-test:%' ORDER BY key");
      expect((await rows()).rows.map((row) => row.key)).toEqual(["sweep-test:due", "sweep-test:kept"]);
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      expect((await rows()).rows.map((row) => row.key)).toEqual(["sweep-test:kept"]);
    } finally {
      await storage.dispose();
    }
  });

  it("migrates a new database once when several replicas start together, and finds nothing to do after", async () => {
    const admin = openPool({ url, max: 1 });
    await admin.query("CREATE DATABASE fresh_migrations");
    await admin.end();
    const fresh = openPool({ url: url.replace(/\/postgres$/, "/fresh_migrations"), max: 6 });
    try {
      const runs = await Promise.all([migrate(fresh), migrate(fresh), migrate(fresh)]);
      expect(runs.flat().sort()).toEqual(MIGRATIONS.map((step) => step.version));
      expect(await migrate(fresh)).toEqual([]);
      const { rows } = await fresh.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
      expect(rows.map((row) => row.table_name)).toEqual(["reposite_event_payloads", "reposite_records", "reposite_schema_migrations"]);
    } finally {
      await fresh.end();
    }
  });
});
