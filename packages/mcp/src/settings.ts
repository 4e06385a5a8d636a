import { createClient, LOCAL_SERVER_URL, type RepositeClient } from "@reposite/sdk";

/** Where the API is when REPOSITE_URL is not set: a server started with `reposite serve` on this machine (the SDK's). */
export const DEFAULT_URL = LOCAL_SERVER_URL;

/** What the tools work with: a client, or why there is none (said by every tool, so the agent can tell the person). */
export type Connection = { client: RepositeClient; baseURL: string } | { problem: string; baseURL: string };

/**
 * The connection from the environment. Missing or unusable settings do not stop the server: it
 * still starts and lists its tools, and each tool answers with what to do.
 */
export function connectionFromEnv(env: NodeJS.ProcessEnv = process.env): Connection {
  const baseURL = (env.REPOSITE_URL?.trim() || DEFAULT_URL).replace(/\/+$/, "");
  if (!URL.canParse(baseURL) || !/^https?:$/.test(new URL(baseURL).protocol)) {
    return { baseURL, problem: `REPOSITE_URL must be the Reposite server's http(s) address, for example https://reposite.example; it is "${baseURL}".` };
  }
  const token = env.REPOSITE_TOKEN?.trim();
  if (!token) return { baseURL, problem: missingToken(baseURL) };
  try {
    return { baseURL, client: createClient({ baseURL, token }) };
  } catch (error) {
    // The SDK refuses a token it cannot send, without quoting it.
    return { baseURL, problem: `REPOSITE_TOKEN cannot be used: ${(error as Error).message}` };
  }
}

function missingToken(baseURL: string): string {
  return [
    "This MCP server has no Reposite token, so it cannot act for anyone.",
    `Get one: sign in at ${baseURL}/account and create a token under Tokens.`,
    'Then put it in this server\'s entry of your MCP client config: "env": { "REPOSITE_TOKEN": "<token>", "REPOSITE_URL": "' + baseURL + '" }, and restart the client.',
  ].join(" ");
}
