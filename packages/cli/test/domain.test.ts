import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type RunningServer } from "@reposite/server";
import { dnsmasqAvailable, startDnsServer, startFakeGitHub, type DnsServer, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, cli } from "./run-cli.js";

// `reposite domain set|verify|get|remove` through the built binary, on a server that sells nothing
// (domains are free) and resolves DNS with dnsmasq on loopback.
describe.skipIf(!dnsmasqAvailable())("reposite domain", () => {
  let github: FakeGitHub;
  let dns: DnsServer;
  let server: RunningServer;
  let dataDir: string;
  let env: Record<string, string>;
  let site: string;

  beforeAll(async () => {
    assertBuilt();
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "rocket", description: "Rockets", topics: [] }] });
    dns = await startDnsServer();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-cli-domain-"));
    server = await startServer({
      settings: {
        listen: { port: 0, hostname: "127.0.0.1" },
        reposite: {
          config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" },
          github: { apiUrl: github.url, webHosts: ["github.com"] },
          dns: { servers: [dns.address], timeoutMs: 1_000, tries: 1 },
          domains: { liveHttpsPort: null, liveCacheMs: 0 },
        },
      },
    });
    const { account } = await server.reposite.accounts.findOrCreate("ada@example.com");
    const token = (await server.reposite.tokens.create(account.id, { name: "ci", lifetime: "30d" })).secret;
    env = { REPOSITE_URL: server.url, REPOSITE_TOKEN: token, XDG_CONFIG_HOME: dataDir };
    site = JSON.parse((await cli(["sites", "create", "acme/rocket", "--json"], env)).stdout).id;
    await server.reposite.publishing.setSlug(account.id, site, { slug: "rocket" });
  });
  afterAll(async () => {
    await server?.close();
    await dns?.close();
    await github?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("sets the domain and prints its record, verifies it once DNS has it, shows it, and removes it", async () => {
    const set = await cli(["domain", "set", site, "www.rocket.example"], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/CNAME\s+www\s+rocket\.sites\.test/);

    // Not found yet is an answer, not a failure: exit 0, and `dns.found` false for scripts.
    const early = await cli(["domain", "verify", site, "--json"], env);
    expect(early.code, early.stderr).toBe(0);
    expect(JSON.parse(early.stdout)).toMatchObject({ verified: false, dns: { found: false } });

    await dns.setRecords({ cname: { "www.rocket.example": "rocket.sites.test" } });
    const found = await cli(["domain", "verify", site], env);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain("Found: www.rocket.example is a CNAME to rocket.sites.test.");

    const shown = await cli(["domain", "get", site, "--json"], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ domain: "www.rocket.example", verified: true });

    const removed = await cli(["domain", "remove", site], env);
    expect(removed.code, removed.stderr).toBe(0);
    const after = await cli(["domain", "get", site], env);
    expect(after.stdout).toContain("No domain");
  });

  it("an unknown site exits 4", async () => {
    const result = await cli(["domain", "get", "no-such-site", "--json"], env);
    expect(result.code).toBe(4);
    expect(JSON.parse(result.stderr)).toMatchObject({ status: 404 });
  });
});
