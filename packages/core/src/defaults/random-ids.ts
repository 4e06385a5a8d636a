import { randomBytes } from "node:crypto";
import type { IdGenerator } from "../ports/ids.js";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case: no i, l, o, u

/** 16 characters of base32 from the CSPRNG: 80 bits, enough that ids cannot be guessed. */
export const randomIds: IdGenerator = {
  newId(prefix: string): string {
    const bytes = randomBytes(16);
    let id = "";
    for (const byte of bytes) id += ALPHABET[byte & 31];
    return `${prefix}_${id}`;
  },
};
