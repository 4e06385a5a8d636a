import type { InjectionToken } from "tsyringe";

/**
 * Makes identifiers for records. Ids must be unguessable: they appear in URLs. An id is the prefix,
 * `_`, then 1 to 100 letters, digits, `_` or `-` (`isWellFormedId`): services refuse anything else
 * as unknown without reading storage, so an id outside that shape could never be found again.
 */
export interface IdGenerator {
  /** A new random id, for example `site_4k9x2m8q7w3n5p1z`. */
  newId(prefix: string): string;
}

export const IDS: InjectionToken<IdGenerator> = Symbol.for("reposite.IdGenerator");
