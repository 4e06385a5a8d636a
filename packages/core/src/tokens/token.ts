import { TOKEN_SOURCES, type Token, type TokenSource } from "@reposite/contract";

/**
 * Who made a token: the person on the account page, an agent through agent login, or the
 * operator with `reposite admin create-token`.
 */
export { TOKEN_SOURCES, type TokenSource };

/** Lifetimes a person may choose; agent logins always get 90 days. */
export const TOKEN_LIFETIMES = ["30d", "90d", "1y", "never"] as const;
export type TokenLifetime = (typeof TOKEN_LIFETIMES)[number];

export const LIFETIME_DAYS: Record<TokenLifetime, number | null> = { "30d": 30, "90d": 90, "1y": 365, never: null };

/** At most this many working (not revoked, not expired) tokens per account. */
export const MAX_WORKING_TOKENS = 50;

/** What is stored. Never the secret: only its SHA-256 hash. */
export interface TokenRecord {
  id: string;
  account_id: string;
  name: string;
  source: TokenSource;
  /** Last characters of the secret, so a person can tell tokens apart. */
  hint: string;
  hash: string;
  created_at: string;
  /** `YYYY-MM-DD HH:MM:SS` UTC, or null for a token that never expires. */
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** What the API shows of a token: the contract's `Token`. */
export type TokenView = Token;

export const toTokenView = ({ id, name, hint, source, created_at, expires_at, last_used_at }: TokenRecord): TokenView => ({
  id,
  name,
  hint,
  source,
  created_at,
  expires_at,
  last_used_at,
});
