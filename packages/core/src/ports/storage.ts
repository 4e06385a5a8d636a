import type { InjectionToken } from "tsyringe";
import type { Storage } from "unstorage";

/**
 * Key-value records. Any unstorage driver works: the embedded default is the `fs` driver under
 * the data directory; production setups use redis or db0 drivers. Keys use `:` as separator.
 */
export type RecordStorage = Storage;

export const STORAGE: InjectionToken<RecordStorage> = Symbol.for("reposite.Storage");
