import { inject, injectable } from "tsyringe";
import { z } from "zod";
import type { Account } from "../accounts/account.js";
import { AccountsService } from "../accounts/accounts-service.js";
import { conflict, notFound, unauthorized } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { isWellFormedId } from "../util/record-ids.js";
import { ReadThroughMemory } from "../util/read-through-memory.js";
import { formatTimestamp, parseTimestamp } from "../util/timestamps.js";
import { withTransaction } from "../util/storage-transactions.js";
import { parseInput } from "../util/validation.js";
import {
  LIFETIME_DAYS,
  MAX_WORKING_TOKENS,
  TOKEN_LIFETIMES,
  TOKEN_SOURCES,
  toTokenView,
  type TokenLifetime,
  type TokenRecord,
  type TokenSource,
  type TokenView,
} from "./token.js";
import { hashesEqual, hashTokenSecret, looksLikeTokenSecret, newTokenSecret } from "./token-secret.js";

const DAY_MS = 86_400_000;
const LAST_USED_PRECISION_MS = 60_000;

const createSchema = z.object({
  name: z.string().trim().min(1, "a name is required").max(100),
  lifetime: z.enum(TOKEN_LIFETIMES, { message: `lifetime must be one of ${TOKEN_LIFETIMES.join(", ")}` }),
  source: z.enum(TOKEN_SOURCES).default("account"),
});

export interface CreatedToken {
  /** Shown once; only its hash is kept. */
  secret: string;
  token: TokenView;
}

export interface Authenticated {
  account: Account;
  token: TokenView;
}

const recordKey = (id: string) => `tokens:${id}`;
const hashKey = (hash: string) => `token-hashes:${hash}`;
const indexKey = (accountId: string) => `account-tokens:${accountId}`;

/** Token hashes whose record id is kept in memory (about 150 bytes each). */
const MEMORY_HASHES = 20_000;

@injectable()
export class TokensService {
  /**
   * A secret's hash to its token's id, once read: that pair is written once and never changed.
   * The token record itself is read at every check, so a revocation holds on every replica at
   * its next request.
   */
  private readonly idsByHash = new ReadThroughMemory<string | null>(MEMORY_HASHES);

  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(AccountsService) private readonly accounts: AccountsService,
  ) {}

  async create(
    accountId: string,
    input: { name: string; lifetime: TokenLifetime; source?: TokenSource },
  ): Promise<CreatedToken> {
    const { name, lifetime, source } = parseInput(createSchema, input);
    await this.accounts.get(accountId);
    return this.locks.withLock(indexKey(accountId), async () => {
      const working = (await this.records(accountId)).filter((record) => this.isWorking(record));
      if (working.length >= MAX_WORKING_TOKENS) {
        throw conflict(
          `This account already has ${MAX_WORKING_TOKENS} working tokens. Revoke one before creating another.`,
          "token_limit",
        );
      }
      const now = this.clock.now();
      const days = LIFETIME_DAYS[lifetime];
      const secret = newTokenSecret();
      const record: TokenRecord = {
        id: this.ids.newId("tok"),
        account_id: accountId,
        name,
        source,
        hint: secret.slice(-4),
        hash: hashTokenSecret(secret),
        created_at: formatTimestamp(now),
        expires_at: days === null ? null : formatTimestamp(new Date(now.getTime() + days * DAY_MS)),
        last_used_at: null,
        revoked_at: null,
      };
      // The record, its hash index and the account's list hold together (one transaction where the storage has them).
      await withTransaction(this.storage, async (tx) => {
        await tx.setItem(recordKey(record.id), record);
        await tx.setItem(hashKey(record.hash), record.id);
        const ids = (await tx.getItem<string[]>(indexKey(accountId))) ?? [];
        await tx.setItem(indexKey(accountId), [...ids, record.id]);
      });
      return { secret, token: toTokenView(record) };
    });
  }

  /** The account and token behind a secret, or `401`. Records when the token was last used. */
  async authenticate(secret: string): Promise<Authenticated> {
    if (!looksLikeTokenSecret(secret)) throw unauthorized("The API token is not valid.");
    const hash = hashTokenSecret(secret);
    const id = await this.idOfHash(hash);
    const record = id ? await this.storage.getItem<TokenRecord>(recordKey(id)) : null;
    // The lookup is by hash already; the constant-time comparison keeps it that way if the
    // storage ever answers a near match.
    if (!record || !hashesEqual(record.hash, hash)) throw unauthorized("The API token is not valid.");
    if (record.revoked_at) throw unauthorized("The API token was revoked.");
    if (this.isExpired(record)) throw unauthorized("The API token has expired.");
    if (this.lastUseIsStale(record)) await this.recordUse(record);
    return { account: await this.accounts.get(record.account_id), token: toTokenView(record) };
  }

  /** The account's tokens that still work, newest first. */
  async list(accountId: string): Promise<TokenView[]> {
    const records = await this.records(accountId);
    return records
      .filter((record) => this.isWorking(record))
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .map(toTokenView);
  }

  /** Revokes one of the account's tokens; the next request with it answers `401`. */
  async revoke(accountId: string, tokenId: string): Promise<void> {
    if (!isWellFormedId(tokenId, "tok")) throw notFound("Token not found.");
    await this.locks.withLock(recordKey(tokenId), async () => {
      const record = await this.storage.getItem<TokenRecord>(recordKey(tokenId));
      if (!record || record.account_id !== accountId || record.revoked_at) throw notFound("Token not found.");
      record.revoked_at = formatTimestamp(this.clock.now());
      await this.storage.setItem(recordKey(record.id), record);
    });
  }

  /** The id of the token whose secret has `hash`; an unknown hash is read again next time (a token may be made meanwhile). */
  private async idOfHash(hash: string): Promise<string | null> {
    const id = await this.idsByHash.get(hash, () => this.storage.getItem<string>(hashKey(hash)));
    if (id === null) this.idsByHash.forget(hash);
    return id;
  }

  /** `last_used_at` is kept to the minute: writing it on every request would make every request a write. */
  private lastUseIsStale(record: TokenRecord): boolean {
    if (!record.last_used_at) return true;
    return this.clock.now().getTime() - parseTimestamp(record.last_used_at).getTime() >= LAST_USED_PRECISION_MS;
  }

  /** Re-reads under the token's lock, so a revocation made meanwhile is never written over. */
  private async recordUse(seen: TokenRecord): Promise<void> {
    const now = formatTimestamp(this.clock.now());
    seen.last_used_at = now;
    await this.locks.withLock(recordKey(seen.id), async () => {
      const record = await this.storage.getItem<TokenRecord>(recordKey(seen.id));
      if (!record || record.revoked_at || !this.lastUseIsStale(record)) return;
      await this.storage.setItem(recordKey(record.id), { ...record, last_used_at: now });
    });
  }

  private async records(accountId: string): Promise<TokenRecord[]> {
    const ids = (await this.storage.getItem<string[]>(indexKey(accountId))) ?? [];
    const records = await Promise.all(ids.map((id) => this.storage.getItem<TokenRecord>(recordKey(id))));
    return records.filter((record): record is TokenRecord => record !== null);
  }

  private isExpired(record: TokenRecord): boolean {
    return record.expires_at !== null && parseTimestamp(record.expires_at).getTime() <= this.clock.now().getTime();
  }

  private isWorking(record: TokenRecord): boolean {
    return !record.revoked_at && !this.isExpired(record);
  }
}
