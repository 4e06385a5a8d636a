import { mkdtemp, rm } from "node:fs/promises";
import { request, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { freePort, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_REPOS } from "./harness.js";
import { startServerProcess, type ServerProcess } from "./server-process.js";

// Found against `reposite serve` on its embedded storage: bad ids answered 500 with a stack trace in
// the log, and an oversized body reset the connection before the 413 could be read. Proved the same
// way: the built server in its own process, spoken to with node:http over loopback (node:http sends
// a path as written, where fetch would resolve `..` and `%2e%2e` first).

let github: FakeGitHub;
let dataDir: string;
let server: ServerProcess;
let token: string;
let siteId: string;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** Any error the client saw, the whole exchange through (a reset or broken pipe included). */
  error?: string;
}

/** One request on its own connection; settles when the socket closes, so a late reset is seen too. */
function send(method: string, path: string, options: { body?: string | Buffer; type?: string; auth?: boolean; chunked?: boolean } = {}): Promise<Answer> {
  const headers: Record<string, string> = { connection: "close" };
  if (options.auth) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) {
    headers["content-type"] = options.type ?? "application/json";
    if (!options.chunked) headers["content-length"] = String(Buffer.byteLength(options.body));
  }
  return new Promise((resolve) => {
    const answer: Answer = { status: 0, headers: {}, text: "" };
    const req = request({ host: "127.0.0.1", port: server.port, method, path, headers }, (res) => {
      answer.status = res.statusCode ?? 0;
      answer.headers = res.headers;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (answer.text += chunk));
      res.on("error", (error) => (answer.error ??= `${(error as NodeJS.ErrnoException).code ?? ""} ${error.message}`));
    });
    req.on("error", (error) => (answer.error ??= `${(error as NodeJS.ErrnoException).code ?? ""} ${error.message}`));
    req.on("close", () => resolve(answer));
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    if (body && options.chunked) {
      for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
      req.end();
    } else {
      req.end(body);
    }
  });
}

const jsonOf = (answer: Answer) => JSON.parse(answer.text) as Record<string, unknown>;

beforeAll(async () => {
  github = await startFakeGitHub({ repos: DEFAULT_REPOS });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-odd-input-"));
  const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
  const { account } = await reposite.accounts.findOrCreate("ada@example.com");
  token = (await reposite.tokens.create(account.id, { name: "odd input", lifetime: "30d" })).secret;
  await reposite.close();
  server = await startServerProcess(await freePort(), { REPOSITE_DATA_DIR: dataDir, REPOSITE_GITHUB_API_URL: github.url });
  const created = await send("POST", "/app/sites", { auth: true, body: JSON.stringify({ repohost_url: "https://github.com/acme/rocket-cli" }) });
  expect(created.status).toBe(201);
  siteId = jsonOf(created).id as string;
});
afterAll(async () => {
  await server?.kill();
  await github.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("bad ids and odd input through reposite serve", () => {
  const requests: [string, string, { body?: string; auth?: boolean }, number, string | undefined, string?][] = [
    // method, path, request, status, code (none: a missing record's 404), field
    ["GET", "/app/sites/..%2F..", { auth: true }, 404, undefined],
    ["GET", "/app/sites/%2e%2e", { auth: true }, 404, "not_found"], // resolved to /app/: no route
    ["GET", "/app/sites/site_a%00b", { auth: true }, 404, undefined],
    ["PATCH", "/app/sites/..%2F..", { auth: true, body: '{"name":"x"}' }, 404, undefined],
    ["DELETE", "/app/sites/..%2F..?purge=1", { auth: true }, 404, undefined],
    ["GET", "/app/sites/..%2F../versions", { auth: true }, 404, undefined],
    ["GET", "/app/sites/..%2F../members", { auth: true }, 404, undefined],
    ["POST", "/app/sites/..%2F../publish", { auth: true, body: "{}" }, 404, undefined],
    ["GET", "/app/versions/..%2F..", { auth: true }, 404, undefined],
    ["GET", "/app/versions/..", { auth: true }, 404, "not_found"],
    ["DELETE", "/app/tokens/..%2F..", { auth: true }, 404, undefined],
    ["GET", "/app/jobs/..%2F..", { auth: true }, 404, undefined],
    ["GET", "/agent/verify/..%2F..", {}, 404, undefined],
    ["POST", "/agent/token", { body: '{"request_id":"..","code":"ABCD-EFGH"}' }, 422, "invalid_request", "request_id"],
    ["POST", "/agent/token", { body: '{"request_id":"\\u0000","code":"ABCD-EFGH"}' }, 422, "invalid_request", "request_id"],
    ["GET", "/app/sites/%E0%A4%A", { auth: true }, 400, "bad_request"],
  ];

  it("answers every one as a client error with its code, and logs none of them", async () => {
    const answers = [];
    for (const [method, path, options, status, code, field] of requests) {
      const answer = await send(method, path, options);
      answers.push({ method, path, status: answer.status, error: answer.error });
      expect({ method, path, status: answer.status }).toEqual({ method, path, status });
      if (path.startsWith("/agent/verify/")) continue; // a browser page: its 404 is HTML
      const body = jsonOf(answer);
      expect({ path, code: body.code }).toEqual({ path, code });
      if (field) expect(body.field).toBe(field);
    }
    const logo = await send("PATCH", `/app/sites/${siteId}`, { auth: true, body: JSON.stringify({ logo_url: "http://127.0.0.1%2509:4103/x" }) });
    expect(logo.status).toBe(422);
    expect(jsonOf(logo)).toMatchObject({ code: "invalid_request", field: "logo_url" });
    const actual = await send("PUT", `/app/sites/${siteId}/actual`, { auth: true, body: JSON.stringify({ kind: "template", version_id: ".." }) });
    expect(actual.status).toBe(422);
    expect(jsonOf(actual)).toMatchObject({ code: "invalid_request", field: "version_id" });

    // Client errors are not server faults: nothing is logged for any of them.
    const { stderr } = server.output();
    expect(stderr).not.toMatch(/failed:|\n\s+at /);
    expect(stderr).toBe("");
  });
});

describe("a body over the limit through reposite serve", () => {
  const fiveMegabytes = JSON.stringify({ client: "x".repeat(5 * 1024 * 1024) });

  it.each([
    ["with Content-Length", false],
    ["chunked", true],
  ])("gets its 413 read by a node:http client (%s), then the connection closes", async (_, chunked) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const answer = await send("POST", "/agent/login", { body: fiveMegabytes, chunked });
      expect(answer.error).toBeUndefined();
      expect(answer.status).toBe(413);
      expect(answer.headers.connection).toBe("close");
      expect(jsonOf(answer)).toEqual({ error: "The request body is larger than 1048576 bytes.", code: "body_too_large" });
    }
    // The same on a route behind a token, and the server is still up after all of them.
    const authed = await send("POST", "/app/sites", { auth: true, body: fiveMegabytes, chunked });
    expect({ status: authed.status, error: authed.error, code: jsonOf(authed).code }).toEqual({ status: 413, error: undefined, code: "body_too_large" });
    expect((await send("GET", "/healthz")).status).toBe(200);
  });

  it("answers a body of the wrong type that is also too large with the 413, read the same way", async () => {
    const answer = await send("POST", "/agent/login", { body: fiveMegabytes, type: "text/plain" });
    expect({ status: answer.status, error: answer.error, code: jsonOf(answer).code }).toEqual({ status: 413, error: undefined, code: "body_too_large" });
  });

  it("logs nothing for any of them", () => {
    expect(server.output().stderr).toBe("");
  });
});
