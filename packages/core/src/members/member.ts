import type { Member } from "@reposite/contract";

/** A person who registered on a published site. Members belong to the site (its `site_id`), not to its address. */
export interface MemberRecord {
  /** `member_…`; the app receives it as `X-Reposite-Member-Id`, Discourse as `external_id`. */
  id: string;
  site_id: string;
  /** Lower case, trimmed; unique per site. */
  email: string;
  /** `scrypt$N$r$p$salt$hash` (see password.ts). Never leaves the service. */
  password_hash: string;
  created_at: string;
  /** When the member last got a session (signing up counts); null until then. */
  last_sign_in_at: string | null;
}

/** A member as anyone outside the service sees them (no password hash): the contract's `Member`. */
export type MemberView = Member;

/** What a member sends to register or sign in. */
export interface MemberCredentials {
  email: string;
  password: string;
}

/** A signed-in browser on one site. The cookie holds a random secret; storage only its hash. */
export interface SiteSession {
  site_id: string;
  member_id: string;
  /** Goes into every form of the member's pages (forum posts, sign-out); a post without it is refused. */
  csrf: string;
  expires_at: number;
}

export function toMemberView(record: MemberRecord): MemberView {
  return {
    id: record.id,
    site_id: record.site_id,
    email: record.email,
    created_at: record.created_at,
    last_sign_in_at: record.last_sign_in_at,
  };
}

/**
 * The name a member is shown by on the site's pages: the part of the email before the `@`.
 * The whole address is never shown to other visitors.
 */
export function memberDisplayName(email: string): string {
  const local = email.split("@")[0] ?? "";
  return (local || "member").slice(0, 64);
}
