import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** AES-256 takes a 32-byte key. */
export const SECRET_KEY_BYTES = 32;

const VERSION = "v1";
const ALGORITHM = "aes-256-gcm";
/** 96 bits: the IV size GCM is designed for; random per message, so one key may seal many. */
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals `plain` with AES-256-GCM as `v1.<iv>.<ciphertext>.<tag>` (base64url parts). `context`,
 * when given, is authenticated but not stored: pass the record's key so a sealed value copied
 * into another record does not open there.
 */
export function encryptSecret(plain: string, key: Uint8Array, context?: string): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  if (context !== undefined) cipher.setAAD(Buffer.from(context, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [VERSION, iv, ciphertext, cipher.getAuthTag()].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
}

/**
 * Opens what `encryptSecret` sealed. Throws when the value was changed, was sealed with another
 * key or another `context`, or is not in a known format; the message never carries the value.
 */
export function decryptSecret(sealed: string, key: Uint8Array, context?: string): string {
  assertKey(key);
  const parts = sealed.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION) {
    throw new Error(`[reposite] [encryption] The sealed value is not in the ${VERSION} format.`);
  }
  const [iv, ciphertext, tag] = parts.slice(1).map((part) => Buffer.from(part, "base64url"));
  if (iv!.length !== IV_BYTES || tag!.length !== TAG_BYTES) {
    throw new Error("[reposite] [encryption] The sealed value is damaged.");
  }
  try {
    const decipher = createDecipheriv(ALGORITHM, key, iv!, { authTagLength: TAG_BYTES });
    if (context !== undefined) decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(ciphertext!), decipher.final()]).toString("utf8");
  } catch {
    throw new Error("[reposite] [encryption] The sealed value could not be opened: it was changed, or sealed with another key.");
  }
}

function assertKey(key: Uint8Array): void {
  if (key.length !== SECRET_KEY_BYTES) {
    throw new Error(`[reposite] [encryption] The key must be ${SECRET_KEY_BYTES} bytes, not ${key.length}.`);
  }
}
