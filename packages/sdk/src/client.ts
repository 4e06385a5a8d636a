import { ofetch, type $Fetch, type FetchResponse } from "ofetch";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  errorFromResponse,
  RepositeSDKError,
} from "./errors.js";
import { isRetryableFailure, isRetryableStatus, networkErrorCodes, retryDelay, type HttpMethod } from "./internal/retry.js";
import { Agent } from "./resources/agent.js";
import { Billing } from "./resources/billing.js";
import { Deployment } from "./resources/deployment.js";
import { Designs } from "./resources/designs.js";
import { Domain } from "./resources/domain.js";
import { Jobs } from "./resources/jobs.js";
import { Members } from "./resources/members.js";
import { Publishing } from "./resources/publishing.js";
import { Repohost } from "./resources/repohost.js";
import { Sites } from "./resources/sites.js";
import { Subdomains } from "./resources/subdomains.js";
import { Tokens } from "./resources/tokens.js";
import { Versions } from "./resources/versions.js";

export type { HttpMethod } from "./internal/retry.js";

/**
 * Where a Reposite server started with `reposite serve` on this machine listens: the address the
 * CLI and the MCP server use when nothing names another.
 */
export const LOCAL_SERVER_URL = "http://localhost:3000";

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 60_000;
const ACCEPT = { json: "application/json", text: "text/plain", stream: "text/event-stream" } as const;

export interface ClientOptions {
  /** Address of the API, for example `https://reposite.example`. */
  baseURL: string;
  /**
   * API token, sent as `Authorization: Bearer <token>`. Optional: the few calls that need none
   * (`designs.list()`) work without it.
   */
  token?: string;
  /** The `fetch` to send requests with. Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** How many times a failed request is retried (only where resending is safe). Default 2. */
  maxRetries?: number;
  /** Milliseconds one attempt may take before it is abandoned. Default 60 000. */
  timeout?: number;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Receives one line per attempt (`GET /app/sites -> 200 (12 ms)`), per failure and per retry,
   * for a `--verbose` flag or a debug log. Lines name the method, path and status only: never
   * headers, bodies, or the token. Default: nothing is logged.
   */
  log?: (line: string) => void;
  /**
   * Waits between attempts. Tests pass one that records the delay and returns at once.
   * @internal
   */
  sleep?: (ms: number) => Promise<void>;
}

/** Per-call options; every resource method takes them last. */
export interface RequestOptions {
  /** Headers for this call, over the client's. */
  headers?: Record<string, string>;
  /** Aborts the call (and any retry still to come). */
  signal?: AbortSignal;
  /** Milliseconds per attempt, instead of the client's `timeout`. */
  timeout?: number;
  /** Retries for this call, instead of the client's `maxRetries`. */
  maxRetries?: number;
}

export type QueryValue = string | number | boolean | undefined;

/** Everything one request needs; resources build these through `get`, `post`, …. */
export interface FinalRequestOptions extends RequestOptions {
  method: HttpMethod;
  /** Path under `baseURL`; build it with `path\`…\`` so ids are encoded. */
  path: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  body?: unknown;
  /**
   * How a successful answer is read: `json` (default), `text` (app logs), or `stream`, which
   * hands back the body unread (job streams). Retries only ever happen before a body is handed back.
   */
  responseType?: "json" | "text" | "stream";
}

export type MethodRequestOptions = Omit<FinalRequestOptions, "method" | "path">;

/**
 * A client of the Reposite HTTP API. Resources are fields: `client.sites.create(…)`,
 * `client.designs.list()`.
 */
export class RepositeClient {
  /** Projects (sites): create, list, read, change, delete. */
  readonly sites: Sites;
  /** The design catalogue. */
  readonly designs: Designs;
  /** Agent login, and who the token acts as. */
  readonly agent: Agent;
  /** The account's tokens: list and revoke. */
  readonly tokens: Tokens;
  /** Page versions: history, custom HTML, which one is current. */
  readonly versions: Versions;
  /** Jobs (generation, deploys): read, cancel, follow their stream. */
  readonly jobs: Jobs;
  /** Addresses (slugs) and publishing the site. */
  readonly publishing: Publishing;
  /** A project's own domain: `set`, `verify`, `get`, `remove`. */
  readonly domain: Domain;
  /** The project's hosted app: repo check, setup, env, deploys and runs, logs, metrics, operations. */
  readonly deployment: Deployment;
  /** Payments: prices, statuses, checkouts and confirms, the account's purchases. */
  readonly billing: Billing;
  /** People who registered on a published site. */
  readonly members: Members;
  /** Access to the code-hosting service: check a repository, connect, status, disconnect. */
  readonly repohost: Repohost;
  /** Whether an address (slug) is free. */
  readonly subdomains: Subdomains;

