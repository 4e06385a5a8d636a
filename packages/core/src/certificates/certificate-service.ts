import type { Clock } from "../ports/clock.js";
import type { DomainEntry, DomainTable } from "../domains/domain-table.js";
import { readIssued, type Certificate } from "./certificate.js";
import type { CertificateIssuer } from "./certificate-issuer.js";
import type { CertificateStore } from "./certificate-store.js";
import { HttpChallenges } from "./http-challenges.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** When certificates are ordered and renewed; the defaults suit a public CA (Let's Encrypt). */
export interface CertificateSettings {
  /** A certificate with less than this left is renewed. Default 30 days (Let's Encrypt's own advice for 90-day certificates). */
  renewBeforeMs: number;
  /** How often every name is looked at (missing, near expiry, failed before). Default 1 hour. */
  checkIntervalMs: number;
  /** After a failed order, the name waits this long before the next (CAs limit failed validations). Default 1 hour. */
  retryAfterMs: number;
  /** Names that get a certificate besides verified custom domains: the service's own host, for example. */
  hostnames: string[];
  /** Replicas sharing one storage: whose turn it is to order (see `RenewalTurn`). Default: this server orders alone. */
  turn?: RenewalTurn;
}

/**
 * Replicas sharing one storage: runs `work` only on the replica holding the renewal lease (as the
 * sweeps do, `Leases.asLeader`) and answers whether it ran, so one replica orders and renews for all.
 */
export type RenewalTurn = (work: () => Promise<void>) => Promise<boolean>;

/** A replica lacking a wanted name's certificate looks in storage for it at most this often (SNI asks at every handshake). */
const LOOK_AGAIN_MS = 2_000;

export const DEFAULT_CERTIFICATE_SETTINGS: CertificateSettings = {
  renewBeforeMs: 30 * DAY_MS,
  checkIntervalMs: 60 * 60 * 1000,
  retryAfterMs: 60 * 60 * 1000,
  hostnames: [],
};

/**
 * Built-in ACME: keeps a certificate for every verified custom domain (and the operator's own
 * names) in memory for SNI, orders missing ones as soon as a domain is verified, renews them
 * before they expire (checked on an unref'd timer) and forgets a domain's when it is removed.
 * Orders go one at a time: a burst of new domains never hits the CA at once. With replicas, only
 * the one whose `turn` it is orders; the others take what it stored (at each check for names near
 * expiry, and at the next handshake for a name they have none of).
 */
