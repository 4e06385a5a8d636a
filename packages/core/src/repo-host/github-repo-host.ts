import { ofetch, type FetchError, type FetchResponse } from "ofetch";
import { z } from "zod";
import { RepositeError } from "../errors.js";
import type { RepoAccess, RepoFacts, RepoHost, RepoLink } from "../ports/repo-host.js";
import { parseGitHubLink } from "./parse-github-link.js";

export interface GitHubRepoHostOptions {
  /**
   * Base address of GitHub's REST API. Default `https://api.github.com`; for GitHub Enterprise
   * Server something like `https://ghe.example.com/api/v3`.
   */
  apiUrl?: string;
  /**
   * The operator's token (REPOSITE_GITHUB_TOKEN). Optional: without it GitHub allows 60 requests an
   * hour per IP address, with it 5,000, and it sees whatever that token may see. A caller's own
   * `access.accessToken` takes its place for that call.
   */
  token?: string;
  /**
   * GitHub's web address, where repositories' pages are. Default `https://github.com`; for GitHub
   * Enterprise Server its address, for example `https://ghe.example.com`. Links to its host are
   * accepted and stored in its form, whatever `apiUrl` is (a mirror, a proxy, Enterprise's API).
   */
  webUrl?: string;
  /** Hosts whose web links this host accepts, for example `["github.com"]`. Default: the host of `webUrl`. */
  webHosts?: string[];
  /** The `fetch` to use; tests and embedders pass their own. Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Sent as User-Agent, which GitHub requires on every request. Default `reposite`. */
  userAgent?: string;
}

const PUBLIC_API = "https://api.github.com";
const PUBLIC_WEB = "https://github.com";
const API_VERSION = "2022-11-28";

/** The fields of GitHub's repository object we use (`GET /repos/{owner}/{repo}`). */
const repositorySchema = z.object({
  name: z.string(),
  owner: z.object({ login: z.string() }),
  private: z.boolean(),
  description: z.string().nullish(),
  topics: z.array(z.string()).nullish(),
  default_branch: z.string(),
});

/** The JSON form of `GET /repos/{owner}/{repo}/readme`, when a server ignores the raw media type. */
const readmeSchema = z.object({ content: z.string(), encoding: z.string() });

/** Repositories on GitHub.com or GitHub Enterprise Server, through the REST API. */
export function createGitHubRepoHost(options: GitHubRepoHostOptions = {}): RepoHost {
  const apiUrl = (options.apiUrl ?? PUBLIC_API).replace(/\/+$/, "");
  const webUrl = new URL(options.webUrl ?? PUBLIC_WEB);
  // The API address decides where calls go, never which links are GitHub's.
  const webHosts = options.webHosts ?? [webUrl.host.toLowerCase()];
  /** A link on the configured web host keeps its scheme (an Enterprise server may be on http). */
  const canonical = (link: RepoLink | null): RepoLink | null =>
    link && new URL(link.url).host === webUrl.host.toLowerCase() ? { ...link, url: `${webUrl.origin}/${link.owner}/${link.name}` } : link;
  const api = ofetch.create(
    {
      baseURL: apiUrl,
      headers: {
        Accept: "application/vnd.github+json",
        "X-GitHub-Api-Version": API_VERSION,
        "User-Agent": options.userAgent ?? "reposite",
        ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
      },
      // One quick retry for a flaky gateway; rate limits are reported, never retried.
      retry: 1,
      retryDelay: 300,
      retryStatusCodes: [500, 502, 503, 504],
      // Covers connecting and the response head; an archive body may take longer to stream.
      timeout: 30_000,
    },
    options.fetch ? { fetch: options.fetch } : {},
  );

  /** The response, or null when GitHub says the repository (or ref) is missing or not visible. */
  const request = async (path: string, access: RepoAccess | undefined, init: RequestOptions) => {
    const headers: Record<string, string> = { ...init.headers };
    if (access?.accessToken) headers.Authorization = `Bearer ${access.accessToken}`;
    try {
      return await api.raw(path, { ...init, headers });
    } catch (error) {
      const failure = toRepositeError(error, Boolean(options.token || access?.accessToken));
      if (failure) throw failure;
      return null;
    }
  };

  return {
    id: "github",

    exampleLink: `${webUrl.origin}/owner/repository`,

    parseLink: (link) => canonical(parseGitHubLink(link, webHosts)),

    async getRepository(repo, access) {
      const response = await request(repoPath(repo), access, { responseType: "json" });
      if (!response) return null;
      const parsed = repositorySchema.safeParse(response._data);
      if (!parsed.success) throw unavailable("GitHub answered with a repository object Reposite does not understand.");
      return toFacts(parsed.data, repo);
    },

    async getReadme(repo, access) {
      const response = await request(`${repoPath(repo)}/readme`, access, {
        responseType: "text",
        headers: { Accept: "application/vnd.github.raw" },
      });
      return response ? readmeText(response) : null;
    },

    async getSourceArchive(repo, ref, access) {
      const path = `${repoPath(repo)}/tarball${ref ? `/${ref.split("/").map(encodeURIComponent).join("/")}` : ""}`;
      // GitHub answers 302 to a short-lived codeload address; fetch follows it.
      const response = await request(path, access, { responseType: "stream", redirect: "follow" });
      if (!response) {
        const what = ref ? `Ref "${ref}"` : "The default branch";
        throw new RepositeError(
          404,
          `${what} of ${repo.owner}/${repo.name} was not found on GitHub, or the repository is not visible.`,
          "ref_not_found",
        );
      }
      if (!response.body) throw unavailable("GitHub answered the archive request without a body.");
      return response.body;
    },
  };
}

