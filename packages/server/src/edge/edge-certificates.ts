import { chown, mkdir, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Certificate } from "@reposite/core";

/** Where a name's certificate comes from (`CertificateService.forName`): only a wanted name's. */
export interface CertificateSource {
  forName(name: string): Certificate | undefined;
}

export interface EdgeCertificates {
  /** A name's certificate may have changed (ordered, renewed, removed, its domain verified or not): its files follow. */
  changed(name: string): void;
  /** Resolves once the files of every change so far are written. */
  settled(): Promise<void>;
}

/** Names as the certificate service keeps them; anything else is never a file name. */
export const SAFE_NAME = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/;

/** The `<name>.pem` files nginx reads at each handshake, in one folder. */
export interface CertificateFiles {
  /** Writes `name`'s key, then its chain, as one file (0600) under a temporary name and renames it in. */
  write(name: string, certificate: Pick<Certificate, "keyPem" | "chainPem">): Promise<void>;
  remove(name: string): Promise<void>;
  /** Names with a file now. */
  names(): Promise<string[]>;
}

/**
 * Opens (makes) the folder of certificate files. One file per name, written under a temporary name
 * and renamed, so nginx never reads half of one, nor a new key beside an old certificate. When
 * Reposite runs as root they belong to the data directory's owner, as nginx's workers do
 * (`workerUser`): `dir` is `<data>/edge/certs`.
 */
export async function openCertificateFiles(dir: string): Promise<CertificateFiles> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const owner = process.getuid?.() === 0 ? await stat(join(dir, "..", "..")) : undefined;
  if (owner) await chown(dir, owner.uid, owner.gid);
  const pathOf = (name: string) => {
    if (!SAFE_NAME.test(name)) throw new Error(`"${name}" is no host name; no certificate file is written for it`);
    return join(dir, `${name}.pem`);
  };
  return {
    async write(name, certificate) {
      const path = pathOf(name);
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, `${certificate.keyPem.trimEnd()}\n${certificate.chainPem}`, { mode: 0o600 });
      if (owner) await chown(temporary, owner.uid, owner.gid);
      await rename(temporary, path);
    },
    remove: (name) => rm(pathOf(name), { force: true }),
    async names() {
      return (await readdir(dir)).filter((file) => file.endsWith(".pem")).map((file) => file.slice(0, -".pem".length));
    },
  };
}

/**
 * Built-in ACME's certificates as files for nginx on the machine that orders them: one
 * `<dir>/<name>.pem` (mode 0600) holding the key and then the chain, read by nginx at each
 * handshake (`ssl_certificate` and `ssl_certificate_key` both by `$ssl_server_name`).
 */
export async function startEdgeCertificates(source: CertificateSource, dir: string, names: readonly string[]): Promise<EdgeCertificates> {
  const files = await openCertificateFiles(dir);
  const written = new Map<string, string>();
  let queue: Promise<void> = Promise.resolve();

  const sync = async (name: string) => {
    const certificate = source.forName(name);
    if (!certificate) {
      if (!written.has(name)) return;
      written.delete(name);
      await files.remove(name);
      return;
    }
    if (written.get(name) === certificate.serial) return;
    await files.write(name, certificate);
    written.set(name, certificate.serial);
  };
  const changed = (name: string) => {
    if (!SAFE_NAME.test(name)) return;
    // After the caller's own bookkeeping (the service keeps a certificate once it is stored).
    setImmediate(() => {
      queue = queue.then(() => sync(name)).catch((error: unknown) => console.error(`[reposite] [edge] writing the certificate files of ${name} failed:`, (error as Error).message));
    });
  };

  // Files left from a run before: a name with no certificate now loses them.
  for (const name of await files.names()) written.set(name, "");
  for (const name of new Set([...names, ...written.keys()])) changed(name);
  return {
    changed,
    settled: () => new Promise((resolve) => setImmediate(() => void queue.then(resolve))),
  };
}
