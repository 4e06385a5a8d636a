import { inject, injectable } from "tsyringe";
import { z } from "zod";
import type { Account } from "../accounts/account.js";
import { AccountsService } from "../accounts/accounts-service.js";
import { CONFIG, type RepositeConfig } from "../config.js";
import { RepositeError } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { MAILER, type Mailer } from "../ports/mailer.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { ExpiringRecords } from "../util/expiring-records.js";
import { RateLimiter, type RateLimit } from "../util/rate-limiter.js";
import { newSecret, sha256 } from "../util/secrets.js";
import { parseInput } from "../util/validation.js";

/** A sign-in link works for 15 minutes, once. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/** Sign-in emails per address per hour; past that the person uses the page they already have. */
export const SIGN_IN_EMAILS_PER_HOUR = 5;
/**
 * Sign-in emails asked for from one client address per hour, whoever they go to: one machine must
 * not mail strangers. Room for an office behind one address, far too few to spam anyone.
 */
export const SIGN_IN_EMAILS_PER_CLIENT_PER_HOUR = 20;

const PER_RECIPIENT: RateLimit = { name: "sign-in-email", max: SIGN_IN_EMAILS_PER_HOUR, windowMs: 3_600_000 };
const PER_CLIENT: RateLimit = { name: "sign-in-email-client", max: SIGN_IN_EMAILS_PER_CLIENT_PER_HOUR, windowMs: 3_600_000 };

interface SignInLinkRecord {
  email: string;
  /** Where the person goes once signed in: a path on this server. */
  next: string;
  expires_at: number;
}

/** Whether the mail went out; `retryAfter` (seconds) when a rate limit stopped it. */
export type SendResult = { sent: true } | { sent: false; error: string; retryAfter?: number };

const emailSchema = z.string({ message: "an email address is required" }).trim().toLowerCase().pipe(z.email({ message: "a valid email address is required" }));

/**
 * Only paths on this server: an open redirect would turn sign-in mails into phishing tools.
 * Whitespace and control characters are refused too: browsers drop tabs and newlines inside a
 * URL, so `/\t/evil.example` would become `//evil.example`.
 */
export function safeNextPath(next: string | undefined): string {
  return next && /^\/(?![/\\])[^\s\x00-\x1f\x7f]*$/.test(next) ? next : "/account";
}

@injectable()
export class SignInLinks {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(MAILER) private readonly mailer: Mailer,
    @inject(CONFIG) private readonly config: RepositeConfig,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
    @inject(AccountsService) private readonly accounts: AccountsService,
    @inject(ExpiringRecords) private readonly expiring: ExpiringRecords,
  ) {}

  /**
   * Mails a one-time sign-in link (signing up on first use). Never throws for mail trouble:
   * the answer says whether the mail went out and, if not, why. `address` is the client's, which
   * is limited too; the client is counted first, so one over its limit uses up nobody's quota.
   */
  async send(emailInput: string, options: { next?: string; intro?: string; address?: string } = {}): Promise<SendResult> {
    const email = parseInput(emailSchema, emailInput);
    if (options.address) {
      const quota = await this.limiter.take(PER_CLIENT, options.address);
      if (!quota.allowed) {
        return {
          sent: false,
          error: `Too many sign-in emails were asked for from your address in the last hour; try again in ${Math.ceil(quota.retryAfter / 60)} minutes.`,
          retryAfter: quota.retryAfter,
        };
      }
    }
    const quota = await this.limiter.take(PER_RECIPIENT, email);
    if (!quota.allowed) {
      return {
        sent: false,
        error: `Too many sign-in emails were sent to this address in the last hour; try again in ${Math.ceil(quota.retryAfter / 60)} minutes.`,
        retryAfter: quota.retryAfter,
      };
    }
    const secret = newSecret();
    const record: SignInLinkRecord = {
      email,
      next: safeNextPath(options.next),
      expires_at: this.clock.now().getTime() + SIGN_IN_LINK_TTL_MS,
    };
    const key = `sign-in-links:${sha256(secret)}`;
    await this.expiring.write(key, record, record.expires_at);
    const link = `${this.config.baseUrl}/account/sign-in/confirm?token=${secret}`;
    const intro = options.intro ?? "Use this link to sign in to Reposite.";
    try {
      await this.mailer.send({
        to: email,
        subject: "Your Reposite sign-in link",
        text: `${intro}\n\n${link}\n\nThe link works once, for 15 minutes. If you did not ask for it, ignore this email.\n`,
        html: `<p>${escapeHtml(intro)}</p><p><a href="${link}">Sign in to Reposite</a></p><p>The link works once, for 15 minutes. If you did not ask for it, ignore this email.</p>`,
      });
      return { sent: true };
    } catch (error) {
      return { sent: false, error: RepositeError.isInstance(error) ? error.message : "The email could not be sent." };
    }
  }

  /**
   * Uses up a link: the account of its email (created on first sign-in) and where to go next.
   * A used, expired or unknown link answers `410 link_expired`.
   */
  async consume(secret: string): Promise<{ account: Account; next: string }> {
    const key = `sign-in-links:${sha256(secret)}`;
    const record = await this.storage.getItem<SignInLinkRecord>(key);
    await this.storage.removeItem(key);
    if (!record || record.expires_at <= this.clock.now().getTime()) {
      throw new RepositeError(410, "This sign-in link was used already or has expired. Ask for a new one.", "link_expired");
    }
    const { account } = await this.accounts.findOrCreate(record.email);
    return { account, next: record.next };
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
