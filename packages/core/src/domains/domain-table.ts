import { injectable } from "tsyringe";

/** One custom domain as the hot paths need it. */
export interface DomainEntry {
  /** Lower case, ASCII (punycode), no trailing dot, no port. */
  domain: string;
  siteId: string;
  /** The project's slug: what the site runtime and the `/app/` proxy serve. */
  slug: string;
  /** DNS was found pointing here (`POST …/domain/verify`): the host answers, and TLS may be issued for it. */
  verified: boolean;
}

/**
 * Every project's custom domain, in memory: the host router asks it for each request whose Host
 * is not under the sites domain, the TLS "ask" endpoint and the built-in ACME ask it whether a name
 * may get a certificate, and pages ask it for a site's public address. The domains service keeps it
 * (loaded from storage at start, changed with every write); nothing here waits for storage.
 */
@injectable()
export class DomainTable {
  private readonly byDomain = new Map<string, DomainEntry>();
  private readonly bySite = new Map<string, DomainEntry>();
  private readonly listeners = new Set<(change: { before: DomainEntry | null; after: DomainEntry | null }) => void>();

  /**
   * Puts a project's domain in the table (replacing the project's previous one, if any). Several
   * projects may claim one name unverified; by name the table answers the verified one, if any.
   */
  set(entry: DomainEntry): void {
    const before = this.bySite.get(entry.siteId) ?? null;
    if (before && before.domain !== entry.domain) this.forgetName(before);
    const named = this.byDomain.get(entry.domain);
    if (entry.verified || !named?.verified || named.siteId === entry.siteId) this.byDomain.set(entry.domain, entry);
    this.bySite.set(entry.siteId, entry);
    this.emit(before, entry);
  }

  /** Takes a project's domain out of the table. */
  deleteSite(siteId: string): void {
    const before = this.bySite.get(siteId);
    if (!before) return;
    this.bySite.delete(siteId);
    this.forgetName(before);
    this.emit(before, null);
  }

  /** The name no longer answers for this project (another project's entry under it stays). */
  private forgetName(entry: DomainEntry): void {
    if (this.byDomain.get(entry.domain)?.siteId === entry.siteId) this.byDomain.delete(entry.domain);
  }

  /** The slug a verified custom domain serves, or undefined (the host router's `HostResolver`). */
  resolve = (hostname: string): string | undefined => {
    const entry = this.byDomain.get(hostname);
    return entry?.verified ? entry.slug : undefined;
  };

  /** The entry of a domain (verified or not). */
  get(domain: string): DomainEntry | undefined {
    return this.byDomain.get(domain);
  }

  /** The project's domain entry (verified or not). */
  ofSite(siteId: string): DomainEntry | undefined {
    return this.bySite.get(siteId);
  }

  /** Whether `hostname` is a verified custom domain: the only names a certificate is issued for. */
  isVerified(hostname: string): boolean {
    return this.byDomain.get(hostname)?.verified === true;
  }

  verified(): DomainEntry[] {
    return [...this.byDomain.values()].filter((entry) => entry.verified);
  }

  /** Called after every change (pages drop what they built with the old address). */
  onChange(listener: (change: { before: DomainEntry | null; after: DomainEntry | null }) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(before: DomainEntry | null, after: DomainEntry | null): void {
    for (const listener of this.listeners) listener({ before, after });
  }
}
