import type { InjectionToken } from "tsyringe";

/** What the code host gave for a person's authorization. */
export interface RepoHostGrant {
  accessToken: string;
  /** Scopes granted, as the host wrote them (GitHub: comma-separated, for example `repo`). */
  scope: string;
}

/**
 * The code host's authorization flow (OAuth web flow), a capability some repo hosts have: a
 * person authorizes Reposite once and their private repositories become visible to it.
 *
 * Implementations throw `RepositeError`: `400 repohost_code_invalid` when a code is wrong, used or
 * expired; `REPO_GRANT_GONE` from `revoke` when the host says the token no longer works (the grant
 * is gone already); `502` for every other failure. Messages never carry tokens, codes or secrets.
 */
export interface RepoHostAuthorizer {
  /** The `id` of the repo host whose repositories a grant opens, for example `github`. */
  readonly hostId: string;
  /** The host's page where the person authorizes; it sends the browser back to `redirectUri` with `code` and `state`. */
  authorizationUrl(state: string, redirectUri: string): string;
  /** Trades the code from the redirect for an access token; `redirectUri` must be the one the flow started with. */
  exchangeCode(code: string, redirectUri: string): Promise<RepoHostGrant>;
  /** Revokes the whole grant at the host, so the token (and any other of the same grant) stops working. */
  revoke(accessToken: string): Promise<void>;
}

/** The `code` of the error `revoke` throws when the host no longer knows the token. */
export const REPO_GRANT_GONE = "repohost_grant_gone";

/** Every configured authorizer, at most one per repo host; empty when no OAuth app is configured. */
export const REPO_HOST_AUTHORIZERS: InjectionToken<RepoHostAuthorizer[]> = Symbol.for("reposite.RepoHostAuthorizers");
