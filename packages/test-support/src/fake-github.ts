import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createTarball } from "./tar.js";

/** A repository the fake serves. */
export interface FakeRepo {
  owner: string;
  name: string;
  /** Visible only to requests carrying the fake's token. Default false. */
  private?: boolean;
  description?: string;
  topics?: string[];
  /** Default `main`. */
  defaultBranch?: string;
  /** README.md text; null or absent means the repository has none. */
  readme?: string | null;
  /** Files of every ref's tarball, by path inside the repository. */
  files?: Record<string, string>;
  /** Branches and tags besides the default branch that tarballs can be asked for. */
  refs?: string[];
  /**
   * Files served raw on the web host, by path inside the repository, at
   * `/{owner}/{name}/raw/branch/{default branch}/{path}` (where a README's relative pictures lead
   * when the repository's address is the fake's own, `webHost: "self"`). Public repositories only.
   */
  rawFiles?: Record<string, { contentType: string; body: Buffer | string }>;
}

export interface FakeGitHubOptions {
  repos?: FakeRepo[];
  /** The one valid token: it sees private repos; any other bearer token gets 401 Bad credentials. */
  token?: string;
  /** Serve the API under this path, like GitHub Enterprise's `/api/v3`. Default none. */
  pathPrefix?: string;
  /**
   * An OAuth app registered at the fake: enables `GET /login/oauth/authorize` and
   * `POST /login/oauth/access_token` at the web root and `DELETE /applications/{client_id}/grant`
   * in the API. Tokens it issues see private repositories until their grant is deleted.
   */
  oauth?: FakeOAuthApp;
  /**
   * Where repositories' web pages are (`html_url`): `"github.com"` (default, as the public API
   * answers) or `"self"`, the fake's own origin, as a GitHub Enterprise server on one host answers.
   */
  webHost?: "github.com" | "self";
}

export interface FakeOAuthApp {
  clientId: string;
  clientSecret: string;
  /**
   * Plays the person clicking "Authorize": the authorize page answers 302 straight back to
   * `redirect_uri` with `code` and `state`. Off: it answers a small HTML page with the choice.
   */
  autoApprove?: boolean;
}

export interface FakeGitHubRequest {
  method: string;
  /** Path and query as received, prefix included. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The request body as text, for requests that have one. */
  body?: string;
}

export interface FakeGitHub {
  /** API base address, for example `http://127.0.0.1:41234` (with the path prefix, if any). */
  url: string;
  /** Web address, where `/login/oauth/…` lives (never under the path prefix), for example `http://127.0.0.1:41234`. */
  webUrl: string;
  /** Every request received, in order; codeload downloads included. */
  requests: FakeGitHubRequest[];
  close(): Promise<void>;
  /** While on, every API call answers 403 with `x-ratelimit-remaining: 0`, like GitHub does. */
  setRateLimited(on: boolean): void;
  addRepo(repo: FakeRepo): void;
  /** Turns the OAuth app's `autoApprove` on or off. */
  setAutoApprove(on: boolean): void;
  /** Access tokens issued through OAuth whose grant has not been deleted, oldest first. */
  oauthTokens(): string[];
}

const DOCS = "https://docs.github.com/rest";
const RATE_LIMIT = 60;

/**
 * A loopback stand-in for GitHub's REST API: `GET /repos/{owner}/{repo}`, `…/readme` (raw or
 * JSON), `…/tarball[/{ref}]` answering 302 to `/codeload/…`, which serves a real gzipped tarball.
 * With `oauth`, also GitHub's OAuth web flow and `DELETE /applications/{client_id}/grant`.
 */
