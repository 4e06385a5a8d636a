import { ofetch, type FetchError } from "ofetch";
import { z } from "zod";
import { RepositeError } from "../errors.js";
import { REPO_GRANT_GONE, type RepoHostAuthorizer } from "../ports/repo-host-auth.js";

export interface GitHubOAuthOptions {
  /** The OAuth app's client id (REPOSITE_GITHUB_CLIENT_ID). */
  clientId: string;
  /** The OAuth app's client secret (REPOSITE_GITHUB_CLIENT_SECRET). */
  clientSecret: string;
  /** Where people authorize. Default `https://github.com`; for GitHub Enterprise Server its web address. */
  webUrl?: string;
  /** GitHub's REST API, used to revoke grants. Default `https://api.github.com`; GHE: `https://<host>/api/v3`. */
  apiUrl?: string;
  /** Scopes asked for. Default `repo`: reading private repositories needs it (GitHub has no read-only variant). */
  scope?: string;
  /** The `fetch` to use; tests and embedders pass their own. Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Sent as User-Agent, which GitHub's API requires. Default `reposite`. */
  userAgent?: string;
}

/** The answer of `POST /login/oauth/access_token`: a token, or (with status 200) an `error`. */
const tokenAnswerSchema = z.union([
  z.object({ access_token: z.string().min(1), scope: z.string().default(""), token_type: z.string().optional() }),
  z.object({ error: z.string(), error_description: z.string().optional() }),
]);

/**
 * GitHub's OAuth web flow for an OAuth app: authorize at `/login/oauth/authorize`, exchange the
 * code at `/login/oauth/access_token`, revoke with `DELETE /applications/{client_id}/grant`.
 */
export function createGitHubOAuth(options: GitHubOAuthOptions): RepoHostAuthorizer {
  const webUrl = (options.webUrl ?? "https://github.com").replace(/\/+$/, "");
  const apiUrl = (options.apiUrl ?? "https://api.github.com").replace(/\/+$/, "");
  const http = ofetch.create(
    {
      headers: { "User-Agent": options.userAgent ?? "reposite" },
      // A code works once, and revoking twice is harmless but pointless: never retried.
      retry: 0,
      timeout: 15_000,
    },
    options.fetch ? { fetch: options.fetch } : {},
  );

  return {
    hostId: "github",

    authorizationUrl(state, redirectUri) {
      const query = new URLSearchParams({
        client_id: options.clientId,
        redirect_uri: redirectUri,
        scope: options.scope ?? "repo",
        state,
        allow_signup: "true",
      });
      return `${webUrl}/login/oauth/authorize?${query}`;
    },

    async exchangeCode(code, redirectUri) {
      let answer: unknown;
      try {
        answer = await http(`${webUrl}/login/oauth/access_token`, {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({
            client_id: options.clientId,
            client_secret: options.clientSecret,
            code,
            redirect_uri: redirectUri,
          }),
        });
      } catch (error) {
        throw failure(error, "exchange the authorization code");
      }
      const parsed = tokenAnswerSchema.safeParse(answer);
      if (!parsed.success) throw unavailable("GitHub answered the token exchange with something Reposite does not understand.");
      if ("error" in parsed.data) {
        const { error, error_description } = parsed.data;
        const detail = `${error}${error_description ? `: ${error_description}` : ""}`.slice(0, 300);
        if (error === "bad_verification_code") {
          throw new RepositeError(400, `GitHub did not accept the authorization (${detail}). Start connecting again.`, "repohost_code_invalid");
        }
        // incorrect_client_credentials, redirect_uri_mismatch, …: the operator's OAuth app setup.
        throw new RepositeError(502, `GitHub refused the token exchange (${detail}).`, "repohost_auth_failed");
      }
      return { accessToken: parsed.data.access_token, scope: parsed.data.scope };
    },

    async revoke(accessToken) {
      const basic = Buffer.from(`${options.clientId}:${options.clientSecret}`).toString("base64");
      try {
        await http.raw(`${apiUrl}/applications/${encodeURIComponent(options.clientId)}/grant`, {
          method: "DELETE",
          headers: {
            Accept: "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            Authorization: `Basic ${basic}`,
          },
          body: { access_token: accessToken },
        });
      } catch (error) {
        const response = (error as Partial<FetchError>).response;
        const status = response?.status;
        if (status === 429 || (status === 403 && response?.headers.get("x-ratelimit-remaining") === "0")) {
          throw unavailable("GitHub's API rate limit is exhausted, so the authorization could not be revoked now. Try again later.");
        }
        // GitHub answers 404 for a token it does not know (revoked, or the person removed the app)
        // and 422 for one it cannot use; either way there is no grant left to revoke.
        if (status === 404 || status === 422) {
          throw new RepositeError(502, "GitHub no longer knows this access token; the grant is gone already.", REPO_GRANT_GONE);
        }
        if (status === 401 || status === 403) {
          throw new RepositeError(
            502,
            "GitHub refused the OAuth app's credentials when revoking (check REPOSITE_GITHUB_CLIENT_ID/SECRET).",
            "repohost_auth_failed",
          );
        }
        throw failure(error, "revoke the authorization");
      }
    },
  };
}

function unavailable(message: string): RepositeError {
  return new RepositeError(502, message, "repohost_unavailable");
}

/** A failure to reach GitHub or an unexpected status; never repeats request bodies (they hold secrets). */
function failure(error: unknown, what: string): RepositeError {
  if (RepositeError.isInstance(error)) return error;
  const status = (error as Partial<FetchError>).response?.status;
  if (status !== undefined) return unavailable(`GitHub answered ${status} when Reposite tried to ${what}.`);
  let reason = "network error";
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    reason = typeof code === "string" ? code : reason;
  }
  return unavailable(`GitHub could not be reached to ${what} (${reason}).`);
}
