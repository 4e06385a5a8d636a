import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";

/** A random secret for links and cookies: 32 bytes from the CSPRNG, URL-safe. */
export const newSecret = () => randomBytes(32).toString("base64url");

/** Secrets are stored by hash only, so a leaked store does not leak working links or sessions. */
export const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

/** Compares two strings without leaking where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** `length` characters drawn uniformly from `alphabet` with the CSPRNG. */
export function randomString(alphabet: string, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}
