import { inject, injectable } from "tsyringe";
import { repoConnectSchema } from "@reposite/contract";
import { CONFIG, type RepositeConfig } from "../config.js";
import { RepositeError } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import type { RepoAccess } from "../ports/repo-host.js";
import { REPO_GRANT_GONE, REPO_HOST_AUTHORIZERS, type RepoHostAuthorizer } from "../ports/repo-host-auth.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { RepositoriesService, type ResolvedRepository } from "../repositories/repositories-service.js";
import { newSecret, sha256 } from "../util/secrets.js";
import { SecretBox } from "../util/secret-box.js";
import { parseInput } from "../util/validation.js";

/** A started authorization must come back within 10 minutes. */
export const REPO_AUTH_STATE_TTL_MS = 10 * 60_000;
/** Authorizations an account may have started and not finished; older ones stop working. */
const OPEN_STATES_PER_ACCOUNT = 5;
/** Where the code host sends the browser back, under the service's `baseUrl`. */
export const REPO_AUTH_CALLBACK_PATH = "/app/repohost/callback";

/** A started authorization, stored under the hash of its `state`. */
interface AuthStateRecord {
  account_id: string;
  host: string;
  redirect_uri: string;
  /** The repository the person connects for, to name on the page they land on. */
  repo: string;
  expires_at: number;
}

/** A person's grant at a code host; the token is sealed with the server's key. */
interface GrantRecord {
  host: string;
  sealed_token: string;
  scope: string;
  connected_at: number;
}

const stateKey = (state: string) => `repo-auth-states:${sha256(state)}`;
const openStatesKey = (accountId: string) => `repo-auth-states-of:${accountId}`;
const grantKey = (accountId: string, host: string) => `repo-grants:${accountId}:${host}`;

/**
 * Connecting an account to a code host (OAuth), so its private repositories become visible to
 * Reposite: start and finish the authorization, tell and forget the grant, and look repositories
 * up with it. Grants are stored encrypted; states only by hash.
 */
