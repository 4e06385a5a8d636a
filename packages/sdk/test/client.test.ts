import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createClient,
  GoneError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  RepositeAPIError,
  RepositeSDKError,
  UnprocessableEntityError,
  type ClientOptions,
} from "../src/index.js";
import { hangUp, json, silence, startScriptedServer, text, type ScriptedServer, type Step } from "./scripted-server.js";

const TOKEN = "rps_TestTokenThatMustNeverLeak000000000";
const OK = json(200, [{ id: "site_1" }]);
const UNAVAILABLE = json(503, { error: "Down for maintenance." });

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client of a scripted server; `sleeps` records every wait between attempts (none really waits). */
async function scripted(steps: Step[], options: Partial<ClientOptions> = {}) {
  server = await startScriptedServer(steps);
  const sleeps: number[] = [];
  const client = createClient({ baseURL: server.url, sleep: async (ms) => void sleeps.push(ms), ...options });
  return { client, sleeps, requests: server.requests };
}

/** An address where nothing listens: connecting is refused. */
async function deadAddress(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe("requests", () => {
  it("sends JSON with content-type and the bearer token only when one is set", async () => {
    const { client, requests } = await scripted([json(201, { id: "site_1" })], { token: TOKEN, headers: { "x-extra": "1" } });
    await client.sites.create({ repohost_url: "https://github.com/acme/rocket-cli", name: "Rocket" });
    expect(requests[0]).toMatchObject({ method: "POST", url: "/app/sites" });
    expect(requests[0]!.headers).toMatchObject({ "content-type": "application/json", authorization: `Bearer ${TOKEN}`, "x-extra": "1" });
    expect(JSON.parse(requests[0]!.body)).toEqual({ repohost_url: "https://github.com/acme/rocket-cli", name: "Rocket" });

    const anonymous = createClient({ baseURL: server!.url });
    await anonymous.designs.list();
    expect(requests[1]!.headers.authorization).toBeUndefined();
    expect(requests[1]!.headers["content-type"]).toBeUndefined();
  });

  it("encodes ids in paths and refuses ids that would change the endpoint", async () => {
    const { client, requests } = await scripted([json(200, {})], { token: TOKEN });
    await client.sites.get("a/b c?d");
    expect(requests[0]!.url).toBe("/app/sites/a%2Fb%20c%3Fd");
    for (const id of ["", ".", ".."]) {
      await expect(client.sites.get(id)).rejects.toSatisfy(RepositeSDKError.isInstance);
    }
    expect(requests).toHaveLength(1);
  });

  it("sends purge=1 only when asked", async () => {
    const { client, requests } = await scripted([(res) => res.writeHead(204).end()], { token: TOKEN });
    await expect(client.sites.delete("site_1")).resolves.toBeUndefined();
    await client.sites.delete("site_1", { purge: true });
    await client.sites.delete("site_1", { purge: false });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "DELETE /app/sites/site_1",
      "DELETE /app/sites/site_1?purge=1",
      "DELETE /app/sites/site_1",
    ]);
  });

  it("keeps the token out of URLs, error messages and the inspected client", async () => {
    const { client, requests } = await scripted([json(401, { error: "The API token is not valid." })], { token: TOKEN });
    const error = await client.sites.list().catch((e: unknown) => e);
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect(requests[0]!.url).not.toContain(TOKEN);
    for (const shown of [String(error), (error as Error).stack, JSON.stringify(error), inspect(error, { depth: 5 }), inspect(client)]) {
      expect(shown).not.toContain(TOKEN);
    }
  });

  it("rejects a baseURL that is not an http(s) address", () => {
    for (const baseURL of ["localhost:3000", "http://", "ftp://reposite.example", undefined as never]) {
      expect(() => createClient({ baseURL })).toThrow(RepositeSDKError);
    }
  });

  it("trims the token, and refuses one that cannot go in a header without quoting it", async () => {
    const { client, requests } = await scripted([OK], { token: `  ${TOKEN}\n` });
    await client.sites.list();
    expect(requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const broken = `${TOKEN}\nx-injected: 1`;
    expect(() => createClient({ baseURL: server!.url, token: broken })).toThrow(RepositeSDKError);
    try {
      createClient({ baseURL: server!.url, token: broken });
    } catch (error) {
      expect(inspect(error)).not.toContain(TOKEN);
    }
  });
});

