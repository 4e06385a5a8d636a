import { randomBytes } from "node:crypto";
import { chmod, link, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { InjectionToken } from "tsyringe";
import { SECRET_KEY_BYTES } from "./encryption.js";

/** Gives the key that seals secrets at rest (code-host grants, app env); called on first use. */
export type SecretKeyLoader = () => Promise<Uint8Array>;

/**
 * Registered by the composition, for example with
 * `() => loadOrCreateSecretKey(config.dataDir, process.env.REPOSITE_SECRET_KEY)`.
 */
export const SECRET_KEY: InjectionToken<SecretKeyLoader> = Symbol.for("reposite.SecretKey");

export const SECRET_KEY_FILE = "secret.key";

/**
 * The key from `envValue` (REPOSITE_SECRET_KEY) when set, else from `<dataDir>/secret.key`,
 * which is created with a fresh random key (mode 0600) the first time. Several replicas sharing
 * records must share the key: set REPOSITE_SECRET_KEY on each of them.
 */
export async function loadOrCreateSecretKey(dataDir: string, envValue?: string): Promise<Uint8Array> {
  if (envValue !== undefined && envValue.trim() !== "") return parseSecretKey(envValue, "REPOSITE_SECRET_KEY");
  const file = join(dataDir, SECRET_KEY_FILE);
  const existing = await readKeyFile(file);
  if (existing) return existing;

  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(SECRET_KEY_BYTES);
  // Written aside and linked into place: a replica starting at the same moment either wins the
  // link or reads the winner's complete file, never a half-written one.
  const pending = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(pending, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    await chmod(pending, 0o600);
    await link(pending, file);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const winner = await readKeyFile(file);
    if (!winner) throw error;
    return winner;
  } finally {
    await unlink(pending).catch(() => {});
  }
}

/**
 * A 32-byte key written as hex (64 characters) or base64 / base64url; anything else is refused
 * with a message naming `source` and how to make a key, never repeating the value.
 */
export function parseSecretKey(text: string, source: string): Uint8Array {
  const value = text.trim();
  if (/^[0-9a-f]{64}$/i.test(value)) return Buffer.from(value, "hex");
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(value)) {
    const key = Buffer.from(value.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (key.length === SECRET_KEY_BYTES) return key;
  }
  throw new Error(
    `[reposite] ${source} must be ${SECRET_KEY_BYTES} bytes written as base64 or hex; make one with \`openssl rand -base64 32\`.`,
  );
}

async function readKeyFile(file: string): Promise<Uint8Array | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  return parseSecretKey(text, file);
}