  readonly baseURL: string;
  readonly maxRetries: number;
  readonly timeout: number;
  // A private field: the token never shows when the client is logged or inspected.
  readonly #token: string | undefined;
  readonly #headers: Record<string, string>;
  readonly #fetch: $Fetch;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #log: (line: string) => void;
  /** Where requests go, without path or credentials: safe in error messages. */
  readonly #origin: string;

  constructor(options: ClientOptions) {
    this.baseURL = checkBaseURL(options?.baseURL);
    this.#origin = new URL(this.baseURL).origin;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
    this.#token = checkToken(options.token);
    this.#headers = { ...options.headers };
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#log = options.log ?? (() => {});
    // Retries, errors and timeouts are handled here (ofetch's own differ: it retries a 409 and any 500).
    this.#fetch = ofetch.create(
      { baseURL: this.baseURL, retry: false, ignoreResponseError: true },
      options.fetch ? { fetch: options.fetch } : {},
    );

    this.sites = new Sites(this);
    this.designs = new Designs(this);
    this.agent = new Agent(this);
    this.tokens = new Tokens(this);
    this.versions = new Versions(this);
    this.jobs = new Jobs(this);
    this.publishing = new Publishing(this);
    this.domain = new Domain(this);
    this.deployment = new Deployment(this);
    this.billing = new Billing(this);
    this.members = new Members(this);
    this.repohost = new Repohost(this);
    this.subdomains = new Subdomains(this);
  }

  get<T>(path: string, options?: MethodRequestOptions): Promise<T> {
    return this.request<T>({ ...options, method: "GET", path });
  }

  post<T>(path: string, options?: MethodRequestOptions): Promise<T> {
    return this.request<T>({ ...options, method: "POST", path });
  }

  put<T>(path: string, options?: MethodRequestOptions): Promise<T> {
    return this.request<T>({ ...options, method: "PUT", path });
  }

  patch<T>(path: string, options?: MethodRequestOptions): Promise<T> {
    return this.request<T>({ ...options, method: "PATCH", path });
  }

  delete<T>(path: string, options?: MethodRequestOptions): Promise<T> {
    return this.request<T>({ ...options, method: "DELETE", path });
  }

  /**
   * Sends a request, retrying where that is safe, and returns the parsed answer. Error statuses
   * throw a `RepositeAPIError` subclass; no answer throws an `APIConnectionError`.
   */
  async request<T>(options: FinalRequestOptions): Promise<T> {
    const maxRetries = options.maxRetries ?? this.maxRetries;
    for (let attempt = 0; ; attempt++) {
      const canRetry = attempt < maxRetries;
      let response: FetchResponse<unknown>;
      const request = `${options.method} ${options.path}`;
      const startedAt = Date.now();
      try {
        response = await this.#attempt(options);
      } catch (error) {
        this.#log(`${request} failed: ${(error as Error).message}`);
        if (!canRetry || !APIConnectionError.isInstance(error) || !isRetryableFailure(options.method, error.cause)) throw error;
        const delay = retryDelay(attempt, null)!;
        this.#log(`${request}: retrying in ${delay} ms`);
        await this.#wait(delay, options.signal);
        continue;
      }
      this.#log(`${request} -> ${response.status} (${Date.now() - startedAt} ms)`);
      if (response.ok) return response._data as T;

      if (canRetry && isRetryableStatus(options.method, response.status)) {
        const delay = retryDelay(attempt, response.headers.get("retry-after"));
        if (delay !== null) {
          this.#log(`${request}: retrying in ${delay} ms`);
          await response.body?.cancel().catch(() => {});
          await this.#wait(delay, options.signal);
          continue;
        }
      }
      const data = withoutToken(await errorData(response, options), this.#token);
      throw errorFromResponse(response.status, response.statusText, data, response.headers);
    }
  }

  /**
   * Waits `ms` with the client's `sleep`; rejects with `APIUserAbortError` when `signal` aborts.
   * For resources that retry on their own (job streams reconnecting).
   * @internal
   */
  backoff(ms: number, signal?: AbortSignal): Promise<void> {
    return this.#wait(ms, signal);
  }

  /** One try: the response (any status), or an `APIConnectionError` / `APIUserAbortError`. */
  async #attempt(options: FinalRequestOptions): Promise<FetchResponse<unknown>> {
    const { method, path, query, body, signal, responseType = "json" } = options;
    if (signal?.aborted) throw new APIUserAbortError("The request was aborted.");
    const timeout = options.timeout ?? this.timeout;
    const timer = new AbortController();
    const timeoutId = setTimeout(() => timer.abort(), timeout);
    try {
      return await this.#fetch.raw(path, {
        method,
        query: query && Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)),
        headers: this.#requestHeaders(options),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timer.signal]) : timer.signal,
        responseType,
      });
    } catch (error) {
      if (signal?.aborted) throw new APIUserAbortError("The request was aborted.", { cause: error });
      if (timer.signal.aborted) {
        throw new APIConnectionTimeoutError(`${method} ${path} got no answer from ${this.#origin} within ${timeout} ms.`, {
          cause: error,
        });
      }
      const code = networkErrorCodes(error)[0];
      throw new APIConnectionError(`${method} ${path} could not reach ${this.#origin}${code ? ` (${code})` : ""}.`, {
        cause: error,
      });
    } finally {
      clearTimeout(timeoutId);
    }
  }

  #requestHeaders(options: FinalRequestOptions): Record<string, string> {
    return {
      accept: ACCEPT[options.responseType ?? "json"],
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...this.#headers,
      ...(this.#token ? { authorization: `Bearer ${this.#token}` } : {}),
      ...options.headers,
    };
  }

  async #wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (!signal) return this.#sleep(ms);
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(new APIUserAbortError("The request was aborted."));
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.#sleep(ms).then(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, reject);
    });
  }
}

