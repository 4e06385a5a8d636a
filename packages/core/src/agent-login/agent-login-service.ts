import { agentLoginSchema, agentTokenExchangeSchema, type AgentToken } from "@reposite/contract";
import { inject, injectable } from "tsyringe";
import type { Account } from "../accounts/account.js";
import { AccountsService } from "../accounts/accounts-service.js";
import { CONFIG, type RepositeConfig } from "../config.js";
import { RepositeError } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { SignInLinks } from "../sessions/sign-in-links.js";
import { TokensService } from "../tokens/tokens-service.js";
import { ExpiringRecords } from "../util/expiring-records.js";
import { RateLimiter } from "../util/rate-limiter.js";
import { isWellFormedId } from "../util/record-ids.js";
import { constantTimeEqual, randomString } from "../util/secrets.js";
import { parseInput } from "../util/validation.js";
import {
  AGENT_TOKEN_LIFETIME,
  CODE_ALPHABET,
  CODE_LENGTH,
  formatCode,
  LOGIN_REQUEST_KEPT_MS,
  LOGIN_REQUEST_TTL_SECONDS,
  LOGINS_PER_ADDRESS_PER_HOUR,
  MAX_WRONG_CODES,
  normalizeCode,
  type LoginRequestPage,
  type LoginRequestRecord,
  type LoginRequestView,
} from "./login-request.js";

/** What `POST /agent/token` answers: the contract's `AgentToken`. */
export type IssuedAgentToken = AgentToken;

const requestKey = (id: string) => `login-requests:${id}`;
const verificationKey = (id: string) => `login-verifications:${id}`;

/**
 * Agent login: an agent starts a request, a person opens the link, signs in, continues and reads
 * out the code, and the agent trades request id + code for a 90-day token.
 */
