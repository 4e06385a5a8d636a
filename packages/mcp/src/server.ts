import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { connectionFromEnv, type Connection } from "./settings.js";
import { registerGenerationTools } from "./tools/generation.js";
import { registerHostingTools } from "./tools/hosting.js";
import { registerProjectTools } from "./tools/projects.js";
import { registerPublishingTools } from "./tools/publishing.js";
import { registerStatusTools } from "./tools/status.js";

export const SERVER_NAME = "reposite";
export const SERVER_VERSION = "0.1.0";

const INSTRUCTIONS =
  "Reposite turns a code repository into a product website and a running hosted app. " +
  "Usual order: create_project (repository link) -> generate_site (a plan: mode and pages) -> publish_site; " +
  "for the running app: set_env and deploy_app, then get_status, read_logs and read_diagnosis. " +
  "Every tool takes the project's site_id. Errors carry the API's `code` in structuredContent.error.";

/** The MCP server with every Reposite tool, not yet connected to a transport. */
export function createMcpServer(connection: Connection = connectionFromEnv()): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION }, { instructions: INSTRUCTIONS });
  registerProjectTools(server, connection);
  registerGenerationTools(server, connection);
  registerPublishingTools(server, connection);
  registerHostingTools(server, connection);
  registerStatusTools(server, connection);
  return server;
}

/** Serves MCP on stdin/stdout until the client closes them (what the `reposite-mcp` bin runs). */
export async function runStdioServer(connection: Connection = connectionFromEnv()): Promise<void> {
  const server = createMcpServer(connection);
  await server.connect(new StdioServerTransport());
  // Logs go to stderr: stdout carries the protocol.
  console.error(`[reposite-mcp] serving ${connection.baseURL}${"client" in connection ? "" : " (no usable token: tools will say how to get one)"}`);
}
