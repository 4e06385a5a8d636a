import { inject, injectable } from "tsyringe";
import { z } from "zod";
import { conflict, RepositeError } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { EVENTS, type EventBus } from "../ports/events.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { ProjectsService } from "../projects/projects-service.js";
import { RateLimiter, type RateLimit } from "../util/rate-limiter.js";
import { isWellFormedId } from "../util/record-ids.js";
import { newSecret, sha256 } from "../util/secrets.js";
import { formatTimestamp } from "../util/timestamps.js";
import { parseInput } from "../util/validation.js";
import { MEMBER_SESSIONS_CHANNEL, type MemberSessionsEnded } from "./member-events.js";
import { toMemberView, type MemberCredentials, type MemberRecord, type MemberView, type SiteSession } from "./member.js";
import { hashPassword, needsRehash, verifyPassword } from "./password.js";

/** A member's session on a site lasts 30 days. */
export const MEMBER_SESSION_TTL_MS = 30 * 86_400_000;
export const MEMBER_PASSWORD_MIN = 8;
export const MEMBER_PASSWORD_MAX = 200;

/** Sign-in attempts per site and email: enough for typos, far too few to guess a password. */
export const MEMBER_SIGN_INS_PER_EMAIL: RateLimit = { name: "member-sign-in", max: 10, windowMs: 15 * 60_000 };
/** Sign-in attempts per client address, over all sites and emails (password spraying). */
export const MEMBER_SIGN_INS_PER_ADDRESS: RateLimit = { name: "member-sign-in-address", max: 50, windowMs: 15 * 60_000 };
/** Registrations per client address, over all sites. */
export const MEMBER_SIGN_UPS_PER_ADDRESS: RateLimit = { name: "member-sign-up-address", max: 20, windowMs: 3_600_000 };

/** Where a request came from, for rate limits; the server passes the client's address. */
export interface MemberRequestContext {
  address?: string;
}

const INVALID_CREDENTIALS = "The email or password is wrong.";

const emailSchema = z
  .string({ message: "an email address is required" })
  .trim()
  .toLowerCase()
  .max(254, { message: "the email address is too long" })
  .pipe(z.email({ message: "a valid email address is required" }));

const registerSchema = z.object({
  email: emailSchema,
  password: z
    .string({ message: "a password is required" })
    .min(MEMBER_PASSWORD_MIN, { message: `the password needs at least ${MEMBER_PASSWORD_MIN} characters` })
    .max(MEMBER_PASSWORD_MAX, { message: `the password may have at most ${MEMBER_PASSWORD_MAX} characters` }),
});

const memberKey = (siteId: string, memberId: string) => `members:${siteId}:${memberId}`;
/** Unique email per site; hashed so the key is safe for every storage driver. */
const emailKey = (siteId: string, email: string) => `member-emails:${siteId}:${sha256(email)}`;
/** The site's members in registration order, so a list reads one index and the records. */
const siteIndexKey = (siteId: string) => `site-members:${siteId}`;
const sessionKeyOfHash = (hash: string) => `member-sessions:${hash}`;
const sessionKey = (secret: string) => sessionKeyOfHash(sha256(secret));
/**
 * One small record per session under its site (the session's end, in ms), so a purge finds the
 * site's sessions without reading the sessions of every site.
 */
const siteSessionsPrefix = (siteId: string) => `site-member-sessions:${siteId}`;
const siteSessionKey = (siteId: string, secret: string) => `${siteSessionsPrefix(siteId)}:${sha256(secret)}`;
/** Ids given to `get` and `createSession` go into keys: a malformed one is no member. */
const isMemberKeyPart = (siteId: string, memberId: string) => isWellFormedId(siteId, "site") && isWellFormedId(memberId, "member");

/**
 * People who register on published sites, and their sessions there. Members are kept by
 * `site_id`, so renaming a site's address moves its members with it. Sessions are separate from
 * Reposite account sessions: a member of a site has no Reposite account.
 */
