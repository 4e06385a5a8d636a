import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { APIConnectionError, APIUserAbortError, RepositeAPIError, RepositeSDKError } from "@reposite/sdk";

/**
 * The `code` for statuses the API answers without one (a 404 for a project that is not the
 * caller's says only "Project not found."), so an agent can always branch on `code`.
 */
const CODE_BY_STATUS: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  402: "payment_required",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  410: "gone",
  422: "invalid_request",
  429: "rate_limited",
  503: "unavailable",
};

/** What a failed tool call carries in `structuredContent.error`. */
export interface ToolError {
  /** The API's `code`; for an answer without one, the status's name (`not_found`). `no_token`, `unreachable` … when the API was not reached. */
  code: string;
  /** The HTTP status, when the API answered. */
  status?: number;
  message: string;
  /** Other fields of the API's error body (`field`, `attempts_left`, `retry_after`, …). */
  details?: Record<string, unknown>;
}

/**
 * A successful answer: a sentence for the person, then the data as JSON (many clients show the
 * model only the text), and the same data as `structuredContent` for programs.
 */
export function success(summary: string, data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: `${summary}\n\n${JSON.stringify(data, null, 2)}` }], structuredContent: data };
}

/** A tool error (`isError: true`): the model sees it and can correct course; the server keeps running. */
export function failure(error: ToolError): CallToolResult {
  const head = error.status ? `Reposite answered ${error.status} ${error.code}` : `Reposite error ${error.code}`;
  return {
    content: [{ type: "text", text: `${head}: ${error.message}` }],
    structuredContent: { error: { ...error } },
    isError: true,
  };
}

/** Any thrown value as a tool error; an API error keeps its status, `code` and body. */
export function failureFrom(thrown: unknown): CallToolResult {
  if (RepositeAPIError.isInstance(thrown)) {
    const { error: _message, code: _code, ...details } = thrown.body ?? {};
    return failure({
      code: thrown.code ?? CODE_BY_STATUS[thrown.status] ?? (thrown.status >= 500 ? "server_error" : `http_${thrown.status}`),
      status: thrown.status,
      message: thrown.message,
      ...(Object.keys(details).length > 0 ? { details } : {}),
    });
  }
  if (APIUserAbortError.isInstance(thrown)) return failure({ code: "cancelled", message: "The call was cancelled." });
  if (APIConnectionError.isInstance(thrown)) return failure({ code: "unreachable", message: thrown.message });
  if (RepositeSDKError.isInstance(thrown)) return failure({ code: "invalid_input", message: thrown.message });
  // A bug of this server: said, not crashed on.
  console.error("[reposite-mcp] unexpected error:", thrown);
  return failure({ code: "internal", message: thrown instanceof Error ? thrown.message : String(thrown) });
}
