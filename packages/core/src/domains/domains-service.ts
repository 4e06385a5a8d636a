import { domainInputSchema, type DomainReadView, type DomainVerifyView, type DomainView } from "@reposite/contract";
import { inject, injectable } from "tsyringe";
import { BillingEntitlements } from "../billing/entitlements.js";
import { CONFIG, type RepositeConfig } from "../config.js";
import { conflict, RepositeError } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { DNS_RESOLVER, type DnsResolver } from "../ports/dns.js";
import { EVENTS, type EventBus } from "../ports/events.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { PROJECT_CHANGED_CHANNEL, type ProjectChanged } from "../projects/project-events.js";
import { ProjectStore } from "../projects/project-store.js";
import { ProjectsService } from "../projects/projects-service.js";
import { PublishingService } from "../sites/publishing-service.js";
import { formatTimestamp } from "../util/timestamps.js";
import { parseInput } from "../util/validation.js";
import { checkDns } from "./dns-check.js";
import { describeDomain, parseDomainName, siteHostOf } from "./domain-name.js";
import { ownershipValue, recordsFor, type RecordTargets } from "./domain-records.js";
import { DomainStore, type DomainRecord } from "./domain-store.js";
import { DomainTable } from "./domain-table.js";
import { LiveCheck } from "./live-check.js";

/** What `PUT`, `GET` and `POST …/verify` of a project's domain answer: the contract's shapes. */
export type { DomainView, DomainReadView, DomainVerifyView } from "@reposite/contract";

/** One change to a project's domain at a time. */
const siteDomainLock = (siteId: string) => `domain-site:${siteId}`;

/** Published when a project's domain changed (connected, verified, dropped, removed): every replica re-reads it. */
const DOMAIN_CHANGED_CHANNEL = "domains:changed";
interface DomainChanged {
  site_id: string;
}

const NO_DOMAIN: DomainReadView = {
  domain: null,
  domain_unicode: null,
  apex: false,
  records: [],
  verified: false,
  verified_at: null,
  live: false,
  live_url: null,
  live_reason: "The project has no custom domain.",
};

/**
 * Custom domains: a project's own domain (one per project, one project per verified domain), the
 * DNS records it needs, checking them, and whether the domain is live. Connecting only claims a
 * name: any number of projects may claim it unverified, the first to verify it holds it, and the
 * others' claims are dropped then (`taken_at`), so a claim never verified blocks nobody. Keeps `DomainTable` (what host
 * routing and TLS ask) in step with storage: loaded once at start (`load`), changed with every
 * write, and following the project (a new slug moves the domain along; a deleted project lets it go).
 *
 * Connecting and checking need the `domain` product while payments are on (`402
 * payment_required`; `409 quota_reached` when each domain purchase is another project's); reading
 * and removing are free.
 */
@injectable()
export class DomainsService {
  private loading: Promise<void> | undefined;
  /** Each domain's token, for the live proof the domain serves (`proofFor`), without storage. */
  private readonly tokens = new Map<string, string>();
  private readonly unsubscribe: () => void;
  private readonly following = new Set<Promise<void>>();

  constructor(
    @inject(DomainStore) private readonly store: DomainStore,
    @inject(DomainTable) private readonly table: DomainTable,
    @inject(ProjectsService) private readonly projects: ProjectsService,
    @inject(ProjectStore) private readonly projectStore: ProjectStore,
    @inject(PublishingService) private readonly publishing: PublishingService,
    @inject(BillingEntitlements) private readonly entitlements: BillingEntitlements,
    @inject(DNS_RESOLVER) private readonly resolver: DnsResolver,
    @inject(LiveCheck) private readonly liveCheck: LiveCheck,
    @inject(CONFIG) private readonly config: RepositeConfig,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(EVENTS) private readonly events: EventBus,
  ) {
    const stopProjects = events.subscribe(PROJECT_CHANGED_CHANNEL, (event) => {
      const { id } = event as ProjectChanged;
      if (this.table.ofSite(id)) this.follow(id, () => this.followProject(id));
    });
    // Replicas sharing a database: a domain changed through another one is read again here.
    const stopDomains = events.subscribe(DOMAIN_CHANGED_CHANNEL, (event) => {
      const { site_id: siteId } = event as DomainChanged;
      if (typeof siteId === "string") this.follow(siteId, () => this.reread(siteId));
    });
    this.unsubscribe = () => {
      stopProjects();
      stopDomains();
    };
  }