export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const repos = new Map<string, FakeRepo>();
  const addRepo = (repo: FakeRepo) => repos.set(key(repo.owner, repo.name), repo);
  for (const repo of options.repos ?? []) addRepo(repo);
  const prefix = (options.pathPrefix ?? "").replace(/\/+$/, "");
  const requests: FakeGitHubRequest[] = [];
  let rateLimited = false;
  let origin = "";
  const oauth = options.oauth ? { ...options.oauth } : undefined;
  /** Codes handed out by the authorize page, until exchanged once. */
  const codes = new Map<string, { redirectUri: string; scope: string }>();
  /** OAuth access tokens whose grant still exists. */
  const grants = new Set<string>();

  const server = createServer((req, res) => {
    const request: FakeGitHubRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers };
    requests.push(request);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (chunks.length > 0) request.body = Buffer.concat(chunks).toString("utf8");
      try {
        handle(req, res, request.body ?? "");
      } catch (error) {
        send(res, 500, { message: `fake GitHub failed: ${String(error)}` });
      }
    });
  });

  function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? "/", "http://fake");
    const segments = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);

    if (segments[0] === "codeload") return codeload(res, segments.slice(1));
    if (segments[2] === "raw" && segments[3] === "branch" && req.method === "GET") return rawFile(res, segments);
    if (url.pathname === "/login/oauth/authorize" && req.method === "GET") return authorize(res, url);
    if (url.pathname === "/login/oauth/access_token" && req.method === "POST") return accessToken(req, res, body);
    if (prefix && !url.pathname.startsWith(`${prefix}/`)) return notFound(res);
    const [resource, owner, name, endpoint, ...ref] = prefix
      ? url.pathname.slice(prefix.length).split("/").filter(Boolean).map(decodeURIComponent)
      : segments;

    if (rateLimited) return rateLimit(res);
    if (resource === "applications" && name === "grant" && endpoint === undefined && req.method === "DELETE") {
      return deleteGrant(req, res, owner ?? "", body);
    }
    const auth = authenticate(req.headers.authorization);
    if (auth === "bad") return send(res, 401, { message: "Bad credentials", documentation_url: DOCS, status: "401" });
    if (req.method !== "GET" || resource !== "repos" || !owner || !name) return notFound(res);
    const repo = repos.get(key(owner, name));
    if (!repo || (repo.private && auth !== "valid")) return notFound(res);

    if (endpoint === undefined) return send(res, 200, repoJson(repo));
    if (endpoint === "readme" && ref.length === 0) return readme(req, res, repo);
    if (endpoint === "tarball") return tarball(res, repo, ref.join("/") || defaultBranch(repo));
    return notFound(res);
  }

  function authenticate(header: string | undefined): "none" | "valid" | "bad" {
    if (!header) return "none";
    const match = /^(?:bearer|token)\s+(.+)$/i.exec(header);
    if (!match) return "bad";
    return (options.token !== undefined && match[1] === options.token) || grants.has(match[1]!) ? "valid" : "bad";
  }

  /** GitHub's authorize page: the person approves (or `autoApprove` does) and is sent back with a code. */
  function authorize(res: ServerResponse, url: URL): void {
    const query = url.searchParams;
    const redirectUri = query.get("redirect_uri");
    if (!oauth || query.get("client_id") !== oauth.clientId) return page(res, 404, "<h1>404</h1><p>This OAuth app does not exist.</p>");
    if (!redirectUri) return page(res, 400, "<h1>Missing redirect_uri</h1>");
    const state = query.get("state");
    const back = (params: Record<string, string>) => {
      const target = new URL(redirectUri);
      for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
      if (state !== null) target.searchParams.set("state", state);
      return target.toString();
    };
    if (oauth.autoApprove || query.get("approve") === "1") {
      const code = randomBytes(10).toString("hex");
      codes.set(code, { redirectUri, scope: query.get("scope") ?? "" });
      res.writeHead(302, { location: back({ code }), "content-length": "0" });
      res.end();
      return;
    }
    const approve = new URL(url.toString().replace(/^http:\/\/fake/, origin));
    approve.searchParams.set("approve", "1");
    const deny = back({ error: "access_denied", error_description: "The user has denied your application access." });
    page(
      res,
      200,
      `<h1>Authorize application</h1><p>Scopes: ${escapeHtml(query.get("scope") ?? "")}</p>` +
        `<a id="authorize" href="${escapeHtml(approve.toString())}">Authorize</a> <a id="cancel" href="${escapeHtml(deny)}">Cancel</a>`,
    );
  }

  /** `POST /login/oauth/access_token`: like GitHub, failures answer 200 with an `error` field. */
  function accessToken(req: IncomingMessage, res: ServerResponse, body: string): void {
    const type = req.headers["content-type"] ?? "";
    const params: Record<string, string> = /json/i.test(type)
      ? (JSON.parse(body || "{}") as Record<string, string>)
      : Object.fromEntries(new URLSearchParams(body));
    const answer = (fields: Record<string, string>) => {
      if (/json/i.test(req.headers.accept ?? "")) return send(res, 200, fields);
      const text = new URLSearchParams(fields).toString();
      res.writeHead(200, { "content-type": "application/x-www-form-urlencoded; charset=utf-8", "content-length": String(Buffer.byteLength(text)) });
      res.end(text);
    };
    const oauthError = (error: string, description: string) =>
      answer({ error, error_description: description, error_uri: `https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#${error.replace(/_/g, "-")}` });
    if (!oauth || params.client_id !== oauth.clientId || params.client_secret !== oauth.clientSecret) {
      return oauthError("incorrect_client_credentials", "The client_id and/or client_secret passed are incorrect.");
    }
    const issued = params.code ? codes.get(params.code) : undefined;
    if (!issued) return oauthError("bad_verification_code", "The code passed is incorrect or expired.");
    if (params.redirect_uri && params.redirect_uri !== issued.redirectUri) {
      return oauthError("redirect_uri_mismatch", "The redirect_uri MUST match the registered callback URL for this application.");
    }
    codes.delete(params.code!);
    const token = `gho_${randomBytes(18).toString("base64url")}`;
    grants.add(token);
    answer({ access_token: token, token_type: "bearer", scope: issued.scope });
  }

  /** `DELETE /applications/{client_id}/grant` with the app's basic auth and `{access_token}`. */
  function deleteGrant(req: IncomingMessage, res: ServerResponse, clientId: string, body: string): void {
    const basic = /^basic\s+(.+)$/i.exec(req.headers.authorization ?? "");
    const [user, password] = basic ? Buffer.from(basic[1]!, "base64").toString("utf8").split(":") : [];
    if (!oauth || clientId !== oauth.clientId) return notFound(res);
    if (user !== oauth.clientId || password !== oauth.clientSecret) {
      return send(res, 401, { message: "Bad credentials", documentation_url: DOCS, status: "401" });
    }
    let token: unknown;
    try {
      token = (JSON.parse(body || "{}") as { access_token?: unknown }).access_token;
    } catch {
      token = undefined;
    }
    if (typeof token !== "string" || token === "") {
      return send(res, 422, { message: "Invalid request.\n\n\"access_token\" wasn't supplied.", documentation_url: DOCS, status: "422" });
    }
    if (!grants.delete(token)) return notFound(res);
    res.writeHead(204, rateHeaders());
    res.end();
  }

  function page(res: ServerResponse, status: number, html: string): void {
    const text = `<!doctype html><html><head><meta charset="utf-8"><title>Fake GitHub</title></head><body>${html}</body></html>`;
    res.writeHead(status, { "content-type": "text/html; charset=utf-8", "content-length": String(Buffer.byteLength(text)) });
    res.end(text);
  }

  function readme(req: IncomingMessage, res: ServerResponse, repo: FakeRepo): void {
    if (repo.readme === undefined || repo.readme === null) return notFound(res);
    const accept = req.headers.accept ?? "";
    if (/application\/vnd\.github(?:\.v3)?\.raw/.test(accept)) {
      res.writeHead(200, { "content-type": "application/vnd.github.raw; charset=utf-8", ...rateHeaders() });
      res.end(repo.readme);
      return;
    }
    const content = Buffer.from(repo.readme).toString("base64").replace(/.{1,60}/g, "$&\n");
    const html = `${webOrigin()}/${repo.owner}/${repo.name}`;
    send(res, 200, {
      type: "file",
      encoding: "base64",
      size: Buffer.byteLength(repo.readme),
      name: "README.md",
      path: "README.md",
      content,
      sha: sha(repo, "README.md"),
      url: `${origin}${prefix}/repos/${repo.owner}/${repo.name}/contents/README.md?ref=${defaultBranch(repo)}`,
      html_url: `${html}/blob/${defaultBranch(repo)}/README.md`,
      download_url: `https://raw.githubusercontent.com/${repo.owner}/${repo.name}/${defaultBranch(repo)}/README.md`,
    });
  }

  function tarball(res: ServerResponse, repo: FakeRepo, ref: string): void {
    if (!hasRef(repo, ref)) return notFound(res);
    const location = `${origin}/codeload/${repo.owner}/${repo.name}/legacy.tar.gz/${ref.split("/").map(encodeURIComponent).join("/")}`;
    res.writeHead(302, { location, "content-length": "0", ...rateHeaders() });
    res.end();
  }

  function codeload(res: ServerResponse, [owner, name, format, ...ref]: string[]): void {
    const repo = owner && name ? repos.get(key(owner, name)) : undefined;
    const refName = ref.join("/");
    if (!repo || format !== "legacy.tar.gz" || !hasRef(repo, refName)) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("404: Not Found");
      return;
    }
    const body = createTarball(repo.files ?? {}, `${repo.owner}-${repo.name}-${sha(repo, refName).slice(0, 7)}`);
    res.writeHead(200, {
      "content-type": "application/x-gzip",
      "content-disposition": `attachment; filename=${repo.owner}-${repo.name}-${sha(repo, refName).slice(0, 7)}.tar.gz`,
      "content-length": String(body.length),
    });
    res.end(body);
  }

  function rateLimit(res: ServerResponse): void {
    const reset = Math.floor(Date.now() / 1000) + 60;
    send(
      res,
      403,
      {
        message: "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)",
        documentation_url: `${DOCS}/overview/resources-in-the-rest-api#rate-limiting`,
      },
      { "x-ratelimit-remaining": "0", "x-ratelimit-used": String(RATE_LIMIT), "x-ratelimit-reset": String(reset) },
    );
  }

  /** `/{owner}/{name}/raw/branch/{branch}/{path}`: one of the repository's `rawFiles`. */
  function rawFile(res: ServerResponse, segments: string[]): void {
    const [owner = "", name = "", , , branch, ...path] = segments;
    const repo = repos.get(key(owner, name));
    const file = repo && !repo.private && branch === defaultBranch(repo) ? repo.rawFiles?.[path.join("/")] : undefined;
    if (!file) return notFound(res);
    const body = typeof file.body === "string" ? Buffer.from(file.body) : file.body;
    res.writeHead(200, { "content-type": file.contentType, "content-length": String(body.length) });
    res.end(body);
  }

  function notFound(res: ServerResponse): void {
    send(res, 404, { message: "Not Found", documentation_url: DOCS, status: "404" });
  }

  function webOrigin(): string {
    return options.webHost === "self" ? origin : "https://github.com";
  }

  function repoJson(repo: FakeRepo) {
    const html = `${webOrigin()}/${repo.owner}/${repo.name}`;
    const api = `${origin}${prefix}/repos/${repo.owner}/${repo.name}`;
    return {
      id: idOf(repo),
      node_id: `R_${idOf(repo)}`,
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      private: repo.private ?? false,
      owner: {
        login: repo.owner,
        id: idOf({ owner: repo.owner, name: "" }),
        type: "User",
        html_url: `${webOrigin()}/${repo.owner}`,
        url: `${origin}${prefix}/users/${repo.owner}`,
      },
      html_url: html,
      description: repo.description ?? null,
      fork: false,
      url: api,
      clone_url: `${html}.git`,
      ssh_url: `git@${new URL(webOrigin()).hostname}:${repo.owner}/${repo.name}.git`,
      homepage: null,
      language: null,
      stargazers_count: 0,
      forks_count: 0,
      open_issues_count: 0,
      archived: false,
      disabled: false,
      license: null,
      topics: repo.topics ?? [],
      visibility: repo.private ? "private" : "public",
      default_branch: defaultBranch(repo),
      created_at: "2024-01-01T00:00:00Z",
      updated_at: "2024-01-01T00:00:00Z",
      pushed_at: "2024-01-01T00:00:00Z",
    };
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(text)),
      "x-github-media-type": "github.v3; format=json",
      "x-github-api-version-selected": "2022-11-28",
      ...rateHeaders(),
      ...headers,
    });
    res.end(text);
  }

  function rateHeaders(): Record<string, string> {
    return {
      "x-ratelimit-limit": String(RATE_LIMIT),
      "x-ratelimit-remaining": String(RATE_LIMIT - 1),
      "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
      "x-ratelimit-resource": "core",
    };
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: `${origin}${prefix}`,
    webUrl: origin,
    requests,
    addRepo,
    setRateLimited: (on) => {
      rateLimited = on;
    },
    setAutoApprove: (on) => {
      if (!oauth) throw new Error("[test-support] [fake-github] setAutoApprove needs the oauth option");
      oauth.autoApprove = on;
    },
    oauthTokens: () => [...grants],
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** GitHub's owner and repository names are case-insensitive. */
function key(owner: string, name: string): string {
  return `${owner}/${name}`.toLowerCase();
}

function defaultBranch(repo: FakeRepo): string {
  return repo.defaultBranch ?? "main";
}

function hasRef(repo: FakeRepo, ref: string): boolean {
  return ref === defaultBranch(repo) || (repo.refs ?? []).includes(ref);
}

/** A stable fake commit id per repository and ref. */
function sha(repo: FakeRepo, ref: string): string {
  return createHash("sha1").update(`${repo.owner}/${repo.name}@${ref}`).digest("hex");
}

function idOf(repo: Pick<FakeRepo, "owner" | "name">): number {
  return parseInt(sha({ ...repo } as FakeRepo, "id").slice(0, 8), 16);
}