function checkBaseURL(baseURL: unknown): string {
  const url = typeof baseURL === "string" && URL.canParse(baseURL) ? new URL(baseURL) : undefined;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new RepositeSDKError("baseURL must be the API's http(s) address, for example https://reposite.example.");
  }
  return (baseURL as string).replace(/\/+$/, "");
}

/**
 * The token, trimmed (one read from a file often ends in a newline). A token that cannot go in a
 * header is refused here, because fetch's own error would quote it.
 */
function checkToken(token: string | undefined): string | undefined {
  const trimmed = token?.trim();
  if (!trimmed) return undefined;
  if (!/^[\x21-\x7e]+$/.test(trimmed)) {
    throw new RepositeSDKError("The token has characters that cannot be sent in a header; check how it was copied.");
  }
  return trimmed;
}

/**
 * The error body with the token cut out wherever it appears: a proxy or a server that echoes the
 * request (headers included) in its error page must not put the token in an error message.
 */
function withoutToken(data: unknown, token: string | undefined): unknown {
  if (!token) return data;
  if (typeof data === "string") return data.split(token).join("[token]");
  const text = JSON.stringify(data);
  return text?.includes(token) ? JSON.parse(text.split(token).join("[token]")) : data;
}

/** The body of an error answer: parsed JSON when it is JSON, its text otherwise. */
async function errorData(response: FetchResponse<unknown>, options: FinalRequestOptions): Promise<unknown> {
  const data = response._data;
  if ((options.responseType ?? "json") === "json") return data;
  const text = typeof data === "string" ? data : await response.text().catch(() => "");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A client of the Reposite HTTP API.
 *
 * @example
 * const reposite = createClient({ baseURL: "https://reposite.example", token: process.env.REPOSITE_TOKEN });
 * const site = await reposite.sites.create({ repohost_url: "https://github.com/acme/rocket-cli" });
 */
export function createClient(options: ClientOptions): RepositeClient {
  return new RepositeClient(options);
}
