/**
 * Event channel on which `MembersService` says that member sessions ended: one session
 * (`{ session }`, the SHA-256 of its secret, never the secret) on sign-out or when a sign-in
 * replaces it, or every session of a site (`{ site_id }`) when its members are removed.
 * `MemberSessionCache` listens, so a sign-out holds at once on every replica sharing the events port.
 */
export const MEMBER_SESSIONS_CHANNEL = "members:sessions-ended";
export type MemberSessionsEnded = { session: string } | { site_id: string };
