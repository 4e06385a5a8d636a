// Child process of the storage contract's crash test: writes large records in a loop until it
// is killed. Argument: JSON {module, exportName, options} naming the unstorage driver factory.
import { createStorage } from "unstorage";
import { crashRecord, CRASH_KEYS } from "./storage-crash-records.mjs";

const { module, exportName, options } = JSON.parse(process.argv[2]);
const factory = (await import(module))[exportName];
const storage = createStorage({ driver: factory(options) });

let version = Number(process.argv[3] ?? 1);
for (const key of CRASH_KEYS) await storage.setItem(key, crashRecord(version++));
process.stdout.write("ready\n");
for (;;) {
  for (const key of CRASH_KEYS) await storage.setItem(key, crashRecord(version++));
}