  /**
   * Puts every stored domain in the table, once (later calls answer the same promise; a failed load
   * is tried again by the next call). `createReposite` starts it; every method here waits for it.
   */
  load(): Promise<void> {
    this.loading ??= this.loadAll().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  /**
   * `PUT …/domain`: connects `domain` to the project (replacing its previous one) and answers the
   * records to add. The same domain again keeps its token and verification. `422 invalid_request`,
   * `invalid_domain` or `reserved_domain` (field `domain`); `409 bare_domain_unavailable` for a bare
   * domain on a server without a public address; `402`/`409 quota_reached`; `409 domain_taken` when
   * another project verified it (a claim dropped that way is made again once the name is free).
   */
  async set(ownerId: string, siteId: string, input: unknown): Promise<DomainView> {
    await this.load();
    const { domain: typed } = parseInput(domainInputSchema, input);
    await this.projects.getOwned(ownerId, siteId);
    const name = parseDomainName(typed, this.config);
    if (name.apex && !this.config.publicIpv4 && !this.config.publicIpv6) {
      throw conflict(
        `${name.unicode} is a bare domain, which needs an A record to this server's address, and this server has none set (REPOSITE_PUBLIC_IPV4). Use a subdomain such as www.${name.unicode} (a CNAME record).`,
        "bare_domain_unavailable",
        { field: "domain" },
      );
    }
    await this.assertMayUse(ownerId, siteId);
    const slug = await this.publishing.ensureSlug(ownerId, siteId);
    return this.locks.withLock(siteDomainLock(siteId), async () => {
      const existing = await this.store.ofSite(siteId);
      if (existing?.domain === name.ascii && !existing.taken_at) return this.view(existing, slug);
      if (!(await this.store.addClaim(name.ascii, siteId, (holder) => this.holdsVerified(name.ascii, holder)))) {
        throw conflict(`${name.unicode} is verified by another project; a domain serves one project.`, "domain_taken", { field: "domain" });
      }
      const now = formatTimestamp(this.clock.now());
      const record: DomainRecord = {
        site_id: siteId,
        owner_id: ownerId,
        domain: name.ascii,
        // A dropped claim made again keeps its records.
        token: existing?.domain === name.ascii ? existing.token : this.ids.newId("dom"),
        verified: false,
        verified_at: null,
        created_at: now,
        updated_at: now,
      };
      await this.store.save(record);
      if (existing && existing.domain !== name.ascii) await this.forget(existing);
      this.remember(record, slug);
      this.announce(siteId);
      return this.view(record, slug);
    });
  }

  /**
   * `POST …/domain/verify`: looks the records up now. Once they are found the domain is verified
   * (it serves the project and TLS may issue its certificate) and stays so until it is removed or
   * replaced; other projects' claims of it are dropped. `409 no_domain` before `PUT`;
   * `402`/`409 quota_reached`; `409 domain_taken` when another project verified it first.
   */
  async verify(ownerId: string, siteId: string): Promise<DomainVerifyView> {
    await this.load();
    await this.projects.getOwned(ownerId, siteId);
    const record = await this.store.ofSite(siteId);
    if (!record) throw conflict("The project has no custom domain: PUT /app/sites/{site_id}/domain first.", "no_domain");
    await this.assertMayUse(ownerId, siteId);
    if (record.taken_at) throw takenError(record);
    const slug = await this.publishing.ensureSlug(ownerId, siteId);
    const dns = await checkDns(this.resolver, describeDomain(record.domain), record.token, this.targets(slug));
    if (!dns.found || record.verified) return { ...this.view(record, slug), dns };
    let dropped: string[] = [];
    const verified = await this.locks.withLock(siteDomainLock(siteId), async () => {
      const current = await this.store.ofSite(siteId);
      // Replaced or removed while DNS was asked: what was checked is no longer the project's domain.
      if (current?.domain !== record.domain || current.token !== record.token) return current;
      const now = formatTimestamp(this.clock.now());
      const changed: DomainRecord = { ...current, verified: true, verified_at: current.verified_at ?? now, updated_at: now };
      const others = await this.store.take(current.domain, siteId, (holder) => this.holdsVerified(current.domain, holder), changed);
      // Another project verified it while DNS was asked.
      if (!others) return this.dropClaim(current, now);
      dropped = others;
      this.remember(changed, slug);
      this.announce(siteId);
      return changed;
    });
    // After this project's lock: each other claim is dropped under its own project's lock.
    for (const other of dropped) await this.dropClaimOf(other, record.domain);
    if (verified?.taken_at) throw takenError(verified);
    return { ...(verified ? this.view(verified, slug) : { ...NO_DOMAIN }), dns };
  }

  /** `GET …/domain`: the domain, its records, and whether it is live (asked at most every few seconds). */
  async get(ownerId: string, siteId: string): Promise<DomainReadView> {
    await this.load();
    const project = await this.projects.getOwned(ownerId, siteId);
    const record = await this.store.ofSite(siteId);
    if (!record || !project.slug) return { ...NO_DOMAIN };
    const view = this.view(record, project.slug);
    if (record.taken_at) return { ...view, live: false, live_url: null, live_reason: takenMessage(record) };
    if (!record.verified) {
      return { ...view, live: false, live_url: null, live_reason: "DNS is not verified yet: add the records, then POST /app/sites/{site_id}/domain/verify." };
    }
    const live = await this.liveCheck.check({ domain: record.domain, token: record.token, siteHost: siteHostOf(this.config.sitesDomain, project.slug) });
    return { ...view, live: live.live, live_url: live.url, live_reason: live.reason };
  }

  /** `DELETE …/domain`: always allowed and free; the project's own address keeps working. */
  async remove(ownerId: string, siteId: string): Promise<void> {
    await this.load();
    await this.projects.getOwned(ownerId, siteId);
    await this.locks.withLock(siteDomainLock(siteId), async () => {
      const record = await this.store.ofSite(siteId);
      if (record) await this.drop(record);
    });
    this.announce(siteId);
  }

  /**
   * What a verified domain serves at `/.well-known/reposite-domain` (`reposite-verification=<token>`),
   * or undefined for any other host: how the live check knows the answer is this project's. From memory.
   */
  proofFor(hostname: string): string | undefined {
    if (!this.table.isVerified(hostname)) return undefined;
    const token = this.tokens.get(hostname);
    return token ? ownershipValue(token) : undefined;
  }

  /** Stops following projects; waits for a load or a follow-up under way. */
  async close(): Promise<void> {
    this.unsubscribe();
    await this.loading?.catch(() => undefined);
    await Promise.all([...this.following]);
  }

  private async loadAll(): Promise<void> {
    for (const record of await this.store.all()) {
      const project = await this.projectStore.get(record.site_id);
      if (!project) {
        // The project went while the server was away: its domain goes too.
        await this.locks.withLock(siteDomainLock(record.site_id), () => this.drop(record));
        continue;
      }
      if (project.slug && !record.taken_at) this.remember(record, project.slug);
    }
  }

  /** A project changed: a new slug moves its domain along; a deleted project lets its domain go. */
  private async followProject(siteId: string): Promise<void> {
    const project = await this.projectStore.get(siteId);
    await this.locks.withLock(siteDomainLock(siteId), async () => {
      const entry = this.table.ofSite(siteId);
      if (!entry) return;
      if (!project) {
        const record = await this.store.ofSite(siteId);
        if (record) await this.drop(record);
        else this.table.deleteSite(siteId);
        return;
      }
      if (project.slug && project.slug !== entry.slug) this.table.set({ ...entry, slug: project.slug });
    });
  }

  /** Runs `work` for a site in the background; `close` waits for it. */
  private follow(siteId: string, work: () => Promise<void>): void {
    const done = work()
      .catch((error: unknown) => console.error(`[reposite] [domains] following project ${siteId} failed:`, error))
      .finally(() => this.following.delete(done));
    this.following.add(done);
  }

  /** Tells every replica (this one too) that `siteId`'s domain changed. */
  private announce(siteId: string): void {
    this.events.publish(DOMAIN_CHANGED_CHANNEL, { site_id: siteId } satisfies DomainChanged);
  }

  /** Puts the site's domain in the table as storage has it, under its lock so reads and writes keep their order. */
  private async reread(siteId: string): Promise<void> {
    await this.load();
    await this.locks.withLock(siteDomainLock(siteId), async () => {
      const [record, project] = await Promise.all([this.store.ofSite(siteId), this.projectStore.get(siteId)]);
      const entry = this.table.ofSite(siteId);
      if (entry && (entry.domain !== record?.domain || record.taken_at || !project?.slug)) {
        this.table.deleteSite(siteId);
        if (entry.verified) this.tokens.delete(entry.domain);
        this.liveCheck.forget(entry.domain);
      }
      if (record && !record.taken_at && project?.slug) this.remember(record, project.slug);
    });
  }

  /** Whether `holder` still holds `domain`: its project is there with the domain verified. */
  private async holdsVerified(domain: string, holder: string): Promise<boolean> {
    const record = await this.store.ofSite(holder);
    if (record?.domain !== domain || !record.verified) return false;
    return (await this.projectStore.get(holder)) !== null;
  }

  /** Under the project's lock: its claim is dropped, as another project verified the domain first. */
  private async dropClaim(record: DomainRecord, now: string): Promise<DomainRecord> {
    const dropped: DomainRecord = { ...record, verified: false, verified_at: null, taken_at: now, updated_at: now };
    await this.store.save(dropped);
    if (this.table.ofSite(record.site_id)?.domain === record.domain) this.table.deleteSite(record.site_id);
    this.announce(record.site_id);
    return dropped;
  }

  /** Drops another project's unverified claim of `domain`, unless it changed meanwhile. */
  private async dropClaimOf(siteId: string, domain: string): Promise<void> {
    await this.locks.withLock(siteDomainLock(siteId), async () => {
      const record = await this.store.ofSite(siteId);
      if (record?.domain === domain && !record.verified && !record.taken_at) await this.dropClaim(record, formatTimestamp(this.clock.now()));
    });
  }

  private async assertMayUse(ownerId: string, siteId: string): Promise<void> {
    const answer = await this.entitlements.mayUseDomain(ownerId, siteId);
    if (answer === true) return;
    if (answer === "quota_reached") {
      throw conflict(
        "Every custom-domain purchase of this account is in use by another project (one domain per purchase): buy another (POST /billing/domain/checkout with additional: true).",
        "quota_reached",
      );
    }
    throw new RepositeError(402, "A custom domain is not paid for on this project; buy it first (POST /billing/domain/checkout).", "payment_required");
  }

  private remember(record: DomainRecord, slug: string): void {
    // Only the verified project's token proves the name (other projects may claim it meanwhile).
    if (record.verified) this.tokens.set(record.domain, record.token);
    this.table.set({ domain: record.domain, siteId: record.site_id, slug, verified: record.verified });
    this.liveCheck.forget(record.domain);
  }

  /** Lets go of a domain the project no longer has (its record is replaced already). */
  private async forget(record: DomainRecord): Promise<void> {
    await this.store.release(record.domain, record.site_id);
    if (record.verified) {
      this.tokens.delete(record.domain);
      this.liveCheck.forget(record.domain);
    }
  }

  /** Removes the project's domain: record, name, table entry. */
  private async drop(record: DomainRecord): Promise<void> {
    await this.store.remove(record.site_id);
    await this.forget(record);
    if (this.table.ofSite(record.site_id)?.domain === record.domain) this.table.deleteSite(record.site_id);
  }

  private targets(slug: string): RecordTargets {
    return { siteHost: siteHostOf(this.config.sitesDomain, slug), ipv4: this.config.publicIpv4, ipv6: this.config.publicIpv6 };
  }

  private view(record: DomainRecord, slug: string): DomainView {
    const name = describeDomain(record.domain);
    return {
      domain: name.ascii,
      domain_unicode: name.unicode,
      apex: name.apex,
      records: recordsFor(name, record.token, this.targets(slug)),
      verified: record.verified,
      verified_at: record.verified_at,
      ...(record.taken_at ? { taken_at: record.taken_at } : {}),
    };
  }
}

const takenMessage = (record: DomainRecord) =>
  `${describeDomain(record.domain).unicode} was verified by another project first (${record.taken_at}), so this project's claim was dropped: it does not serve here. ` +
  "Connect another domain (PUT …/domain), or remove this one.";

const takenError = (record: DomainRecord) => conflict(takenMessage(record), "domain_taken", { field: "domain", taken_at: record.taken_at });