describe("errors", () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [402, PaymentRequiredError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [410, GoneError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [503, InternalServerError],
    [418, RepositeAPIError],
  ] as const)("status %i is a %o carrying status, code, body and the message", async (status, ErrorClass) => {
    const body = { error: "Something is off.", code: "some_code", attempts_left: 2 };
    const { client } = await scripted([json(status, body)], { maxRetries: 0 });
    const error = await client.sites.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErrorClass);
    expect(ErrorClass.isInstance(error)).toBe(true);
    expect(RepositeAPIError.isInstance(error)).toBe(true);
    expect(RepositeSDKError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status, code: "some_code", body, message: "Something is off.", name: ErrorClass.name });
  });

  it("isInstance tells the classes apart and works across copies of the package", () => {
    const notFound = new NotFoundError(404, "Project not found.", { error: "Project not found." }, new Headers());
    expect(NotFoundError.isInstance(notFound)).toBe(true);
    expect(AuthenticationError.isInstance(notFound)).toBe(false);
    expect(APIConnectionError.isInstance(notFound)).toBe(false);
    // What an error from a second copy of @reposite/sdk looks like to this one: same markers, other class.
    const fromOtherCopy = { [Symbol.for("@reposite/sdk.NotFoundError")]: true };
    expect(NotFoundError.isInstance(fromOtherCopy)).toBe(true);
    expect(NotFoundError.isInstance(null)).toBe(false);
  });

  it("gives a sensible message for an error answer that is not JSON", async () => {
    const { client } = await scripted([text(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html")], { maxRetries: 0 });
    const html = await client.sites.list().catch((e: unknown) => e);
    expect(html).toBeInstanceOf(InternalServerError);
    expect(html).toMatchObject({ status: 502, code: undefined, body: undefined, message: "502 Bad Gateway (the server sent no error message)" });

    await server!.close();
    const plain = await scripted([text(400, "upstream said no\n")], { maxRetries: 0 });
    await expect(plain.client.sites.list()).rejects.toMatchObject({ status: 400, message: "400 Bad Request: upstream said no" });
  });

  it("throws APIConnectionError when nothing listens", async () => {
    const client = createClient({ baseURL: await deadAddress(), maxRetries: 0 });
    const error = await client.designs.list().catch((e: unknown) => e);
    expect(APIConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/could not reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });

  it("throws APIConnectionTimeoutError when no answer comes within the timeout", async () => {
    const { client } = await scripted([silence], { timeout: 50, maxRetries: 0 });
    const error = await client.sites.list().catch((e: unknown) => e);
    expect(APIConnectionTimeoutError.isInstance(error)).toBe(true);
    expect(APIConnectionError.isInstance(error)).toBe(true);
  });

  it("throws APIUserAbortError when the caller aborts, and does not retry", async () => {
    const { client, requests } = await scripted([silence]);
    const controller = new AbortController();
    const call = client.sites.list({ signal: controller.signal });
    await waitUntil(() => requests.length === 1);
    controller.abort();
    await expect(call).rejects.toSatisfy(APIUserAbortError.isInstance);
    expect(requests).toHaveLength(1);
  });
});

describe("retries", () => {
  it("retries a GET answered 503 and returns the later answer", async () => {
    const { client, sleeps, requests } = await scripted([UNAVAILABLE, OK], { token: TOKEN });
    await expect(client.sites.list()).resolves.toEqual([{ id: "site_1" }]);
    expect(requests).toHaveLength(2);
    // Backoff from 0.5 s with up to 25 % jitter.
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(375);
    expect(sleeps[0]).toBeLessThanOrEqual(500);
  });

  it.each([408, 429, 502, 503, 504])("retries idempotent methods on %i", async (status) => {
    const { client, requests } = await scripted([json(status, { error: "later" }), json(200, { id: "site_1" })]);
    await client.sites.update("site_1", { name: "New" });
    await client.sites.delete("site_1");
    expect(requests.map((r) => r.method)).toEqual(["PATCH", "PATCH", "DELETE"]);
  });

  it("does not retry other statuses", async () => {
    const { client, requests } = await scripted([json(500, { error: "boom" }), OK]);
    await expect(client.sites.list()).rejects.toMatchObject({ status: 500 });
    expect(requests).toHaveLength(1);
  });

  it("gives up after maxRetries (default 2) with the last error", async () => {
    const { client, sleeps, requests } = await scripted([UNAVAILABLE]);
    const error = await client.sites.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 503, message: "Down for maintenance." });
    expect(requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[1]).toBeGreaterThanOrEqual(750);
    expect(sleeps[1]).toBeLessThanOrEqual(1000);
  });

  it("takes maxRetries per call", async () => {
    const { client, requests } = await scripted([UNAVAILABLE], { maxRetries: 5 });
    await expect(client.sites.list({ maxRetries: 0 })).rejects.toBeInstanceOf(InternalServerError);
    expect(requests).toHaveLength(1);
  });

  it("honours retry-after in seconds", async () => {
    const { client, sleeps } = await scripted([json(429, { error: "Slow down." }, { "retry-after": "3" }), OK]);
    await client.sites.list();
    expect(sleeps).toEqual([3000]);
  });

  it("honours retry-after as an HTTP date", async () => {
    const at = new Date(Date.now() + 5_000).toUTCString();
    const { client, sleeps } = await scripted([json(503, { error: "later" }, { "retry-after": at }), OK]);
    await client.sites.list();
    expect(sleeps).toHaveLength(1);
    // The date has whole seconds, so the wait is somewhat under five seconds.
    expect(sleeps[0]).toBeGreaterThan(3_000);
    expect(sleeps[0]).toBeLessThanOrEqual(5_000);
  });

  it("does not wait for a retry-after beyond 60 s: the error comes at once", async () => {
    const { client, sleeps, requests } = await scripted([json(429, { error: "Wait an hour.", code: "rate_limited" }, { "retry-after": "3600" }), OK]);
    await expect(client.sites.list()).rejects.toMatchObject({ status: 429, code: "rate_limited" });
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("does not retry a POST answered 503: the server may have acted on it", async () => {
    const { client, requests } = await scripted([UNAVAILABLE, json(201, { id: "site_1" })]);
    await expect(client.sites.create({ repohost_url: "https://github.com/acme/rocket-cli" })).rejects.toBeInstanceOf(InternalServerError);
    expect(requests).toHaveLength(1);
  });

  it("retries a POST answered 429", async () => {
    const { client, requests } = await scripted([json(429, { error: "Slow down." }), json(201, { id: "site_1" })]);
    await expect(client.sites.create({ repohost_url: "https://github.com/acme/rocket-cli" })).resolves.toEqual({ id: "site_1" });
    expect(requests).toHaveLength(2);
    expect(requests[1]!.body).toBe(requests[0]!.body);
  });

  it("retries a POST whose connection was refused, since it never reached the server", async () => {
    let calls = 0;
    const client = createClient({
      baseURL: await deadAddress(),
      sleep: async () => {},
      fetch: (input, init) => {
        calls++;
        return fetch(input, init);
      },
    });
    await expect(client.sites.create({ repohost_url: "https://github.com/acme/rocket-cli" })).rejects.toSatisfy(APIConnectionError.isInstance);
    expect(calls).toBe(3);
  });

  it("does not retry a POST whose connection broke after it was sent", async () => {
    const { client, requests } = await scripted([hangUp, json(201, { id: "site_1" })]);
    await expect(client.sites.create({ repohost_url: "https://github.com/acme/rocket-cli" })).rejects.toSatisfy(APIConnectionError.isInstance);
    expect(requests).toHaveLength(1);
  });

  it("retries a GET whose connection broke", async () => {
    const { client, requests } = await scripted([hangUp, OK]);
    await expect(client.sites.list()).resolves.toEqual([{ id: "site_1" }]);
    expect(requests).toHaveLength(2);
  });

  it("waits for real between attempts when no sleep is given", async () => {
    server = await startScriptedServer([json(503, { error: "later" }, { "retry-after": "0" }), OK]);
    const client = createClient({ baseURL: server.url });
    await expect(client.sites.list()).resolves.toEqual([{ id: "site_1" }]);
    expect(server.requests).toHaveLength(2);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
