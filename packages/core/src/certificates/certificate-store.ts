import { createHash } from "node:crypto";
import { inject, injectable } from "tsyringe";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { SecretBox } from "../util/secret-box.js";
import type { Certificate, CertificateRecord } from "./certificate.js";

const PREFIX = "certificates";
/** A name is one key segment (dots are fine inside one; names never start with one). */
export const certificateKey = (domain: string) => `${PREFIX}:${domain}`;
/** One ACME account per directory: a new account per start would soon meet the CA's rate limits. */
const accountKeyKey = (directoryUrl: string) => `acme-accounts:${createHash("sha256").update(directoryUrl).digest("hex").slice(0, 32)}`;

interface AccountKeyRecord {
  directory_url: string;
  key_sealed: string;
  created_at: string;
}

/**
 * Where certificates live, each private key sealed with the server's key (context: the record's
 * storage key, so a sealed key copied to another name does not open), and the ACME account key.
 */
@injectable()
export class CertificateStore {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(SecretBox) private readonly box: SecretBox,
  ) {}

  async save(certificate: Certificate): Promise<void> {
    const key = certificateKey(certificate.domain);
    const record: CertificateRecord = {
      domain: certificate.domain,
      chain_pem: certificate.chainPem,
      key_sealed: await this.box.seal(certificate.keyPem, key),
      serial: certificate.serial,
      not_before: certificate.notBefore,
      expires_at: certificate.expiresAt,
      issued_at: certificate.issuedAt,
    };
    await this.storage.setItem(key, record);
  }

  async get(domain: string): Promise<Certificate | null> {
    const record = await this.storage.getItem<CertificateRecord>(certificateKey(domain));
    return record ? this.opened(record) : null;
  }

  /**
   * Every stored certificate. One whose key no longer opens (REPOSITE_SECRET_KEY changed) is left
   * out and said: the name is ordered again like a new one.
   */
  async all(): Promise<Certificate[]> {
    const keys = await this.storage.getKeys(`${PREFIX}:`);
    const found: Certificate[] = [];
    for (const key of keys) {
      const record = await this.storage.getItem<CertificateRecord>(key);
      if (!record) continue;
      try {
        found.push(await this.opened(record));
      } catch (error) {
        console.error(`[reposite] the stored certificate of ${record.domain} does not open (${(error as Error).message}); it will be ordered again`);
      }
    }
    return found;
  }

  async delete(domain: string): Promise<void> {
    await this.storage.removeItem(certificateKey(domain));
  }

  /** The ACME account key used with `directoryUrl`, made (by `make`) and stored sealed the first time. */
  async accountKey(directoryUrl: string, make: () => Promise<string>): Promise<string> {
    const key = accountKeyKey(directoryUrl);
    const record = await this.storage.getItem<AccountKeyRecord>(key);
    if (record) return this.box.open(record.key_sealed, key);
    const pem = await make();
    await this.storage.setItem(key, { directory_url: directoryUrl, key_sealed: await this.box.seal(pem, key), created_at: new Date().toISOString() } satisfies AccountKeyRecord);
    return pem;
  }

  private async opened(record: CertificateRecord): Promise<Certificate> {
    return {
      domain: record.domain,
      chainPem: record.chain_pem,
      keyPem: await this.box.open(record.key_sealed, certificateKey(record.domain)),
      serial: record.serial,
      notBefore: record.not_before,
      expiresAt: record.expires_at,
      issuedAt: record.issued_at,
    };
  }
}
