export { createApp } from "./app.js";
export { startServer, type RunningServer } from "./start-server.js";
export { settingsFromEnv, type ServerSettings, type ListenSettings } from "./config-from-env.js";
export { runCli, type CliIo } from "./cli.js";
export { siteRuntime, siteNodeHandler, type SiteRuntimeOptions, type DynamicSiteHandler, type NodeListener } from "./site-runtime/site-runtime.js";
export { createHostRouter, hostnameOf, type HostResolver, type HostRouter, type HostRouterOptions } from "./site-runtime/host-router.js";
export { createSiteDynamicHandler, type SiteDynamicOptions } from "./site-runtime/dynamic/index.js";
export { createAppProxy, listenForUpgrades, appRequestHeaders, MEMBER_ID_HEADER, MEMBER_EMAIL_HEADER, type AppProxy, type AppProxyOptions } from "./app-proxy/index.js";
