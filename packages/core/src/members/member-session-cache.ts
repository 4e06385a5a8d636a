import { inject, injectable, type InjectionToken } from "tsyringe";
import { CLOCK, type Clock } from "../ports/clock.js";
import { EVENTS, type EventBus } from "../ports/events.js";
import { sha256 } from "../util/secrets.js";
import type { MemberView, SiteSession } from "./member.js";
import { MEMBER_SESSIONS_CHANNEL } from "./member-events.js";
import { MembersService } from "./members-service.js";

export interface MemberSessionCacheSettings {
  /** How long a checked session (or "no such session") is believed without asking storage again. Default 30 s. */
  ttlMs: number;
  /** Most sessions remembered at once; past it the oldest are forgotten. Default 20 000. */
  maxEntries: number;
}

export const DEFAULT_MEMBER_SESSION_CACHE_SETTINGS: MemberSessionCacheSettings = { ttlMs: 30_000, maxEntries: 20_000 };

/** Optional: register a `Partial<MemberSessionCacheSettings>` under it to change the cache's settings. */
export const MEMBER_SESSION_CACHE_SETTINGS: InjectionToken<Partial<MemberSessionCacheSettings>> = Symbol.for("reposite.MemberSessionCacheSettings");

export interface CachedMemberSession {
  member: MemberView;
  session: SiteSession;
}

interface Entry {
  siteId: string;
  value: CachedMemberSession | null;
  /** Time (ms) after which storage is asked again: the TTL, never past the session's own end. */
  until: number;
}

/**
 * Member sessions checked recently, in memory, for the `/app/` proxy: it answers every request of
 * a signed-in member without reading storage. An entry lives `ttlMs` (at most until the session
 * expires) and goes at once when `MEMBER_SESSIONS_CHANNEL` says the session ended, so a sign-out
 * holds on every replica that shares the events port. Unknown secrets are remembered too, so a
 * flood of made-up cookies costs one storage read per secret per TTL. Entries are kept by the
 * secret's hash, so the cache can follow the events, which never carry secrets.
 *
 * `peek` is synchronous and touches nothing but memory.
 */
@injectable()
export class MemberSessionCache {
  private readonly settings: MemberSessionCacheSettings;
  /** By the secret's hash, oldest first. */
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<CachedMemberSession | null>>();
  /** Hashes whose session ended while a read of it was under way: that read's answer is not kept. */
  private readonly endedWhileLoading = new Set<string>();
  private readonly unsubscribe: () => void;

  constructor(
    @inject(MembersService) private readonly members: MembersService,
    @inject(EVENTS) events: EventBus,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(MEMBER_SESSION_CACHE_SETTINGS, { isOptional: true }) settings?: Partial<MemberSessionCacheSettings>,
  ) {
    this.settings = { ...DEFAULT_MEMBER_SESSION_CACHE_SETTINGS, ...settings };
    this.unsubscribe = events.subscribe(MEMBER_SESSIONS_CHANNEL, (event) => {
      const ended = event as Partial<{ session: unknown; site_id: unknown }> | null;
      if (typeof ended?.session === "string") this.forget(ended.session);
      else if (typeof ended?.site_id === "string") this.forgetSite(ended.site_id);
    });
  }

  /**
   * What memory knows about the session `secret` on `siteId`, without waiting: the member and
   * session, `null` when there is none (no cookie, unknown, expired, another site's), `undefined`
   * when storage has to be asked (call `find`).
   */
  peek(siteId: string, secret: string | undefined): CachedMemberSession | null | undefined {
    if (!secret || secret.length > 200) return null;
    const entry = this.entries.get(sha256(secret));
    if (!entry || entry.siteId !== siteId) return undefined;
    if (entry.until <= this.clock.now().getTime()) return undefined;
    return entry.value;
  }

  /** The session as `MembersService.findSession` answers it, from memory when it was checked recently. */
  find(siteId: string, secret: string | undefined): Promise<CachedMemberSession | null> {
    const known = this.peek(siteId, secret);
    if (known !== undefined) return Promise.resolve(known);
    const hash = sha256(secret!);
    const key = `${siteId}:${hash}`;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.load(siteId, secret!, hash).finally(() => {
        this.loading.delete(key);
        if (![...this.loading.keys()].some((other) => other.endsWith(hash))) this.endedWhileLoading.delete(hash);
      });
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** Forgets one session by the hash of its secret; the next request asks storage. */
  forget(hash: string): void {
    this.entries.delete(hash);
    if (this.loading.size > 0) this.endedWhileLoading.add(hash);
  }

  /** Sessions held now. */
  size(): number {
    return this.entries.size;
  }

  /** Stops listening for events and forgets every session. */
  close(): void {
    this.unsubscribe();
    this.entries.clear();
    this.loading.clear();
    this.endedWhileLoading.clear();
  }

  private forgetSite(siteId: string): void {
    for (const [hash, entry] of this.entries) if (entry.siteId === siteId) this.forget(hash);
    for (const key of this.loading.keys()) if (key.startsWith(`${siteId}:`)) this.endedWhileLoading.add(key.slice(siteId.length + 1));
  }

  private async load(siteId: string, secret: string, hash: string): Promise<CachedMemberSession | null> {
    const value = await this.members.findSession(siteId, secret);
    if (this.endedWhileLoading.has(hash)) return value;
    const now = this.clock.now().getTime();
    const until = Math.min(now + this.settings.ttlMs, value ? value.session.expires_at : Infinity);
    this.entries.delete(hash);
    if (this.entries.size >= this.settings.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { siteId, value, until });
    return value;
  }
}
