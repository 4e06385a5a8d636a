import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { crc32 } from "node:zlib";

/** Every secret starts with this, so secret scanners (and people) recognise a leaked Reposite token. */
export const TOKEN_PREFIX = "rps_";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_CHARS = 30; // 30 × log2(62) ≈ 178 bits from the CSPRNG
const CHECKSUM_CHARS = 6;

function toBase62(value: number, width: number): string {
  let out = "";
  for (let i = 0; i < width; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: dropping larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

const checksum = (body: string) => toBase62(crc32(body), CHECKSUM_CHARS);

/** A new secret: prefix, random part, and a CRC32 checksum like GitHub's tokens carry. */
export function newTokenSecret(): string {
  const body = randomBase62(RANDOM_CHARS);
  return `${TOKEN_PREFIX}${body}${checksum(body)}`;
}

/** Cheap shape check: rejects typos and foreign strings without a storage read. */
export function looksLikeTokenSecret(secret: string): boolean {
  if (!secret.startsWith(TOKEN_PREFIX) || secret.length !== TOKEN_PREFIX.length + RANDOM_CHARS + CHECKSUM_CHARS) return false;
  const body = secret.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + RANDOM_CHARS);
  if (![...body].every((char) => BASE62.includes(char))) return false;
  return secret.endsWith(checksum(body));
}

/** Only this hash is stored; the secret itself is shown once and forgotten. */
export const hashTokenSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