@injectable()
export class RepoAccessService {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(CONFIG) private readonly config: RepositeConfig,
    @inject(RepositoriesService) private readonly repositories: RepositoriesService,
    @inject(REPO_HOST_AUTHORIZERS) private readonly authorizers: RepoHostAuthorizer[],
    @inject(SecretBox) private readonly secrets: SecretBox,
  ) {}

  /**
   * Starts an authorization for the host of `repo`: the answer's `url` is the host's page where
   * the person authorizes; it sends them back to the callback with a one-time `state`.
   */
  async connect(accountId: string, input: unknown): Promise<{ url: string }> {
    const { repo } = parseInput(repoConnectSchema, input);
    const { host, link } = this.repositories.parseLink(repo);
    const authorizer = this.authorizerFor(host.id);
    const state = newSecret();
    const record: AuthStateRecord = {
      account_id: accountId,
      host: host.id,
      redirect_uri: `${this.config.baseUrl}${REPO_AUTH_CALLBACK_PATH}`,
      repo: link.url,
      expires_at: this.clock.now().getTime() + REPO_AUTH_STATE_TTL_MS,
    };
    await this.storage.setItem(stateKey(state), record);
    await this.rememberOpenState(accountId, stateKey(state));
    return { url: authorizer.authorizationUrl(state, record.redirect_uri) };
  }

  /**
   * Finishes an authorization with what the host sent back. The state works once and for 10
   * minutes. `signedInAccountId`, the account of the browser session the callback arrived in
   * (if any), must be the one that started it: otherwise someone could send their own link to
   * another person and receive that person's repositories.
   */
  async finish(state: string, code: string, signedInAccountId?: string): Promise<{ accountId: string; host: string; repo: string }> {
    const record = await this.takeState(state);
    if (signedInAccountId !== undefined && signedInAccountId !== record.account_id) {
      throw new RepositeError(
        409,
        "This authorization was started by another Reposite account than the one signed in in this browser. Nothing was connected.",
        "wrong_account",
      );
    }
    if (!code) throw new RepositeError(400, "The code host sent no authorization code back. Start connecting again.", "repohost_code_invalid");
    const authorizer = this.authorizerFor(record.host);
    const grant = await authorizer.exchangeCode(code, record.redirect_uri);
    const key = grantKey(record.account_id, record.host);
    const stored: GrantRecord = {
      host: record.host,
      sealed_token: await this.secrets.seal(grant.accessToken, key),
      scope: grant.scope,
      connected_at: this.clock.now().getTime(),
    };
    await this.storage.setItem(key, stored);
    return { accountId: record.account_id, host: record.host, repo: record.repo };
  }

  /** The person declined at the host (or the flow failed there): the state stops working. */
  async abandon(state: string): Promise<void> {
    await this.takeState(state).catch(() => undefined);
  }

  /** Whether the account has connected a code host. */
  async status(accountId: string): Promise<{ connected: boolean }> {
    for (const authorizer of this.authorizers) {
      if (await this.storage.hasItem(grantKey(accountId, authorizer.hostId))) return { connected: true };
    }
    return { connected: false };
  }

  /**
   * Revokes the account's grants at the code hosts, then forgets them. A grant the host no
   * longer knows (revoked there already) is forgotten too; when revoking fails otherwise the
   * grant is kept and the call fails with 502, so it can be tried again.
   */
  async disconnect(accountId: string): Promise<void> {
    for (const authorizer of this.authorizers) {
      const key = grantKey(accountId, authorizer.hostId);
      await this.locks.withLock(key, async () => {
        const grant = await this.storage.getItem<GrantRecord>(key);
        if (!grant) return;
        // A grant sealed with another key can never be used or revoked from here; forget it.
        const token = await this.secrets.open(grant.sealed_token, key).catch(() => undefined);
        if (token !== undefined) {
          try {
            await authorizer.revoke(token);
          } catch (error) {
            if (!(RepositeError.isInstance(error) && error.code === REPO_GRANT_GONE)) {
              throw RepositeError.isInstance(error) && error.status === 502
                ? error
                : new RepositeError(502, "The code host could not revoke the access; nothing was forgotten. Try again.", "repohost_unavailable");
            }
          }
        }
        await this.storage.removeItem(key);
      });
    }
  }

  /** The account's access to `host`, or undefined when it has not connected it. */
  async accessFor(accountId: string, host: string): Promise<RepoAccess | undefined> {
    const key = grantKey(accountId, host);
    const grant = await this.storage.getItem<GrantRecord>(key);
    if (!grant) return undefined;
    try {
      return { accessToken: await this.secrets.open(grant.sealed_token, key) };
    } catch {
      throw new RepositeError(
        500,
        "The stored code-host access cannot be opened with this server's secret key (did REPOSITE_SECRET_KEY change?). Disconnect (DELETE /app/repohost) and connect again.",
        "secret_key_mismatch",
      );
    }
  }

  /** Whether the linked repository exists and is private, as the account sees it. */
  async check(accountId: string, url: string): Promise<{ exists: boolean; private: boolean }> {
    if (typeof url !== "string" || url.trim() === "") {
      throw new RepositeError(422, "url (a link to the repository) is required.", "invalid_request", { field: "url" });
    }
    const { host, link } = this.repositories.parseLink(url);
    const facts = await this.withAccess(accountId, host.id, (access) => host.getRepository(link, access));
    return { exists: facts !== null, private: facts?.private ?? false };
  }

  /** Like `RepositoriesService.resolve`, seeing what the account's grant lets it see. */
  async resolve(accountId: string, url: string): Promise<ResolvedRepository> {
    const { host } = this.repositories.parseLink(url);
    return this.withAccess(accountId, host.id, (access) => this.repositories.resolve(url, access));
  }

  /** The source at `ref` (default branch when omitted) as a gzipped tarball, with the account's access. */
  async sourceArchive(accountId: string, url: string, ref?: string): Promise<ReadableStream<Uint8Array>> {
    const { host, link } = this.repositories.parseLink(url);
    return this.withAccess(accountId, host.id, (access) => host.getSourceArchive(link, ref, access));
  }

  /**
   * Runs `work` with the account's access. When the host rejects the token (the person revoked
   * Reposite at the host), the grant is forgotten and `work` runs once more without it.
   */
  private async withAccess<T>(accountId: string, host: string, work: (access?: RepoAccess) => Promise<T>): Promise<T> {
    const access = await this.accessFor(accountId, host);
    if (!access) return work(undefined);
    try {
      return await work(access);
    } catch (error) {
      if (!(RepositeError.isInstance(error) && error.code === "repohost_unauthorized")) throw error;
      await this.storage.removeItem(grantKey(accountId, host));
      return work(undefined);
    }
  }

  private authorizerFor(hostId: string): RepoHostAuthorizer {
    const authorizer = this.authorizers.find((candidate) => candidate.hostId === hostId);
    if (authorizer) return authorizer;
    const message =
      hostId === "github"
        ? "This server has no OAuth app configured for GitHub (REPOSITE_GITHUB_CLIENT_ID/SECRET), so private repositories cannot be connected."
        : `This server has no authorization configured for repositories on ${hostId}; it reaches them with the operator's own credentials only.`;
    throw new RepositeError(503, message, "repohost_auth_unavailable");
  }

  /** The state's record, removed so it cannot be used again, or the error a caller should see. */
  private async takeState(state: string): Promise<AuthStateRecord> {
    const unknown = () =>
      new RepositeError(
        400,
        "This authorization link is unknown or was used already. Start again with POST /app/repohost/connect.",
        "invalid_state",
      );
    if (typeof state !== "string" || state === "" || state.length > 200) throw unknown();
    const key = stateKey(state);
    const record = await this.locks.withLock(key, async () => {
      const found = await this.storage.getItem<AuthStateRecord>(key);
      if (found) await this.storage.removeItem(key);
      return found;
    });
    if (!record) throw unknown();
    await this.forgetOpenState(record.account_id, key);
    if (record.expires_at <= this.clock.now().getTime()) {
      throw new RepositeError(410, "This authorization took longer than 10 minutes. Start again with POST /app/repohost/connect.", "expired");
    }
    return record;
  }

  /** Keeps the newest few open states per account, so abandoned ones do not pile up in storage. */
  private async rememberOpenState(accountId: string, key: string): Promise<void> {
    await this.locks.withLock(openStatesKey(accountId), async () => {
      const open = [...((await this.storage.getItem<string[]>(openStatesKey(accountId))) ?? []), key];
      const dropped = open.splice(0, Math.max(0, open.length - OPEN_STATES_PER_ACCOUNT));
      for (const old of dropped) await this.storage.removeItem(old);
      await this.storage.setItem(openStatesKey(accountId), open);
    });
  }

  private async forgetOpenState(accountId: string, key: string): Promise<void> {
    await this.locks.withLock(openStatesKey(accountId), async () => {
      const open = (await this.storage.getItem<string[]>(openStatesKey(accountId))) ?? [];
      const rest = open.filter((candidate) => candidate !== key);
      if (rest.length === 0) await this.storage.removeItem(openStatesKey(accountId));
      else await this.storage.setItem(openStatesKey(accountId), rest);
    });
  }
}
