import { createHash } from "node:crypto";
import { inject, injectable } from "tsyringe";
import { z } from "zod";
import { notFound } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { ReadThroughMemory } from "../util/read-through-memory.js";
import { formatTimestamp } from "../util/timestamps.js";
import { parseInput } from "../util/validation.js";
import type { Account } from "./account.js";

/** Emails are case-insensitive in practice; keys must not depend on how a person typed theirs. */
const emailSchema = z
  .string({ message: "a valid email address is required" })
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: "a valid email address is required" }).max(254));
const emailKey = (email: string) => `accounts-by-email:${createHash("sha256").update(email).digest("hex")}`;

/** Accounts kept in memory (a hundred bytes each). */
const MEMORY_ACCOUNTS = 20_000;

@injectable()
export class AccountsService {
  /**
   * Accounts by id, once read: an account record is written once, when it is made, and never
   * changed, so memory is never stale on any replica. Every token check reads its account.
   */
  private readonly known = new ReadThroughMemory<Account>(MEMORY_ACCOUNTS);

  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
    @inject(LOCKS) private readonly locks: Locks,
  ) {}

  async get(id: string): Promise<Account> {
    // A missing account throws inside the read, so it is never kept.
    return this.known.get(id, async () => {
      const account = await this.storage.getItem<Account>(`accounts:${id}`);
      if (!account) throw notFound("Account not found.");
      return account;
    });
  }

  async findByEmail(email: string): Promise<Account | null> {
    const normalized = parseInput(emailSchema, email);
    const id = await this.storage.getItem<string>(emailKey(normalized));
    return id ? this.get(id) : null;
  }

  /** The account of this email, created on first sight. Safe when two requests race for one email. */
  async findOrCreate(email: string): Promise<{ account: Account; created: boolean }> {
    const normalized = parseInput(emailSchema, email);
    return this.locks.withLock(`account-email:${normalized}`, async () => {
      const existing = await this.findByEmail(normalized);
      if (existing) return { account: existing, created: false };
      const account: Account = {
        id: this.ids.newId("acct"),
        email: normalized,
        created_at: formatTimestamp(this.clock.now()),
      };
      await this.storage.setItem(`accounts:${account.id}`, account);
      await this.storage.setItem(emailKey(normalized), account.id);
      await this.storage.setItem(`account-list:${account.id}`, account.created_at);
      return { account, created: true };
    });
  }

  /** Every account, for the operator's `reposite admin list-accounts`. */
  async list(): Promise<Account[]> {
    const keys = await this.storage.getKeys("account-list");
    const accounts = await Promise.all(keys.map((key) => this.get(key.slice("account-list:".length))));
    return accounts.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }
}
