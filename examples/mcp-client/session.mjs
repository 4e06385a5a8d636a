// An MCP client session, as an AI app (Claude Desktop, Cursor, an agent framework) runs one: it
// starts the Reposite MCP server over stdio, lists its tools, and calls them to take a repository
// to a published site. Run: REPOSITE_URL=… REPOSITE_TOKEN=… node session.mjs <repository link>
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const repository = process.argv[2] ?? "https://github.com/unjs/h3";

// The server is the `reposite-mcp` bin of @reposite/mcp; an MCP client config says
// `"command": "npx", "args": ["-y", "@reposite/mcp"]` instead.
const bin = fileURLToPath(new URL("../bin/reposite-mcp.mjs", import.meta.resolve("@reposite/mcp")));
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [bin],
  // MCP clients pass only a few safe variables on; the server's settings are given explicitly.
  env: {
    ...getDefaultEnvironment(),
    ...(process.env.REPOSITE_URL ? { REPOSITE_URL: process.env.REPOSITE_URL } : {}),
    ...(process.env.REPOSITE_TOKEN ? { REPOSITE_TOKEN: process.env.REPOSITE_TOKEN } : {}),
  },
});
const client = new Client({ name: "reposite-example", version: "1.0.0" });
await client.connect(transport);

/** Calls a tool; a tool error ends the session with its message (it carries the API's code). */
async function call(name, args) {
  console.log(`→ ${name} ${JSON.stringify(args)}`);
  // Writing pages and building apps take minutes: the server reports progress, and each report
  // restarts the client's request timeout (60 s by default).
  const result = await client.callTool({ name, arguments: args }, undefined, {
    onprogress: ({ message }) => message && console.log(`  … ${message}`),
    resetTimeoutOnProgress: true,
  });
  if (result.isError) {
    console.error(`✗ ${result.content.map((part) => part.text).join("\n")}`);
    await client.close();
    process.exit(1);
  }
  return result.structuredContent;
}

try {
  const { tools } = await client.listTools();
  console.log(`Tools: ${tools.map((tool) => tool.name).join(", ")}`);

  const { project } = await call("create_project", { repository });
  console.log(`Project ${project.name}: ${project.id}`);
  const { pages } = await call("generate_site", { site_id: project.id, mode: "website", pages: ["about"] });
  console.log(`Pages written: ${pages.map((page) => page.kind).join(", ")}`);
  const { url } = await call("publish_site", { site_id: project.id });
  console.log(`Published: ${url}`);
} finally {
  await client.close();
}
