import { inject, injectable } from "tsyringe";
import type { Account } from "../accounts/account.js";
import { AccountsService } from "../accounts/accounts-service.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { newSecret, sha256 } from "../util/secrets.js";

/** A browser session lasts 30 days. */
export const SESSION_TTL_MS = 30 * 86_400_000;

export interface BrowserSession {
  account_id: string;
  /** Goes into every form of the session's pages; a post without it is refused. */
  csrf: string;
  expires_at: number;
}

const key = (secret: string) => `sessions:${sha256(secret)}`;

/** Browser sessions: the cookie holds a random secret, storage only its hash. */
@injectable()
export class SessionsService {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(AccountsService) private readonly accounts: AccountsService,
  ) {}

  async create(accountId: string): Promise<{ secret: string; session: BrowserSession }> {
    const secret = newSecret();
    const session: BrowserSession = {
      account_id: accountId,
      csrf: newSecret(),
      expires_at: this.clock.now().getTime() + SESSION_TTL_MS,
    };
    // A storage with its own expiry (unstorage's ttl: PostgreSQL) drops it then; elsewhere it goes when read after it expired.
    await this.storage.setItem(key(secret), session, { ttl: SESSION_TTL_MS / 1000 });
    return { secret, session };
  }

  /** The session and its account, or null when the secret is unknown or expired. */
  async find(secret: string | undefined): Promise<{ account: Account; session: BrowserSession } | null> {
    if (!secret) return null;
    const session = await this.storage.getItem<BrowserSession>(key(secret));
    if (!session) return null;
    if (session.expires_at <= this.clock.now().getTime()) {
      await this.storage.removeItem(key(secret));
      return null;
    }
    return { account: await this.accounts.get(session.account_id), session };
  }

  async destroy(secret: string): Promise<void> {
    await this.storage.removeItem(key(secret));
  }
}
