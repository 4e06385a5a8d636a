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
const SAFE_NAME = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/;

/**
 * Built-in ACME's certificates as files for nginx: one `<dir>/<name>.pem` (mode 0600) holding the
 * key and then the chain, read by nginx at each handshake (`ssl_certificate` and
 * `ssl_certificate_key` both by `$ssl_server_name`). One file, written under a temporary name and
 * renamed, so nginx never reads half of one, nor a new key beside an old certificate. When Reposite runs
 * as root they belong to the data directory's owner, as nginx's workers do (`workerUser`).
 */
export async function startEdgeCertificates(source: CertificateSource, dir: string, names: readonly string[]): Promise<EdgeCertificates> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const owner = process.getuid?.() === 0 ? await stat(join(dir, "..", "..")) : undefined;
  if (owner) await chown(dir, owner.uid, owner.gid);
  const written = new Map<string, string>();
  let queue: Promise<void> = Promise.resolve();

  const put = async (path: string, content: string, mode: number) => {
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, content, { mode });
    if (owner) await chown(temporary, owner.uid, owner.gid);
    await rename(temporary, path);
  };
  const sync = async (name: string) => {
    const certificate = source.forName(name);
    const base = join(dir, name);
    if (!certificate) {
      if (!written.has(name)) return;
      written.delete(name);
      await rm(`${base}.pem`, { force: true });
      return;
    }
    if (written.get(name) === certificate.serial) return;
    await put(`${base}.pem`, `${certificate.keyPem.trimEnd()}\n${certificate.chainPem}`, 0o600);
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
  for (const file of await readdir(dir)) {
    const name = file.replace(/\.pem$/, "");
    if (name !== file) written.set(name, "");
  }
  for (const name of new Set([...names, ...written.keys()])) changed(name);
  return {
    changed,
    settled: () => new Promise((resolve) => setImmediate(() => void queue.then(resolve))),
  };
}