@injectable()
export class AgentLoginService {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(CONFIG) private readonly config: RepositeConfig,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
    @inject(SignInLinks) private readonly signInLinks: SignInLinks,
    @inject(TokensService) private readonly tokens: TokensService,
    @inject(AccountsService) private readonly accounts: AccountsService,
    @inject(ExpiringRecords) private readonly expiring: ExpiringRecords,
  ) {}

  async start(input: unknown, origin: { address: string }): Promise<LoginRequestView> {
    const { email, client } = parseInput(agentLoginSchema, input);
    const quota = await this.limiter.take(
      { name: "agent-login-address", max: LOGINS_PER_ADDRESS_PER_HOUR, windowMs: 3_600_000 },
      origin.address,
    );
    if (!quota.allowed) {
      throw new RepositeError(429, "Too many logins were started from this address. Wait an hour and try again.", "rate_limited", {
        retry_after: quota.retryAfter,
      });
    }
    const now = this.clock.now().getTime();
    const record: LoginRequestRecord = {
      id: this.ids.newId("login"),
      verification_id: this.ids.newId("verify"),
      client,
      email: email ?? null,
      code: randomString(CODE_ALPHABET, CODE_LENGTH),
      status: "pending",
      created_at: now,
      expires_at: now + LOGIN_REQUEST_TTL_SECONDS * 1000,
      wrong_codes: 0,
      account_id: null,
      wrong_account_email: null,
      token_id: null,
    };
    const removeAt = record.expires_at + LOGIN_REQUEST_KEPT_MS;
    await this.expiring.rewrite(verificationKey(record.verification_id), record.id, removeAt);
    await this.expiring.write(requestKey(record.id), record, removeAt, [verificationKey(record.verification_id)]);
    const verificationPath = `/agent/verify/${record.verification_id}`;
    const verificationUrl = `${this.config.baseUrl}${verificationPath}`;

    let mail: { sent: boolean; error?: string } = { sent: false };
    if (email) {
      mail = await this.signInLinks.send(email, {
        next: verificationPath,
        address: origin.address,
        intro: `"${client}" asks to act on your Reposite account. Open this link to sign in and see the code it needs. If you did not start this, ignore this email.`,
      });
    }
    const view: LoginRequestView = {
      request_id: record.id,
      verification_url: verificationUrl,
      expires_in: LOGIN_REQUEST_TTL_SECONDS,
      email_sent: mail.sent,
      next_step: mail.sent
        ? `Ask the person to open the sign-in link just emailed to ${email}, continue, and read you the 8-letter code shown; then POST /agent/token with request_id and code.`
        : `Ask the person to open ${verificationUrl}, sign in, continue, and read you the 8-letter code shown; then POST /agent/token with request_id and code.`,
    };
    if (email && !mail.sent) view.email_error = mail.error ?? "The email could not be sent.";
    return view;
  }

  /** What the person's page shows for the link, as seen by the signed-in `account` (null: signed out). */
  async page(verificationId: string, account: Account | null): Promise<LoginRequestPage> {
    const record = await this.byVerificationId(verificationId);
    return this.pageOf(record, account);
  }

  /** The person continues: from now on the page shows the code and the agent may use it. */
  async approve(verificationId: string, account: Account): Promise<LoginRequestPage> {
    const found = await this.byVerificationId(verificationId);
    return this.locks.withLock(requestKey(found.id), async () => {
      const record = (await this.storage.getItem<LoginRequestRecord>(requestKey(found.id)))!;
      if (record.status === "pending" && !this.isExpired(record)) {
        if (record.email && record.email !== account.email) {
          record.wrong_account_email = account.email;
        } else {
          record.status = "approved";
          record.account_id = account.id;
          record.wrong_account_email = null;
        }
        await this.save(record);
      }
      return this.pageOf(record, account);
    });
  }

  /**
   * "I did not ask for this": the request can no longer be used, and a token it already gave
   * out is revoked, so the agent's next call answers 401.
   */
  async decline(verificationId: string, account: Account): Promise<LoginRequestPage> {
    const found = await this.byVerificationId(verificationId);
    return this.locks.withLock(requestKey(found.id), async () => {
      const record = (await this.storage.getItem<LoginRequestRecord>(requestKey(found.id)))!;
      // Once a person continued, only that person may take it back.
      if (record.account_id && record.account_id !== account.id) return this.pageOf(record, account);
      if (record.token_id) await this.tokens.revoke(account.id, record.token_id).catch(() => undefined);
      record.status = "denied";
      await this.save(record);
      return this.pageOf(record, account);
    });
  }

  /** The agent trades the request id and the code the person read out for a token. */
  async exchange(input: unknown): Promise<IssuedAgentToken> {
    const { request_id, code } = parseInput(agentTokenExchangeSchema, input);
    return this.locks.withLock(requestKey(request_id), async () => {
      const record = await this.storage.getItem<LoginRequestRecord>(requestKey(request_id));
      if (!record || this.isExpired(record) || record.status === "used" || record.status === "locked") {
        throw new RepositeError(410, "This login request has expired, was used already, or had too many wrong codes. Start a new login.", "expired");
      }
      if (record.status === "denied") {
        throw new RepositeError(403, "The person declined this login.", "denied");
      }
      if (record.status === "pending") {
        if (record.wrong_account_email) {
          throw new RepositeError(
            409,
            `The link was opened signed in as another account than ${record.email}. The person should sign out, sign in as ${record.email} and open the link again.`,
            "wrong_account",
          );
        }
        throw new RepositeError(409, "The person has not opened the link and continued yet. Ask them to, then send the code.", "not_opened");
      }
      if (!constantTimeEqual(normalizeCode(code), record.code)) {
        record.wrong_codes += 1;
        const attemptsLeft = MAX_WRONG_CODES - record.wrong_codes;
        if (attemptsLeft <= 0) record.status = "locked";
        await this.save(record);
        if (attemptsLeft <= 0) {
          throw new RepositeError(410, "Too many wrong codes: this login request no longer works. Start a new login.", "expired");
        }
        throw new RepositeError(400, `That code is not right. ${attemptsLeft} attempts left.`, "invalid_code", {
          attempts_left: attemptsLeft,
        });
      }
      const account = await this.accounts.get(record.account_id!);
      const { secret, token } = await this.tokens.create(account.id, {
        name: record.client,
        lifetime: AGENT_TOKEN_LIFETIME,
        source: "agent",
      });
      record.status = "used";
      record.token_id = token.id;
      await this.save(record);
      return {
        token: secret,
        token_type: "Bearer",
        token_id: token.id,
        expires_at: token.expires_at,
        user: { id: account.id, email: account.email },
      };
    });
  }

  /** Saves a changed request; it still goes when it was to (the storage's own expiry keeps that time). */
  private save(record: LoginRequestRecord): Promise<void> {
    return this.expiring.rewrite(requestKey(record.id), record, record.expires_at + LOGIN_REQUEST_KEPT_MS);
  }

  private async byVerificationId(verificationId: string): Promise<LoginRequestRecord> {
    const id = isWellFormedId(verificationId, "verify") ? await this.storage.getItem<string>(verificationKey(verificationId)) : null;
    const record = id ? await this.storage.getItem<LoginRequestRecord>(requestKey(id)) : null;
    if (!record) throw new RepositeError(404, "This login link is not known. Ask the program to start a new login.", "not_found");
    return record;
  }

  private isExpired(record: LoginRequestRecord): boolean {
    return record.expires_at <= this.clock.now().getTime();
  }

  private pageOf(record: LoginRequestRecord, account: Account | null): LoginRequestPage {
    const expired = this.isExpired(record) && (record.status === "pending" || record.status === "approved");
    const ownsIt = account !== null && record.account_id === account.id;
    return {
      client: record.client,
      email: record.email,
      status: expired ? "expired" : record.status,
      code: ownsIt && record.status === "approved" && !expired ? formatCode(record.code) : null,
      wrong_account: account !== null && record.status === "pending" && record.wrong_account_email === account.email,
    };
  }
}