export class CertificateService {
  private readonly settings: CertificateSettings;
  private readonly current = new Map<string, Certificate>();
  private readonly ordering = new Map<string, Promise<void>>();
  private readonly failedAt = new Map<string, number>();
  /** When each missing name was last looked for in storage (replicas whose turn it is not). */
  private readonly lookedAt = new Map<string, number>();
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly store: CertificateStore,
    private readonly domains: DomainTable,
    private readonly issuer: CertificateIssuer,
    private readonly clock: Clock,
    settings: Partial<CertificateSettings> = {},
    /** The answers to the CA's HTTP-01 challenges, read by the challenge route (as records too, for replicas). */
    readonly challenges: HttpChallenges = new HttpChallenges(),
  ) {
    this.settings = { ...DEFAULT_CERTIFICATE_SETTINGS, ...settings, hostnames: (settings.hostnames ?? []).map(normalName) };
  }

  /** Loads stored certificates (served at once, no CA asked), then follows the domain table and the timer. */
  async start(): Promise<void> {
    for (const certificate of await this.store.all()) this.current.set(certificate.domain, certificate);
    this.unsubscribe = this.domains.onChange((change) => this.changed(change));
    this.timer = setInterval(() => void this.check(), this.settings.checkIntervalMs);
    this.timer.unref();
    void this.check();
  }

  /** The certificate SNI serves for `servername`: a wanted name's only, so a removed domain's is never served. */
  forName(servername: string): Certificate | undefined {
    const name = normalName(servername);
    if (!this.wants(name)) return undefined;
    const certificate = this.current.get(name);
    // Another replica may have ordered or renewed it: a later handshake finds it.
    if (this.settings.turn && (!certificate || this.isDue(name))) void this.lookFor(name);
    return certificate;
  }

  /**
   * Takes from storage what another replica stored for names missing or near expiry, then orders
   * those still due (on the replica whose turn it is); resolves when its orders have ended.
   */
  async check(): Promise<void> {
    const names = [...new Set([...this.settings.hostnames, ...this.domains.verified().map((entry) => entry.domain)])];
    for (const name of names) if (this.isDue(name)) await this.takeStored(name);
    const orderDue = async () => {
      for (const name of names) if (this.isDue(name)) void this.order(name);
      await this.queue;
    };
    if (this.settings.turn) await this.settings.turn(orderDue);
    else await orderDue();
  }

  /** Stops the timer and following the table; an order under way ends without storing anything. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
  }

  private wants(name: string): boolean {
    return this.settings.hostnames.includes(name) || this.domains.isVerified(name);
  }

  /** Missing or near expiry, and not failed within `retryAfterMs`. */
  private isDue(name: string): boolean {
    const now = this.clock.now().getTime();
    const failed = this.failedAt.get(name);
    if (failed !== undefined && now - failed < this.settings.retryAfterMs) return false;
    const certificate = this.current.get(name);
    return !certificate || Date.parse(certificate.expiresAt) - now < this.settings.renewBeforeMs;
  }

  private changed({ before, after }: { before: DomainEntry | null; after: DomainEntry | null }): void {
    const kept = after?.verified ? after.domain : undefined;
    if (before?.verified && before.domain !== kept && !this.settings.hostnames.includes(before.domain)) this.forget(before.domain);
    if (!kept || !this.isDue(kept)) return;
    const { turn } = this.settings;
    if (turn) void turn(() => this.order(kept)).catch((error: unknown) => console.error(`[reposite] ordering a certificate for ${kept} failed:`, error));
    else void this.order(kept);
  }

  /** A stored certificate for `name` newer than the one in memory (another replica's order) is served from now on. */
  private async takeStored(name: string): Promise<void> {
    const stored = await this.store.get(name).catch(() => null);
    const current = this.current.get(name);
    if (stored && this.wants(name) && (!current || Date.parse(stored.expiresAt) > Date.parse(current.expiresAt))) this.current.set(name, stored);
  }

  private async lookFor(name: string): Promise<void> {
    const now = this.clock.now().getTime();
    if (now - (this.lookedAt.get(name) ?? Number.NEGATIVE_INFINITY) < LOOK_AGAIN_MS) return;
    this.lookedAt.set(name, now);
    await this.takeStored(name);
  }

  /** One order per name at a time, and one at a time overall. Failures are said and retried later, never thrown. */
  private order(name: string): Promise<void> {
    const under = this.ordering.get(name);
    if (under) return under;
    const run = this.queue.then(async () => {
      if (this.closed || !this.wants(name) || !this.isDue(name)) return;
      try {
        const issued = await this.issuer.issue(name, this.challenges);
        const certificate = readIssued(name, issued, this.clock.now());
        if (this.closed || !this.wants(name)) return;
        await this.store.save(certificate);
        this.current.set(name, certificate);
        this.failedAt.delete(name);
        console.log(`[reposite] got a certificate for ${name} (serial ${certificate.serial}, valid until ${certificate.expiresAt})`);
        // Removed while it was being stored: nothing of it stays.
        if (!this.wants(name)) this.forget(name);
      } catch (error) {
        this.failedAt.set(name, this.clock.now().getTime());
        console.error(`[reposite] ordering a certificate for ${name} failed (next try in ${Math.round(this.settings.retryAfterMs / 60_000)} min):`, (error as Error).message);
      }
    });
    const tracked = run.finally(() => this.ordering.delete(name));
    this.ordering.set(name, tracked);
    this.queue = tracked;
    return tracked;
  }

  private forget(name: string): void {
    this.current.delete(name);
    this.lookedAt.delete(name);
    this.failedAt.delete(name);
    this.store.delete(name).catch((error: unknown) => console.error(`[reposite] removing the certificate of ${name} failed:`, error));
  }
}

/** SNI names arrive in any case, maybe with a trailing dot; table entries are lower case without one. */
const normalName = (name: string) => name.toLowerCase().replace(/\.$/, "");
