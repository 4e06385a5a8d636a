import { createClient, LOCAL_SERVER_URL, type ProjectDetailView, type RepositeClient } from "@reposite/sdk";
import { configPath, readConfig } from "./config-file.js";
import { CliError, EXIT, UsageError } from "./exit-codes.js";

/** The server when nothing names one: a `reposite serve` on this machine (the SDK's, as the MCP server's). */
export const DEFAULT_SERVER = LOCAL_SERVER_URL;

/**
 * The server a command talks to: `--server`, else `REPOSITE_URL`, else the one logged in to, else
 * `DEFAULT_SERVER`.
 */
export async function serverAddress(option: string | undefined): Promise<string> {
  return (await namedServer(option)) ?? (await readConfig()).login?.server ?? DEFAULT_SERVER;
}

/** The server `--server` or `REPOSITE_URL` names, if either does. */
export async function namedServer(option: string | undefined): Promise<string | undefined> {
  const given = option?.trim() || process.env.REPOSITE_URL?.trim();
  return given ? normaliseServer(given) : undefined;
}

export function normaliseServer(address: string): string {
  const url = URL.canParse(address) ? new URL(address) : undefined;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password) {
    throw new UsageError(`The server address must be an http(s) URL, for example https://reposite.example (got ${JSON.stringify(address)}).`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * The token for `server`: `REPOSITE_TOKEN` wins; else the stored login, but only when it was made
 * on this same server (a token is never sent to another one).
 */
export async function tokenFor(server: string): Promise<{ token: string; source: "env" | "config" } | undefined> {
  const fromEnv = process.env.REPOSITE_TOKEN?.trim();
  if (fromEnv) return { token: fromEnv, source: "env" };
  const login = (await readConfig()).login;
  if (login?.token && login.server === server) return { token: login.token, source: "config" };
  return undefined;
}

/** A client that acts as the logged-in person; exit 3 when there is no token. */
export async function connect(serverOption: string | undefined): Promise<{ client: RepositeClient; server: string }> {
  const server = await serverAddress(serverOption);
  const found = await tokenFor(server);
  if (!found) {
    throw new CliError(
      `Not logged in to ${server}. Run reposite login${server === DEFAULT_SERVER ? "" : ` --server ${server}`}, or set REPOSITE_TOKEN (config: ${configPath()}).`,
      EXIT.notLoggedIn,
      "not_logged_in",
    );
  }
  return { client: createClient({ baseURL: server, token: found.token }), server };
}

/**
 * The site a command names: its id (`site_…`) or its slug. Exit 4 when the caller has none such.
 */
export async function findSite(client: RepositeClient, reference: string): Promise<ProjectDetailView> {
  if (reference.startsWith("site_")) return client.sites.get(reference);
  const match = (await client.sites.list()).find((site) => site.slug === reference);
  if (!match) throw new CliError(`No site of yours has the id or slug ${JSON.stringify(reference)} (see reposite sites list).`, EXIT.notFound, "not_found", 404);
  return client.sites.get(match.id);
}
