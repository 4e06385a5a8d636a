import type { LoginRequest } from "@reposite/contract";

/** The letters of a read-back code: no vowels (no words), no look-alikes (RFC 8628, 6.1). */
export const CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
export const CODE_LENGTH = 8;
/** A login request lives 15 minutes and allows 5 wrong codes. */
export const LOGIN_REQUEST_TTL_SECONDS = 900;
export const MAX_WRONG_CODES = 5;
/** A request is removed from storage an hour after it expired; until then its page says "expired". */
export const LOGIN_REQUEST_KEPT_MS = 3_600_000;
/** Agent tokens live 90 days. */
export const AGENT_TOKEN_LIFETIME = "90d";
/** Logins started from one address per hour. */
export const LOGINS_PER_ADDRESS_PER_HOUR = 10;

export type LoginRequestStatus =
  /** Waiting for the person to open the link and continue. */
  | "pending"
  /** The person continued and sees the code. */
  | "approved"
  /** The agent exchanged the code for a token. */
  | "used"
  /** The person pressed "I did not ask for this". */
  | "denied"
  /** Too many wrong codes. */
  | "locked";

export interface LoginRequestRecord {
  id: string;
  /** The id in the person's link; separate from `id`, which only the agent holds. */
  verification_id: string;
  client: string;
  email: string | null;
  code: string;
  status: LoginRequestStatus;
  created_at: number;
  expires_at: number;
  wrong_codes: number;
  /** The account that continued on the page. */
  account_id: string | null;
  /** Set when someone opened the link signed in as another account than `email`. */
  wrong_account_email: string | null;
  token_id: string | null;
}

/** What `POST /agent/login` answers: the contract's `LoginRequest`. */
export type LoginRequestView = LoginRequest;

/** What the person's page shows. */
export interface LoginRequestPage {
  client: string;
  email: string | null;
  status: LoginRequestStatus | "expired";
  /** Shown once the person continued, formatted `ABCD-EFGH`. */
  code: string | null;
  /** The request named another email than the signed-in account's. */
  wrong_account: boolean;
}

/** Case and the dash do not matter when a code is sent back. */
export const normalizeCode = (code: string) => code.replace(/[\s-]/g, "").toUpperCase();
export const formatCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;
