import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CreateRepositeOptions } from "@reposite/core";
import { startServer, type RunningServer } from "@reposite/server";
import { startFakeGitHub, type FakeGitHub, type FakeRepo } from "@reposite/test-support";

/** The built bin, as an MCP client config would start it (`npm run build` first). */
export const MCP_BIN = fileURLToPath(new URL("../bin/reposite-mcp.mjs", import.meta.url));

/** A real Reposite server on a loopback socket, with a fake GitHub behind it, and MCP sessions against it. */
export interface RepositeUnderTest {
  server: RunningServer;
  github: FakeGitHub;
  /** A working token of a new account. */
  tokenFor(email: string): Promise<string>;
  /** An MCP client session with the bin spawned over stdio, given exactly this environment. */
  connect(env: Record<string, string>): Promise<McpSession>;
  close(): Promise<void>;
}

export interface McpSession {
  client: Client;
  /** Calls a tool; the answer as the client got it. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export async function startRepositeUnderTest(
  repos: FakeRepo[],
  extra: Omit<CreateRepositeOptions, "config" | "github"> = {},
): Promise<RepositeUnderTest> {
  const github = await startFakeGitHub({ repos });
  const dataDir = await mkdtemp(join(tmpdir(), "reposite-mcp-"));
  const server = await startServer({
    settings: {
      listen: { port: 0, hostname: "127.0.0.1" },
      reposite: {
        ...extra,
        config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" },
        github: { apiUrl: github.url, webHosts: ["github.com"] },
      },
    },
  });
  const sessions = new Set<McpSession>();
  return {
    server,
    github,
    async tokenFor(email) {
      const { account } = await server.reposite.accounts.findOrCreate(email);
      return (await server.reposite.tokens.create(account.id, { name: "mcp", lifetime: "30d" })).secret;
    },
    async connect(env) {
      const session = await connectMcp(env);
      sessions.add(session);
      return session;
    },
    async close() {
      for (const session of sessions) await session.close();
      await server.close();
      await github.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Spawns the bin with only PATH and `env` (the SDK's client passes no other variables unless told). */
async function connectMcp(env: Record<string, string>): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_BIN],
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "reposite-mcp-test", version: "0.0.0" });
  await client.connect(transport);
  return {
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** The text of a tool answer. */
export const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