type RequestOptions = {
  responseType: "json" | "text" | "stream";
  headers?: Record<string, string>;
  redirect?: RequestRedirect;
};

function repoPath(repo: RepoLink): string {
  return `/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`;
}

/**
 * The address is the link's own origin with GitHub's spelling of the names, not `html_url`: a
 * mirror, a proxy or an Enterprise API may name another host, and the stored address must lead
 * back to this host when the project is read again (generation, repository checks).
 */
function toFacts(data: z.infer<typeof repositorySchema>, repo: RepoLink): RepoFacts {
  return {
    owner: data.owner.login,
    name: data.name,
    url: `${new URL(repo.url).origin}/${data.owner.login}/${data.name}`,
    private: data.private,
    description: data.description ?? "",
    topics: data.topics ?? [],
    defaultBranch: data.default_branch,
  };
}

function readmeText(response: FetchResponse<unknown>): string {
  const text = String(response._data ?? "");
  if (!/json/i.test(response.headers.get("content-type") ?? "")) return text;
  const parsed = readmeSchema.safeParse(JSON.parse(text));
  if (!parsed.success || parsed.data.encoding !== "base64") {
    throw unavailable("GitHub answered with a README object Reposite does not understand.");
  }
  return Buffer.from(parsed.data.content, "base64").toString("utf8");
}

function unavailable(message: string): RepositeError {
  return new RepositeError(502, message, "repohost_unavailable");
}

/**
 * Turns what ofetch threw into the error a caller should see, or null when the answer means "not
 * there": 404, and 403/451 that are not rate limits (private without the right token, "Repository
 * access blocked", legal takedowns). Messages never carry the token.
 */
function toRepositeError(error: unknown, authenticated: boolean): RepositeError | null {
  if (RepositeError.isInstance(error)) return error;
  // Duck-typed: ofetch's FetchError carries the response; a network failure has none.
  const { response, data } = (error ?? {}) as Partial<Pick<FetchError, "response" | "data">>;
  if (!response) return unavailable(`GitHub could not be reached (${networkReason(error)}).`);
  // An error answer to a stream request is never read; release its connection.
  if (response.body && !response.bodyUsed) response.body.cancel().catch(() => {});
  const status = response.status;
  const rateLimit = rateLimitWait(response.headers) ?? (status === 429 ? 60 : undefined);
  if ((status === 403 || status === 429) && rateLimit !== undefined) {
    const hint = authenticated
      ? "The token in use has exhausted its own limit."
      : "An operator token (REPOSITE_GITHUB_TOKEN) raises the limit from 60 to 5,000 requests an hour.";
    return new RepositeError(
      503,
      `GitHub's API rate limit is exhausted; retry in ${rateLimit} seconds. ${hint}`,
      "repohost_rate_limited",
      { retry_after: rateLimit },
    );
  }
  if (status === 404 || status === 403 || status === 451) return null;
  if (status === 401) {
    return new RepositeError(502, "GitHub rejected the access token (401 Bad credentials).", "repohost_unauthorized");
  }
  const message = githubMessage(data);
  return unavailable(`GitHub answered ${status}${message ? ` (${message})` : ""}.`);
}

/**
 * Seconds to wait when the response is a rate limit, else undefined. GitHub sends `retry-after`
 * for secondary limits and `x-ratelimit-remaining: 0` with `x-ratelimit-reset` (epoch seconds)
 * for the primary one.
 */
function rateLimitWait(headers: Headers): number | undefined {
  const retryAfter = headers.get("retry-after");
  if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) return Number(retryAfter);
  if (headers.get("x-ratelimit-remaining") !== "0") return undefined;
  const reset = Number(headers.get("x-ratelimit-reset"));
  if (!Number.isFinite(reset) || reset <= 0) return 60;
  return Math.max(1, Math.ceil(reset - Date.now() / 1000));
}

/** The innermost cause, where Node puts `ECONNREFUSED` and friends. */
function networkReason(error: unknown): string {
  let reason = "network error";
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    reason = typeof code === "string" ? code : cause.message || reason;
  }
  return reason;
}

function githubMessage(data: unknown): string | undefined {
  if (data && typeof data === "object" && "message" in data && typeof data.message === "string") {
    return data.message.slice(0, 200);
  }
  return undefined;
}
