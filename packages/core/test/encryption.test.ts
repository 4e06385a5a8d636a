import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret } from "../src/util/encryption.js";
import { loadOrCreateSecretKey, parseSecretKey } from "../src/util/secret-key.js";

const key = randomBytes(32);
const PLAIN = "gho_16C7e42F292c6912E7710c838347Ae178B4a";

/** `sealed` with one character of part `index` (1 iv, 2 ciphertext, 3 tag) changed. */
function tamper(sealed: string, index: number): string {
  const parts = sealed.split(".");
  const bytes = Buffer.from(parts[index]!, "base64url");
  bytes[0] = bytes[0]! ^ 0x01;
  parts[index] = bytes.toString("base64url");
  return parts.join(".");
}

describe("encryptSecret / decryptSecret", () => {
  it("round-trips text, unicode and the empty string", () => {
    for (const plain of [PLAIN, "Grüße 日本語 🚀", ""]) {
      expect(decryptSecret(encryptSecret(plain, key), key)).toBe(plain);
    }
  });

  it("writes a versioned value of base64url parts with a fresh 96-bit IV each time", () => {
    const first = encryptSecret(PLAIN, key);
    const second = encryptSecret(PLAIN, key);
    expect(first).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(first).not.toBe(second);
    expect(first.split(".")[1]).not.toBe(second.split(".")[1]);
    expect(first).not.toContain(PLAIN);
  });

  it("detects any change to the IV, the ciphertext or the tag", () => {
    const sealed = encryptSecret(PLAIN, key);
    for (const index of [1, 2, 3]) {
      expect(() => decryptSecret(tamper(sealed, index), key)).toThrow(/could not be opened/);
    }
    expect(() => decryptSecret(sealed.slice(0, -2), key)).toThrow();
    expect(() => decryptSecret(`v2${sealed.slice(2)}`, key)).toThrow(/v1 format/);
    expect(() => decryptSecret("not sealed", key)).toThrow(/v1 format/);
  });

  it("fails with another key, and never shows the value in the error", () => {
    const sealed = encryptSecret(PLAIN, key);
    let message = "";
    try {
      decryptSecret(sealed, randomBytes(32));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/another key/);
    expect(message).not.toContain(PLAIN);
    expect(message).not.toContain(sealed);
  });

  it("binds the value to its context: it opens only with the same context", () => {
    const sealed = encryptSecret(PLAIN, key, "repo-grants:acct_1:github");
    expect(decryptSecret(sealed, key, "repo-grants:acct_1:github")).toBe(PLAIN);
    expect(() => decryptSecret(sealed, key, "repo-grants:acct_2:github")).toThrow(/could not be opened/);
    expect(() => decryptSecret(sealed, key)).toThrow(/could not be opened/);
  });

  it("refuses a key that is not 32 bytes", () => {
    expect(() => encryptSecret(PLAIN, randomBytes(16))).toThrow(/32 bytes/);
    expect(() => decryptSecret("v1.a.b.c", randomBytes(31))).toThrow(/32 bytes/);
  });
});

describe("loadOrCreateSecretKey", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "reposite-key-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("creates <dataDir>/secret.key with mode 0600 on first use and reads the same key afterwards", async () => {
    const dataDir = join(dir, "data", "nested");
    const created = await loadOrCreateSecretKey(dataDir);
    expect(created).toHaveLength(32);
    const file = join(dataDir, "secret.key");
    if (process.platform !== "win32") expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await readFile(file, "utf8")).trim(), "base64").equals(Buffer.from(created))).toBe(true);

    const again = await loadOrCreateSecretKey(dataDir);
    expect(Buffer.from(again).equals(Buffer.from(created))).toBe(true);
    expect(await readdir(dataDir)).toEqual(["secret.key"]);
  });

  it("gives every caller racing on first use the same key", async () => {
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateSecretKey(dir)));
    for (const each of keys) expect(Buffer.from(each).equals(Buffer.from(keys[0]!))).toBe(true);
  });

  it("prefers REPOSITE_SECRET_KEY, as base64 or hex, and then writes no file", async () => {
    const env = randomBytes(32);
    expect(Buffer.from(await loadOrCreateSecretKey(dir, env.toString("base64"))).equals(env)).toBe(true);
    expect(Buffer.from(await loadOrCreateSecretKey(dir, env.toString("hex"))).equals(env)).toBe(true);
    expect(Buffer.from(await loadOrCreateSecretKey(dir, ` ${env.toString("base64url")}\n`)).equals(env)).toBe(true);
    await expect(stat(join(dir, "secret.key"))).rejects.toMatchObject({ code: "ENOENT" });

    // An existing file loses to the environment too.
    await writeFile(join(dir, "secret.key"), `${randomBytes(32).toString("base64")}\n`);
    expect(Buffer.from(await loadOrCreateSecretKey(dir, env.toString("hex"))).equals(env)).toBe(true);
    // An empty variable counts as unset.
    expect(Buffer.from(await loadOrCreateSecretKey(dir, "")).equals(env)).toBe(false);
  });

  it("refuses a REPOSITE_SECRET_KEY that is not 32 bytes, without repeating it", async () => {
    const short = randomBytes(16).toString("base64");
    await expect(loadOrCreateSecretKey(dir, short)).rejects.toThrow(/REPOSITE_SECRET_KEY must be 32 bytes/);
    await expect(loadOrCreateSecretKey(dir, "correct horse battery staple")).rejects.toThrow(/openssl rand -base64 32/);
    expect(() => parseSecretKey(short, "X")).toThrow(expect.objectContaining({ message: expect.not.stringContaining(short) }));
  });
});
