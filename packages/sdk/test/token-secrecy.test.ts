import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { createClient, RepositeSDKError, type ClientOptions } from "../src/index.js";
import { hangUp, json, silence, startScriptedServer, text, type ScriptedServer, type Step } from "./scripted-server.js";

// The token never shows: not in a URL, an error's message, string, stack, JSON or inspection (its
// cause included), nor in a line the SDK logs; for errors of every kind, and for a server that
// echoes the request's headers back in its error answer.
const TOKEN = "rps_SecretThatMustNeverShow_4f9a8b7c6d5e";

let server: ScriptedServer | undefined;
const logged: string[] = [];
const consoleLines: unknown[][] = [];

beforeAll(() => {
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void consoleLines.push(args));
  }
});
afterAll(() => vi.restoreAllMocks());
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function options(baseURL: string, extra: Partial<ClientOptions> = {}): ClientOptions {
  return { baseURL, token: TOKEN, sleep: async () => {}, log: (line) => void logged.push(line), ...extra };
}

/** Every way an error can be shown or serialized. */
function shown(error: unknown): string[] {
  const e = error as Error;
  return [String(error), e.message, e.stack ?? "", JSON.stringify(error), inspect(error, { depth: 10, showHidden: true })];
}

async function failure(steps: Step[], call: (client: ReturnType<typeof createClient>) => Promise<unknown>, extra: Partial<ClientOptions> = {}) {
  server = await startScriptedServer(steps);
  const client = createClient(options(server.url, extra));
  const error = await call(client).then(
    () => expect.unreachable("the call should fail"),
    (e: unknown) => e,
  );
  expect(RepositeSDKError.isInstance(error)).toBe(true);
  for (const request of server.requests) expect(request.url).not.toContain(TOKEN);
  await server.close();
  server = undefined;
  return error;
}

/** An error answer that quotes the request's Authorization header, as some proxies' error pages do. */
const echoing =
  (status: number, asJson: boolean): Step =>
  (res, req) => {
    const said = `You sent authorization: ${req.headers.authorization}`;
    if (asJson) json(status, { error: said, code: "echo", detail: { headers: req.headers } })(res, req);
    else text(status, said)(res, req);
  };

it("keeps the token out of every error and log line", async () => {
  const errors: unknown[] = [];
  for (const status of [400, 401, 402, 403, 404, 409, 410, 422, 429, 500, 502, 503]) {
    errors.push(await failure([json(status, { error: "No.", code: "some_code" }, { "retry-after": "0" })], (c) => c.sites.list(), { maxRetries: 1 }));
    errors.push(await failure([echoing(status, true)], (c) => c.sites.get("site_1"), { maxRetries: 0 }));
    errors.push(await failure([echoing(status, false)], (c) => c.deployment.logs("site_1"), { maxRetries: 0 }));
  }
  // Network: the connection breaks after the request was sent; nothing listens.
  errors.push(await failure([hangUp], (c) => c.sites.create({ repohost_url: "https://github.com/acme/x" })));
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const dead = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise((resolve) => probe.close(resolve));
  errors.push(await createClient(options(dead)).sites.list().catch((e: unknown) => e));
  errors.push(await createClient(options(dead)).jobs.wait("job_1", { maxReconnects: 1 }).catch((e: unknown) => e));
  // Timeout, and the caller aborting.
  errors.push(await failure([silence], (c) => c.deployment.get("site_1"), { timeout: 50, maxRetries: 0 }));
  errors.push(await failure([silence], (c) => c.deployment.get("site_1", { signal: AbortSignal.timeout(50) })));
  errors.push(await failure([silence], (c) => c.jobs.wait("job_1", { signal: AbortSignal.timeout(50) })));
  // A token that cannot go in a header is refused without quoting it.
  errors.push(await Promise.resolve().then(() => createClient({ baseURL: dead, token: `${TOKEN}\n` + "x" })).catch((e: unknown) => e));

  expect(errors).toHaveLength(12 * 3 + 7);
  for (const error of errors) {
    expect(RepositeSDKError.isInstance(error), inspect(error)).toBe(true);
    for (const text of shown(error)) expect(text).not.toContain(TOKEN);
  }
  // The echoing server did say it: the SDK cut it out.
  expect(errors.some((error) => (error as Error).message.includes("You sent authorization: Bearer [token]"))).toBe(true);

  expect(logged.some((line) => line.includes("-> 503"))).toBe(true);
  expect(logged.some((line) => line.includes("retrying in"))).toBe(true);
  expect(logged.some((line) => line.includes("failed:"))).toBe(true);
  for (const line of logged) expect(line).not.toContain(TOKEN);
  for (const line of consoleLines) expect(inspect(line, { depth: 10 })).not.toContain(TOKEN);
});
