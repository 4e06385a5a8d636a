import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { RepositeClient } from "@reposite/sdk";
import { z } from "zod";
import type { Connection } from "./settings.js";
import { failure, failureFrom } from "./tool-result.js";

/** What a tool's work gets besides its arguments. */
export interface ToolContext {
  client: RepositeClient;
  /** Aborts when the MCP client cancels the call; passed on to every API call. */
  signal: AbortSignal;
  /**
   * Tells the client how a long call is going (a page written, the deploy's stage). Sent only
   * when the client asked for progress (a `progressToken`); clients that reset their timeout on
   * progress then wait for a long generation or build.
   */
  progress(message: string): Promise<void>;
}

export interface ToolDefinition<Shape extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  inputSchema: Shape;
  annotations?: ToolAnnotations;
  run(args: z.infer<z.ZodObject<Shape>>, context: ToolContext): Promise<CallToolResult>;
}

/**
 * Registers a tool whose failures are answers, never crashes: without a usable token it says
 * how to get one; an API error becomes a tool error with its status and `code`.
 */
export function defineTool<Shape extends z.ZodRawShape>(server: McpServer, connection: Connection, tool: ToolDefinition<Shape>): void {
  server.registerTool(
    tool.name,
    { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, ...(tool.annotations ? { annotations: tool.annotations } : {}) },
    // The SDK's callback type is computed from the shape; the arguments it passes were parsed with it.
    (async (args: z.infer<z.ZodObject<Shape>>, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => {
      if (!("client" in connection)) return failure({ code: "no_token", message: connection.problem });
      const progressToken = extra._meta?.progressToken;
      let step = 0;
      const progress = async (message: string) => {
        if (progressToken === undefined) return;
        step += 1;
        await extra
          .sendNotification({ method: "notifications/progress", params: { progressToken, progress: step, message } })
          .catch(() => {});
      };
      try {
        return await tool.run(args, { client: connection.client, signal: extra.signal, progress });
      } catch (error) {
        return failureFrom(error);
      }
    }) as Parameters<McpServer["registerTool"]>[2],
  );
}
