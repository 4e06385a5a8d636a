export { createSiteDynamicHandler, isDynamicSitePath, type SiteDynamicHandler, type SiteDynamicOptions } from "./site-dynamic.js";
export { MEMBER_COOKIE, memberCookieName } from "./member-session.js";
export { discourseFromEnv } from "./discourse-env.js";
