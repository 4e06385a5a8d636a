export { createSiteDynamicHandler, isDynamicSitePath, type SiteDynamicHandler, type SiteDynamicOptions } from "./site-dynamic.js";
export {
  appRequestHeaders,
  appPath,
  MEMBER_ID_HEADER,
  MEMBER_EMAIL_HEADER,
  RESERVED_HEADER_PREFIX,
  type AppForwarder,
  type AppRequest,
} from "./app-gate.js";
export { MEMBER_COOKIE, memberCookieName } from "./member-session.js";
export { discourseFromEnv } from "./discourse-env.js";
