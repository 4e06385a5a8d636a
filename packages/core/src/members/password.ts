import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** scrypt's cost parameters: `N` CPU/memory cost (a power of two), `r` block size, `p` parallelism. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * One of the OWASP Password Storage Cheat Sheet's scrypt settings: N=2^15, r=8, p=3. Each hash
 * takes 128·N·r = 32 MiB of memory (p runs one after another in Node), so a stolen hash costs an
 * attacker as much memory per guess as it costs us per sign-in, while a server still signs in
 * several people a second. Stored hashes carry their own parameters, so these can rise later.
 */
export const DEFAULT_SCRYPT_PARAMS: Readonly<ScryptParams> = { N: 2 ** 15, r: 8, p: 3 };

const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Bounds for parameters read back from storage: a damaged record must not make us allocate gigabytes. */
const LIMITS = { N: [2 ** 10, 2 ** 20], r: [1, 32], p: [1, 16] } as const;

function derive(password: string, salt: Buffer, params: ScryptParams, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Node refuses anything above 32 MiB unless told; allow twice what these parameters need.
    const maxmem = 256 * params.N * params.r + 1024 * params.r * params.p;
    scrypt(normalize(password), salt, length, { N: params.N, r: params.r, p: params.p, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** NIST SP 800-63B asks for NFKC or NFKD, so the same password typed on two keyboards matches. */
function normalize(password: string): string {
  return password.normalize("NFKC");
}

function validParams(params: ScryptParams): boolean {
  const within = (value: number, [min, max]: readonly [number, number]) => Number.isInteger(value) && value >= min && value <= max;
  return within(params.N, LIMITS.N) && (params.N & (params.N - 1)) === 0 && within(params.r, LIMITS.r) && within(params.p, LIMITS.p);
}

/** Hashes a password with a fresh random salt: `scrypt$N$r$p$<salt base64url>$<hash base64url>`. */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  if (!validParams(params)) throw new Error(`[reposite] [password] scrypt parameters out of range: ${JSON.stringify(params)}`);
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, params, KEY_BYTES);
  return ["scrypt", params.N, params.r, params.p, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

interface ParsedHash {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

function parse(encoded: string): ParsedHash | null {
  const parts = encoded.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [N, r, p] = parts.slice(1, 4).map((part) => (/^\d{1,8}$/.test(part) ? Number(part) : NaN)) as [number, number, number];
  const params = { N, r, p };
  if (!validParams(params)) return null;
  const salt = Buffer.from(parts[4]!, "base64url");
  const hash = Buffer.from(parts[5]!, "base64url");
  if (salt.length < 8 || hash.length < 16) return null;
  return { params, salt, hash };
}

/**
 * Whether `password` matches an encoded hash. The derived key is compared in constant time;
 * a malformed encoding is simply no match.
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parse(encoded);
  if (!parsed) return false;
  const candidate = await derive(password, parsed.salt, parsed.params, parsed.hash.length);
  return timingSafeEqual(candidate, parsed.hash);
}

/** True when a stored hash was made with other parameters than `params` (rehash at the next sign-in). */
export function needsRehash(encoded: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): boolean {
  const parsed = parse(encoded);
  return !parsed || parsed.params.N !== params.N || parsed.params.r !== params.r || parsed.params.p !== params.p;
}
