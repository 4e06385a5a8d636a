import { execFile } from "node:child_process";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { createReposite } from "@reposite/core";
import type { FakeRepo } from "@reposite/test-support";
import { expect } from "vitest";
import { json } from "./harness.js";
import { BIN, type ServerProcess } from "./server-process.js";
import { WEBSOCKET_ECHO_JS } from "./websocket-echo-source.js";

// What the Swarm hosting tests that drive a real `reposite serve` share: the test app's source and
// a client for the API and for visitors of a site's /app/ (hosting-swarm-e2e, hosting-swarm-two-node).

/** Answers what it received and its version; SSE until released; echoes WebSocket messages; keeps files in /data. */
export const swarmAppJs = (version: string) => `
const http = require("node:http");
const fs = require("node:fs");
${WEBSOCKET_ECHO_JS}
const VERSION = ${JSON.stringify(version)};
console.log("starting " + VERSION + " with X=" + (process.env.X || ""));
const releases = new Map();
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://app");
  if (url.pathname === "/events") {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write("data: first\\n\\n");
    releases.set(url.searchParams.get("id"), () => res.end("data: last\\n\\n"));
    return;
  }
  if (url.pathname === "/release") {
    const release = releases.get(url.searchParams.get("id"));
    releases.delete(url.searchParams.get("id"));
    if (release) release();
    return res.end(release ? "released" : "unknown");
  }
  const file = /^\\/files\\/(\\w+)$/.exec(url.pathname);
  if (file && req.method === "PUT") {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => { fs.writeFileSync("/data/" + file[1], Buffer.concat(chunks)); res.end("kept"); });
    return;
  }
  if (file) return fs.readFile("/data/" + file[1], (error, data) => (error ? res.writeHead(404).end("missing") : res.end(data)));
  res.writeHead(200, { "content-type": "application/json" });
  const seen = (name) => req.headers[name] || null;
  res.end(JSON.stringify({ version: VERSION, host: require("node:os").hostname(), path: req.url, prefix: seen("x-forwarded-prefix"), x: process.env.X || null, member: seen("x-reposite-member-id"), email: seen("x-reposite-member-email"), cookie: seen("cookie") }));
});
server.on("upgrade", (req, socket) => acceptWebSocket(req, socket, (text) => "echo " + req.url + " " + text));
server.listen(Number(process.env.PORT) || 3000, "0.0.0.0");
process.on("SIGTERM", () => process.exit(0));
`;

/** The test app with a Dockerfile of its own, its image labelled `label`; `steps` go before CMD, `cmd` replaces it. */
export const swarmAppRepo = (label: string, version: string, steps: string[] = [], cmd = 'CMD ["node", "server.js"]'): FakeRepo => ({
  owner: "acme",
  name: "swarm-echo",
  files: {
    Dockerfile: ["FROM reposite-test/node:local", `LABEL ${label}`, "WORKDIR /app", "COPY server.js ./", ...steps, cmd, ""].join("\n"),
    "server.js": swarmAppJs(version),
  },
});

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Job {
  status: string;
  finished_at: string | null;
  next_job_id?: string | null;
}

export interface Deployment {
  status: string;
  last_exit_oom: boolean;
  last_operation: { kind: string; status: string } | null;
  last_run: { run_id: string; status: string; reason: string | null; diagnosis: { kind: string; title: string } | null } | null;
}

/** What the test app answers on any other path. */
export interface AppAnswer {
  version: string;
  host: string;
  path: string;
  prefix: string | null;
  x: string | null;
  member: string | null;
  email: string | null;
  cookie: string | null;
}

/** `reposite serve` that should refuse to start: its exit code and stderr. */
export function refusedStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, "serve"], { env: { ...process.env, HOST: "127.0.0.1", PORT: "0", ...env }, timeout: 30_000 }, (error, _stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stderr }),
    );
  });
}

/** API tokens for accounts made in the data directory before the server starts (`name@example.com`). */
export async function accountTokens<Name extends string>(dataDir: string, names: readonly Name[]): Promise<Record<Name, string>> {
  const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
  const tokens = {} as Record<Name, string>;
  try {
    for (const name of names) {
      const { account } = await reposite.accounts.findOrCreate(`${name}@example.com`);
      tokens[name] = (await reposite.tokens.create(account.id, { name: "e2e", lifetime: "30d" })).secret;
    }
  } finally {
    await reposite.close();
  }
  return tokens;
}

