import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type RunningServer } from "@reposite/server";
import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient, InternalServerError, UnprocessableEntityError, type RepositeClient } from "../src/index.js";

// billing, repohost, members, subdomains and the deployment's error codes against the real server
// (payments off, no app hosting, a loopback GitHub). The server checks its own answers against the
// contract's schemas in tests (REPOSITE_CHECK_ANSWERS), so these answers are the contract's shapes.
let github: FakeGitHub;
let server: RunningServer;
let dataDir: string;
let client: RepositeClient;

beforeAll(async () => {
  github = await startFakeGitHub({ repos: [{ owner: "acme", name: "ledger", description: "Double-entry accounting", topics: ["finance"] }] });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-sdk-billing-"));
  server = await startServer({
    settings: {
      listen: { port: 0, hostname: "127.0.0.1" },
      reposite: { config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" }, github: { apiUrl: github.url, webHosts: ["github.com"] } },
    },
  });
  const { account } = await server.reposite.accounts.findOrCreate("ada@example.com");
  const { secret } = await server.reposite.tokens.create(account.id, { name: "sdk", lifetime: "30d" });
  client = createClient({ baseURL: server.url, token: secret, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
  await github?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("billing on a server with payments off: prices without a token, free statuses, an empty summary", async () => {
  const prices = await createClient({ baseURL: server.url }).billing.prices();
  expect(prices.payments).toBe(false);
  expect(prices.products.memory.steps.map((step) => step.units)).toEqual([1, 2, 4, 8, 16]);
  const statuses = await client.billing.status();
  expect(statuses).toEqual({ embed: expect.objectContaining({ required: false }), domain: expect.objectContaining({ required: false }) });
  await expect(client.billing.status("domain")).resolves.toMatchObject({ required: false });
  const summary = await client.billing.summary();
  expect(summary).toMatchObject({ payments: false, purchases: [] });
  expect(summary.products.embed).toEqual({ seats: 0, used: 0 });
});

it("repohost, members and subdomains", async () => {
  await expect(client.repohost.repo("https://github.com/acme/ledger")).resolves.toEqual({ exists: true, private: false });
  await expect(client.repohost.repo("https://github.com/acme/missing")).resolves.toMatchObject({ exists: false });
  await expect(client.repohost.repo("")).rejects.toSatisfy((e) => UnprocessableEntityError.isInstance(e) && e.code === "invalid_request");
  await expect(client.repohost.status()).resolves.toEqual({ connected: false });

  const site = await client.sites.create({ repohost_url: "https://github.com/acme/ledger" });
  await expect(client.members.list(site.id)).resolves.toEqual([]);
  await expect(client.subdomains.check("ledger-books")).resolves.toEqual({ available: true });
  await expect(client.subdomains.check("api")).resolves.toEqual({ available: false, reason: "reserved" });
});

it("deployment calls on a server without app hosting answer 503 hosting_unavailable", async () => {
  const site = await client.sites.create({ repohost_url: "https://github.com/acme/ledger" });
  const error = await client.deployment.get(site.id).catch((e: unknown) => e);
  expect(InternalServerError.isInstance(error)).toBe(true);
  expect(error).toMatchObject({ status: 503, code: "hosting_unavailable" });
});
