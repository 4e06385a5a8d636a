#!/usr/bin/env node
// The MCP server on stdio: an MCP client (Claude Desktop, Cursor, an agent) starts it and talks
// JSON-RPC over stdin/stdout. REPOSITE_URL and REPOSITE_TOKEN come from the client's config.
import { runStdioServer } from "../dist/index.js";

await runStdioServer();
