import { createHash } from "node:crypto";
import { inject, injectable } from "tsyringe";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { withTransaction } from "../util/storage-transactions.js";

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
  /**
   * Set when another project verified the domain first: this project's claim was dropped then (it
   * never serves here). Absent on claims that stand.
   */
  taken_at?: string;
  created_at: string;
  updated_at: string;
}

const PREFIX = "domains";
const recordKey = (siteId: string) => `${PREFIX}:${siteId}`;
const nameHash = (domain: string) => createHash("sha256").update(domain).digest("hex");
/** Which project verified a name (it serves there); keyed by hash, as keys never carry dots. */
const nameKey = (domain: string) => `domain-names:${nameHash(domain)}`;
/** The projects that connected a name and have not verified it yet. */
const claimsKey = (domain: string) => `domain-claims:${nameHash(domain)}`;
/** Held while a name changes hands, so two projects never both verify it. */
export const domainNameLock = (domain: string) => nameKey(domain);

/**
 * Where custom domains live: one record per project, which project holds each name (the one that
 * verified it), and which others claim it meanwhile. Many may claim a name; one holds it.
 */
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
   * Lists the project among those claiming `domain`, unless another project holds it (`holds` says
   * whether a holder still does: its project and verified record are there). Answers whether the
   * claim was listed.
   */
  addClaim(domain: string, siteId: string, holds: (holder: string) => Promise<boolean>): Promise<boolean> {
    return this.locks.withLock(domainNameLock(domain), async () => {
      if (await this.heldByAnother(domain, siteId, holds)) return false;
      const claims = (await this.storage.getItem<string[]>(claimsKey(domain))) ?? [];
      if (!claims.includes(siteId)) await this.storage.setItem(claimsKey(domain), [...claims, siteId]);
      return true;
    });
  }

  /**
   * The project verified `domain`: it holds it from now on, unless another holds it already (then
   * null, and nothing is written). `verified` is the project's record saying so, written with the
   * name and the dropped claims in one transaction where the storage has them. Answers the other
   * projects that claimed it, whose claims are dropped.
   */
  take(domain: string, siteId: string, holds: (holder: string) => Promise<boolean>, verified: DomainRecord): Promise<string[] | null> {
    return this.locks.withLock(domainNameLock(domain), async () => {
      if (await this.heldByAnother(domain, siteId, holds)) return null;
      return withTransaction(this.storage, async (tx) => {
        await tx.setItem(nameKey(domain), siteId);
        const claims = (await tx.getItem<string[]>(claimsKey(domain))) ?? [];
        await tx.removeItem(claimsKey(domain));
        await tx.setItem(recordKey(verified.site_id), verified);
        return claims.filter((claimant) => claimant !== siteId);
      });
    });
  }

  /** Lets go of a name: the project's claim, and the name itself if this project holds it. */
  release(domain: string, siteId: string): Promise<void> {
    return this.locks.withLock(domainNameLock(domain), async () => {
      if ((await this.storage.getItem<string>(nameKey(domain))) === siteId) await this.storage.removeItem(nameKey(domain));
      const claims = (await this.storage.getItem<string[]>(claimsKey(domain))) ?? [];
      if (claims.includes(siteId)) await this.storage.setItem(claimsKey(domain), claims.filter((claimant) => claimant !== siteId));
    });
  }

  private async heldByAnother(domain: string, siteId: string, holds: (holder: string) => Promise<boolean>): Promise<boolean> {
    const holder = await this.storage.getItem<string>(nameKey(domain));
    return Boolean(holder && holder !== siteId && (await holds(holder)));
  }

  save(record: DomainRecord): Promise<void> {
    return this.storage.setItem(recordKey(record.site_id), record);
  }

  remove(siteId: string): Promise<void> {
    return this.storage.removeItem(recordKey(siteId));
  }
}
