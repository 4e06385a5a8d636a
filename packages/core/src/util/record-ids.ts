import { z } from "zod";

/** The type prefixes of the ids services hand out (`site_…`, `tok_…`, …). */
export type IdPrefix = "acct" | "job" | "login" | "member" | "reply" | "run" | "site" | "thread" | "tok" | "ver" | "verify";

/** After `<prefix>_`: what the default generator writes (base32) and what other generators may. */
const ID_REST = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Whether `value` can be an id of this type: `<prefix>_` followed by 1 to 100 letters, digits, `_`
 * or `-`. Ids arrive in URLs and bodies and become parts of storage keys, so services check this
 * before any read: `.`/`..`, `/`, `:`, `%`, NUL and everything else an id never has cannot reach a
 * storage driver, and such an id answers the same as a missing record.
 */
export function isWellFormedId(value: unknown, prefix: IdPrefix): value is string {
  return typeof value === "string" && value.startsWith(`${prefix}_`) && ID_REST.test(value.slice(prefix.length + 1));
}

/** A body field that holds an id; anything that cannot be one is `422 invalid_request` naming the field. */
export function idField(prefix: IdPrefix, field: string) {
  return z
    .string({ message: `${field} is required` })
    .refine((value) => isWellFormedId(value, prefix), `must be an id like ${prefix}_4k9x2m8q7w3n5p1z`);
}
