export { createMcpServer, runStdioServer, SERVER_NAME, SERVER_VERSION } from "./server.js";
export { connectionFromEnv, DEFAULT_URL, type Connection } from "./settings.js";
export type { ToolError } from "./tool-result.js";
export { TOOL_FOR_OPERATION, type ToolCoverage } from "./operation-coverage.js";
