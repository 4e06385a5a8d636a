export type { MemberView, MemberCredentials, SiteSession } from "./member.js";
export { memberDisplayName } from "./member.js";
export { hashPassword, verifyPassword, needsRehash, DEFAULT_SCRYPT_PARAMS, type ScryptParams } from "./password.js";
export {
  MembersService,
  MEMBER_SESSION_TTL_MS,
  MEMBER_PASSWORD_MIN,
  MEMBER_PASSWORD_MAX,
  MEMBER_SIGN_INS_PER_EMAIL,
  MEMBER_SIGN_INS_PER_ADDRESS,
  MEMBER_SIGN_UPS_PER_ADDRESS,
  type MemberRequestContext,
} from "./members-service.js";
export { authRedirectRefusal } from "./auth-redirect-rule.js";
export { MEMBER_SESSIONS_CHANNEL, type MemberSessionsEnded } from "./member-events.js";
export {
  MemberSessionCache,
  MEMBER_SESSION_CACHE_SETTINGS,
  DEFAULT_MEMBER_SESSION_CACHE_SETTINGS,
  type MemberSessionCacheSettings,
  type CachedMemberSession,
} from "./member-session-cache.js";
