import { createHash } from "node:crypto";
import { inject, injectable } from "tsyringe";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";

/** A project's custom domain as stored. */
export interface DomainRecord {
  site_id: string;
  owner_id: string;
  /** Lower case ASCII (punycode), no trailing dot. */
  domain: string;
  /** Kept with the domain: the value of its ownership TXT record and of its live proof. */
  token: string;
  verified: boolean;
  verified_at: string | null;
  created_at: string;
  updated_at: string;
}

const PREFIX = "domains";
const recordKey = (siteId: string) => `${PREFIX}:${siteId}`;
/** Which project holds a name; keyed by hash, as keys never carry dots. */
const nameKey = (domain: string) => `domain-names:${createHash("sha256").update(domain).digest("hex")}`;
/** Held while a name changes hands, so two projects never both claim it. */
export const domainNameLock = (domain: string) => nameKey(domain);

/** Where custom domains live: one record per project, and who holds each name. */
@injectable()
export class DomainStore {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
  ) {}

  ofSite(siteId: string): Promise<DomainRecord | null> {
    return this.storage.getItem<DomainRecord>(recordKey(siteId));
  }

  /** Every project's domain (read once at start). */
  async all(): Promise<DomainRecord[]> {
    const keys = await this.storage.getKeys(PREFIX);
    const records = await Promise.all(keys.map((key) => this.storage.getItem<DomainRecord>(key)));
    return records.filter((record): record is DomainRecord => record !== null && typeof record.domain === "string");
  }

  /**
   * Gives `domain` to the project unless another project holds it; `isStale` says whether a holder
   * no longer does (its project or record is gone). Answers whether the project holds it now.
   */
  claim(domain: string, siteId: string, isStale: (holder: string) => Promise<boolean>): Promise<boolean> {
    return this.locks.withLock(domainNameLock(domain), async () => {
      const holder = await this.storage.getItem<string>(nameKey(domain));
      if (holder && holder !== siteId && !(await isStale(holder))) return false;
      if (holder !== siteId) await this.storage.setItem(nameKey(domain), siteId);
      return true;
    });
  }

  /** Lets go of a name, if this project holds it. */
  release(domain: string, siteId: string): Promise<void> {
    return this.locks.withLock(domainNameLock(domain), async () => {
      if ((await this.storage.getItem<string>(nameKey(domain))) === siteId) await this.storage.removeItem(nameKey(domain));
    });
  }

  save(record: DomainRecord): Promise<void> {
    return this.storage.setItem(recordKey(record.site_id), record);
  }

  remove(siteId: string): Promise<void> {
    return this.storage.removeItem(recordKey(siteId));
  }
}
