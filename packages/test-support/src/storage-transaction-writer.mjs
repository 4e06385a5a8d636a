// Child process of the storage contract's transaction crash test: rewrites every one of
// CRASH_KEYS to the same version inside one `withTransaction`, in a loop until it is killed.
// Argument: JSON {module, exportName, options} naming the unstorage driver factory. Loads the
// built @reposite/core (plain node): `npm run build -w @reposite/core`.
import { withTransaction } from "@reposite/core";
import { createStorage } from "unstorage";
import { crashRecord, CRASH_KEYS } from "./storage-crash-records.mjs";

const { module, exportName, options } = JSON.parse(process.argv[2]);
const factory = (await import(module))[exportName];
const storage = createStorage({ driver: factory(options) });

const writeAll = (version) =>
  withTransaction(storage, async (tx) => {
    for (const key of CRASH_KEYS) await tx.setItem(key, crashRecord(version));
  });

let version = Number(process.argv[3] ?? 1);
await writeAll(version++);
process.stdout.write("ready\n");
for (;;) await writeAll(version++);
