export { createApp } from "./app.js";
export { startServer, type RunningServer } from "./start-server.js";
export { settingsFromEnv, type ServerSettings, type ListenSettings } from "./config-from-env.js";
export { runCli, type CliIo } from "./cli.js";