@injectable()
export class MembersService {
  /** Verified against when the email is unknown, so both failures take the same time. */
  private decoyHash: Promise<string> | undefined;

  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
    @inject(ProjectsService) private readonly projects: ProjectsService,
    @inject(EVENTS) private readonly events: EventBus,
  ) {}

  /** Registers a person on a site: `409 member_exists` when the email is taken there, `422` for bad input. */
  async register(siteId: string, input: MemberCredentials, context: MemberRequestContext = {}): Promise<MemberView> {
    const { email, password } = parseInput(registerSchema, input);
    if (context.address) await this.take(MEMBER_SIGN_UPS_PER_ADDRESS, context.address, "Too many sign-ups from this address");
    const passwordHash = await hashPassword(password);
    return this.locks.withLock(emailKey(siteId, email), async () => {
      if (await this.storage.getItem<string>(emailKey(siteId, email))) {
        throw conflict("Someone already registered with this email. Sign in instead.", "member_exists");
      }
      const member: MemberRecord = {
        id: this.ids.newId("member"),
        site_id: siteId,
        email,
        password_hash: passwordHash,
        created_at: formatTimestamp(this.clock.now()),
        last_sign_in_at: null,
      };
      await this.storage.setItem(memberKey(siteId, member.id), member);
      await this.storage.setItem(emailKey(siteId, email), member.id);
      await this.locks.withLock(siteIndexKey(siteId), async () => {
        const ids = (await this.storage.getItem<string[]>(siteIndexKey(siteId))) ?? [];
        await this.storage.setItem(siteIndexKey(siteId), [...ids, member.id]);
      });
      return toMemberView(member);
    });
  }

  /**
   * Checks a member's email and password. Unknown email and wrong password answer the same
   * `401 invalid_credentials`, in the same time; attempts are limited per site and email and per
   * client address (`429 rate_limited`).
   */
  async signIn(siteId: string, input: MemberCredentials, context: MemberRequestContext = {}): Promise<MemberView> {
    const email = typeof input?.email === "string" ? input.email.trim().toLowerCase() : "";
    const password = typeof input?.password === "string" ? input.password : "";
    if (context.address) await this.take(MEMBER_SIGN_INS_PER_ADDRESS, context.address, "Too many sign-in attempts from this address");
    const emailKey = `${siteId}:${email}`;
    await this.take(MEMBER_SIGN_INS_PER_EMAIL, emailKey, "Too many sign-in attempts for this email");
    const member = email && password.length <= MEMBER_PASSWORD_MAX ? await this.findByEmail(siteId, email) : null;
    const matches = await verifyPassword(password.slice(0, MEMBER_PASSWORD_MAX), member?.password_hash ?? (await this.decoy()));
    if (!member || !matches) throw new RepositeError(401, INVALID_CREDENTIALS, "invalid_credentials");
    // Only failed attempts add up, so a member who signs in often is never held back by it.
    await this.limiter.reset(MEMBER_SIGN_INS_PER_EMAIL, emailKey);
    if (needsRehash(member.password_hash)) {
      const password_hash = await hashPassword(password);
      await this.modify(siteId, member.id, (record) => ({ ...record, password_hash }));
    }
    return toMemberView(member);
  }

  /** A site's members for its owner, newest first, without password hashes; `404` for anyone else. */
  async list(ownerId: string, siteId: string): Promise<MemberView[]> {
    await this.projects.getOwned(ownerId, siteId);
    const ids = (await this.storage.getItem<string[]>(siteIndexKey(siteId))) ?? [];
    const records = await Promise.all(ids.map((id) => this.storage.getItem<MemberRecord>(memberKey(siteId, id))));
    return records
      .filter((record): record is MemberRecord => record !== null)
      .reverse()
      .map(toMemberView);
  }

  async get(siteId: string, memberId: string): Promise<MemberView | null> {
    if (!isMemberKeyPart(siteId, memberId)) return null;
    const record = await this.storage.getItem<MemberRecord>(memberKey(siteId, memberId));
    return record ? toMemberView(record) : null;
  }

  /** Starts a session on the site (and records the sign-in). The secret goes into the cookie only. */
  async createSession(siteId: string, memberId: string): Promise<{ secret: string; session: SiteSession }> {
    const now = this.clock.now();
    const updated = await this.modify(siteId, memberId, (record) => ({ ...record, last_sign_in_at: formatTimestamp(now) }));
    if (!updated) throw new RepositeError(404, "This member does not exist.", "member_not_found");
    const secret = newSecret();
    const session: SiteSession = { site_id: siteId, member_id: memberId, csrf: newSecret(), expires_at: now.getTime() + MEMBER_SESSION_TTL_MS };
    await this.storage.setItem(siteSessionKey(siteId, secret), session.expires_at);
    await this.storage.setItem(sessionKey(secret), session);
    return { secret, session };
  }

  /**
   * The session and its member, or null when the secret is unknown, expired, of another site, or
   * its member is gone.
   */
  async findSession(siteId: string, secret: string | undefined): Promise<{ member: MemberView; session: SiteSession } | null> {
    if (!secret || secret.length > 200) return null;
    const session = await this.storage.getItem<SiteSession>(sessionKey(secret));
    if (!session || session.site_id !== siteId) return null;
    if (session.expires_at <= this.clock.now().getTime()) {
      await this.storage.removeItem(sessionKey(secret));
      await this.storage.removeItem(siteSessionKey(siteId, secret));
      return null;
    }
    const member = await this.get(siteId, session.member_id);
    return member ? { member, session } : null;
  }

  async endSession(secret: string): Promise<void> {
    const session = await this.storage.getItem<SiteSession>(sessionKey(secret));
    await this.storage.removeItem(sessionKey(secret));
    if (isWellFormedId(session?.site_id, "site")) await this.storage.removeItem(siteSessionKey(session.site_id, secret));
    // Caches of checked sessions (the /app/ proxy's) drop it, on every replica.
    this.events.publish(MEMBER_SESSIONS_CHANNEL, { session: sha256(secret) } satisfies MemberSessionsEnded);
  }

  /**
   * Removes what a site's members left: every session, the member records with their password
   * hashes, the email index and the member list. For a purge of the project (`DELETE … ?purge=1`).
   */
  async purgeSite(siteId: string): Promise<void> {
    if (!isWellFormedId(siteId, "site")) return;
    const sessions = siteSessionsPrefix(siteId);
    for (const key of await this.storage.getKeys(sessions)) {
      await this.storage.removeItem(sessionKeyOfHash(key.slice(sessions.length + 1)));
      await this.storage.removeItem(key);
    }
    for (const prefix of [`members:${siteId}`, `member-emails:${siteId}`]) {
      for (const key of await this.storage.getKeys(prefix)) await this.storage.removeItem(key);
    }
    await this.locks.withLock(siteIndexKey(siteId), () => this.storage.removeItem(siteIndexKey(siteId)));
    this.events.publish(MEMBER_SESSIONS_CHANNEL, { site_id: siteId } satisfies MemberSessionsEnded);
  }

  private async findByEmail(siteId: string, email: string): Promise<MemberRecord | null> {
    const id = await this.storage.getItem<string>(emailKey(siteId, email));
    return id ? this.storage.getItem<MemberRecord>(memberKey(siteId, id)) : null;
  }

  private async modify(siteId: string, memberId: string, change: (record: MemberRecord) => MemberRecord): Promise<MemberRecord | null> {
    if (!isMemberKeyPart(siteId, memberId)) return null;
    const key = memberKey(siteId, memberId);
    return this.locks.withLock(key, async () => {
      const record = await this.storage.getItem<MemberRecord>(key);
      if (!record) return null;
      const changed = change(record);
      await this.storage.setItem(key, changed);
      return changed;
    });
  }

  private async take(limit: RateLimit, key: string, what: string): Promise<void> {
    const quota = await this.limiter.take(limit, key);
    if (!quota.allowed) {
      const minutes = Math.max(1, Math.ceil(quota.retryAfter / 60));
      throw new RepositeError(429, `${what}; try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, "rate_limited", {
        retry_after: quota.retryAfter,
      });
    }
  }

  private decoy(): Promise<string> {
    return (this.decoyHash ??= hashPassword(newSecret()));
  }
}
