import type { RecordStorage } from "../ports/storage.js";
import type { ExpiringRecords } from "../util/expiring-records.js";
import type { HttpChallengeAnswers } from "./certificate-issuer.js";

/** A token the CA may ask for: URL-safe base64, as RFC 8555 §8.3 makes them. */
const TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

const recordKey = (token: string) => `acme-challenges:${token}`;
/** A record a crash left behind (its order never ended) goes after this; an order ends within minutes. */
const RECORD_LIFETIME_MS = 24 * 60 * 60 * 1000;

interface ChallengeRecord {
  key_authorization: string;
  placed_at: string;
}

/**
 * The answers to HTTP-01 challenges under way: the challenge route reads them on any host, before
 * host routing, so a custom domain's site never shadows them. Kept in memory and, given storage, as
 * records too: the CA's request may reach another replica than the one that placed the challenge
 * (edges and load balancers spread requests over all of them), which answers from the record.
 */
export class HttpChallenges implements HttpChallengeAnswers {
  private readonly answers = new Map<string, string>();

  constructor(
    private readonly storage?: RecordStorage,
    private readonly expiring?: Pick<ExpiringRecords, "write">,
  ) {}

  /** Resolves once the record is written: only then may the CA be told to look. */
  async put(token: string, keyAuthorization: string): Promise<void> {
    if (!TOKEN.test(token)) throw new Error(`the CA sent a challenge token that is not URL-safe base64: "${token}"`);
    this.answers.set(token, keyAuthorization);
    const record: ChallengeRecord = { key_authorization: keyAuthorization, placed_at: new Date().toISOString() };
    if (this.expiring) await this.expiring.write(recordKey(token), record, Date.now() + RECORD_LIFETIME_MS);
    else await this.storage?.setItem(recordKey(token), record);
  }

  async remove(token: string): Promise<void> {
    this.answers.delete(token);
    if (TOKEN.test(token)) await this.storage?.removeItem(recordKey(token));
  }

  /** The key authorization to answer for `token` placed by this process, or undefined. */
  answer(token: string): string | undefined {
    return this.answers.get(token);
  }

  /** The key authorization for `token`, placed by this process or (from the records) by another replica; undefined: the route answers 404. */
  async find(token: string): Promise<string | undefined> {
    const own = this.answers.get(token);
    if (own !== undefined || !this.storage || !TOKEN.test(token)) return own;
    return (await this.storage.getItem<ChallengeRecord>(recordKey(token)))?.key_authorization;
  }
}
