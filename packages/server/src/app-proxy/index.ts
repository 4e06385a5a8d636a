export { createAppProxy, type AppProxy, type AppProxyOptions } from "./app-proxy.js";
export { listenForUpgrades } from "./upgrades.js";
export { appRequestHeaders, appPath, isAppUrl, withoutRepositeCookies, MEMBER_ID_HEADER, MEMBER_EMAIL_HEADER, RESERVED_HEADER_PREFIX, APP_PREFIX, type AppVisitor } from "./request-headers.js";
export { appResponseHeaders, appSetCookie } from "./response-headers.js";
export { isRepositeCookie } from "./reposite-cookies.js";
export type { AppTargetsOptions } from "./app-targets.js";