/**
 * A client of one `reposite serve` (`server()`, as a test may start a new one on the same port):
 * the API with a token, and a site's visitors by host name. `edge`: nginx is in front, whose
 * reloads close idle keep-alive connections.
 */
export function swarmHostingClient(options: { server: () => ServerProcess; edge: boolean }) {
  const { edge } = options;
  const api = (path: string, token: string, init: RequestInit = {}): Promise<Response> => {
    const call = () => fetch(`${options.server().url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    // nginx's reload closes idle keep-alive connections; a request sent on one in that instant is
    // closed unread (never answered, never acted on), and is sent again, as browsers do.
    return call().catch((error: { cause?: { code?: string } }) => (edge && error.cause?.code === "UND_ERR_SOCKET" ? call() : Promise.reject(error)));
  };
  const apiJson = async <T>(path: string, token: string, init: RequestInit = {}): Promise<T> => {
    const response = await api(path, token, init);
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  function site(slug: string, path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      // A new connection each (as a visitor's first request): an idle keep-alive connection an nginx
      // reload closes just as a request goes out on it is the client's to retry, not a lost request.
      const req = httpRequest(`${options.server().url}${path}`, { method: init.method ?? "GET", agent: false, headers: { host: `${slug}.localhost:${options.server().port}`, ...init.headers } }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on("error", reject);
      req.end(init.body);
    });
  }
  const appJson = async (slug: string, path = "/app/") => {
    const answer = await site(slug, path);
    expect(answer.status, answer.body).toBe(200);
    return JSON.parse(answer.body) as AppAnswer;
  };
  async function waitForJob(token: string, jobId: string, ms = 240_000): Promise<Job> {
    for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const job = await apiJson<Job>(`/app/jobs/${jobId}`, token);
      if (job.finished_at) return job;
    }
    throw new Error(`job ${jobId} did not finish`);
  }
  /** Deploys and waits for the run's end; answers the job and its log. */
  async function deploy(token: string, siteId: string): Promise<{ job: Job; runId: string; log: string }> {
    const { run_id, job_id } = await apiJson<{ run_id: string; job_id: string }>(`/app/sites/${siteId}/deployment/deploy`, token, { method: "POST" });
    const job = await waitForJob(token, job_id);
    const detail = await apiJson<{ log_tail: string }>(`/app/sites/${siteId}/deployment/runs/${run_id}`, token);
    return { job, runId: run_id, log: detail.log_tail };
  }
  /** A site made from `repo`, generated, given `slug`, published, and its app set up with `setup`. */
  async function publishedProject(token: string, repo: FakeRepo, slug: string, setup: Record<string, unknown>, generate: Record<string, unknown> = { mode: "landing" }): Promise<string> {
    const { id } = await apiJson<{ id: string }>("/app/sites", token, json({ repohost_url: `https://github.com/${repo.owner}/${repo.name}`, name: repo.name }));
    for (let job: string | null | undefined = (await apiJson<{ job_id: string }>(`/app/sites/${id}/generate`, token, json(generate))).job_id; job; ) {
      job = (await waitForJob(token, job)).next_job_id;
    }
    await apiJson(`/app/sites/${id}/slug`, token, json({ slug }));
    await apiJson(`/app/sites/${id}/publish`, token, json({}));
    expect((await api(`/app/sites/${id}/deployment`, token, json(setup, undefined, "PUT"))).status).toBe(201);
    return id;
  }
  /**
   * Requests `path` of the site every 50 ms while `during` runs: the apps' answers by version and
   * every request that got anything else.
   */
  async function underRequests<T>(slug: string, during: () => Promise<T>, path = "/app/"): Promise<{ result: T; seen: AppAnswer[]; failures: string[] }> {
    const seen: AppAnswer[] = [];
    const failures: string[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const answer = await site(slug, path).catch((error: unknown) => ({ status: 0, headers: {}, body: String(error) }));
        if (answer.status === 200) seen.push(JSON.parse(answer.body) as AppAnswer);
        else failures.push(`${answer.status} ${answer.body.slice(0, 80)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const result = await during().finally(() => (polling = false));
    await poller;
    return { result, seen, failures };
  }
  return { api, apiJson, site, appJson, waitForJob, deploy, publishedProject, underRequests };
}
