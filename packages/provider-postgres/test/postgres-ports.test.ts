import { eventsContract, locksContract, postgresForTests, startPostgres, storageContract } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { afterAll, describe } from "vitest";
import { createPostgresEvents, createPostgresLocks, openPool, postgresStorageDriver } from "../src/index.js";

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
});
