import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type RunningServer } from "@reposite/server";
import { dnsmasqAvailable, freePort, startDnsServer, startFakeGitHub, type DnsServer, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, createClient, NotFoundError, UnprocessableEntityError, type RepositeClient } from "../src/index.js";
import { json, startScriptedServer } from "./scripted-server.js";

it("sends domain.set/verify/get/remove as PUT, POST, GET and DELETE on the project's domain", async () => {
  const server = await startScriptedServer([
    json(200, { domain: "www.example.com", records: [] }),
    json(200, { domain: "www.example.com", dns: { found: false, message: "Missing", records: [] } }),
    json(200, { domain: "www.example.com", live: false }),
    (res) => {
      res.writeHead(204);
      res.end();
    },
  ]);
  try {
    const client = createClient({ baseURL: server.url, token: "rp_test" });
    await expect(client.domain.set("site_a/b", "www.example.com")).resolves.toMatchObject({ domain: "www.example.com" });
    await expect(client.domain.verify("site_a")).resolves.toMatchObject({ dns: { message: "Missing" } });
    await expect(client.domain.get("site_a")).resolves.toMatchObject({ live: false });
    await expect(client.domain.remove("site_a")).resolves.toBeFalsy();
    expect(server.requests.map(({ method, url, body }) => [method, url, body])).toEqual([
      ["PUT", "/app/sites/site_a%2Fb/domain", JSON.stringify({ domain: "www.example.com" })],
      ["POST", "/app/sites/site_a/domain/verify", ""],
      ["GET", "/app/sites/site_a/domain", ""],
      ["DELETE", "/app/sites/site_a/domain", ""],
    ]);
  } finally {
    await server.close();
  }
});

// The SDK against the real server, with DNS from dnsmasq on loopback.
describe.skipIf(!dnsmasqAvailable())("domain against the server", () => {
  let github: FakeGitHub;
  let dns: DnsServer;
  let server: RunningServer;
  let dataDir: string;
  let client: RepositeClient;
  let other: RepositeClient;

  beforeAll(async () => {
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "notebook", description: "Notes", topics: [], readme: "# Notebook\n" }] });
    dns = await startDnsServer();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-sdk-domain-"));
    const port = await freePort();
    server = await startServer({
      settings: {
        listen: { port, hostname: "127.0.0.1" },
        reposite: {
          config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test", publicIpv4: "127.0.0.1" },
          github: { apiUrl: github.url, webHosts: ["github.com"] },
          dns: { servers: [dns.address], timeoutMs: 1_000, tries: 1 },
          domains: { liveHttpsPort: null, liveHttpPort: port },
        },
      },
    });
    const token = async (email: string) => {
      const { account } = await server.reposite.accounts.findOrCreate(email);
      return (await server.reposite.tokens.create(account.id, { name: "sdk", lifetime: "30d" })).secret;
    };
    client = createClient({ baseURL: server.url, token: await token("ada@example.com") });
    other = createClient({ baseURL: server.url, token: await token("eve@example.com") });
  });
  afterAll(async () => {
    await server?.close();
    await dns?.close();
    await github?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("sets a bare domain, verifies it once its records are there, reads it live and removes it", async () => {
    const site = await client.sites.create({ repohost_url: "https://github.com/acme/notebook", name: "Notebook" });
    await expect(client.domain.verify(site.id)).rejects.toSatisfy((error) => error instanceof ConflictError && error.code === "no_domain");
    await expect(client.domain.set(site.id, "192.0.2.1")).rejects.toSatisfy((error) => error instanceof UnprocessableEntityError && error.code === "invalid_domain");

    const set = await client.domain.set(site.id, "notebook-notes.com");
    expect(set).toMatchObject({ domain: "notebook-notes.com", apex: true, verified: false });
    expect(set.records.map((record) => [record.type, record.host])).toEqual([
      ["A", "@"],
      ["TXT", "_reposite"],
    ]);
    const txt = set.records[1]!.value;

    await dns.setRecords({ a: { "notebook-notes.com": ["127.0.0.1"] } });
    const missing = await client.domain.verify(site.id);
    expect(missing.verified).toBe(false);
    expect(missing.dns.message).toContain("Missing: a TXT record named _reposite.notebook-notes.com");

    await dns.setRecords({ a: { "notebook-notes.com": ["127.0.0.1"] }, txt: { "_reposite.notebook-notes.com": [txt] } });
    const verified = await client.domain.verify(site.id);
    expect(verified).toMatchObject({ verified: true, dns: { found: true } });

    await expect(client.domain.get(site.id)).resolves.toMatchObject({ domain: "notebook-notes.com", verified: true, live: true });
    await expect(other.domain.get(site.id)).rejects.toBeInstanceOf(NotFoundError);

    await client.domain.remove(site.id);
    await expect(client.domain.get(site.id)).resolves.toMatchObject({ domain: null, live: false });
  });
});
