import { z } from "zod";

/** What follows `<prefix>_` in an id: what the server's generator writes, and what others may. */
const ID_REST = "[A-Za-z0-9_-]{1,100}";

/**
 * A body or query field that holds an id of one type (`ver_…`, `login_…`): `<prefix>_` and up to
 * 100 letters, digits, `_` or `-`. Anything else is `422 invalid_request` naming the field. (Ids
 * in the path are plain strings: one that no id can be answers as a missing record, `404`.)
 */
export function idSchema(prefix: string, field: string) {
  return z
    .string({ message: `${field} is required` })
    .regex(new RegExp(`^${prefix}_${ID_REST}$`), `must be an id like ${prefix}_4k9x2m8q7w3n5p1z`);
}
