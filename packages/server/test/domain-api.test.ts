import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dnsmasqAvailable, freePort, getWithHost, startDnsServer, startFakeGitHub, type DnsServer, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer, type ServerSettings } from "../src/index.js";
import { bearer, DEFAULT_REPOS, json } from "./harness.js";

// The custom-domain API on a real server over a socket, DNS from dnsmasq on loopback: the live
// check resolves the domain there and asks this server (its HTTP port) for the domain's proof.
describe.skipIf(!dnsmasqAvailable())("custom domain over HTTP", () => {
  let github: FakeGitHub;
  let dns: DnsServer;
  let dataDir: string;
  let settings: ServerSettings;
  let server: RunningServer;
  let token: string;
  let otherToken: string;
  let site: string;

  const call = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);
  const proof = (host: string) => getWithHost(`${server.url}/.well-known/reposite-domain`, host);

  beforeAll(async () => {
    github = await startFakeGitHub({ repos: DEFAULT_REPOS });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-domains-"));
    dns = await startDnsServer();
    const port = await freePort();
    settings = {
      listen: { port, hostname: "127.0.0.1" },
      reposite: {
        config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test", publicIpv4: "127.0.0.1" },
        github: { apiUrl: github.url, webHosts: ["github.com"] },
        dns: { servers: [dns.address], timeoutMs: 1_000, tries: 1 },
        // Visitors reach this server on its HTTP port; no HTTPS here. Live answers are not kept.
        domains: { liveHttpsPort: null, liveHttpPort: port, liveCacheMs: 0 },
      },
    };
    server = await startServer({ settings });
    const signUp = async (email: string) => {
      const { account } = await server.reposite.accounts.findOrCreate(email);
      return (await server.reposite.tokens.create(account.id, { name: "test", lifetime: "30d" })).secret;
    };
    token = await signUp("ada@example.com");
    otherToken = await signUp("eve@example.com");
    site = (await (await call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli", name: "Rocket" }, token))).json()).id;
  });
  afterAll(async () => {
    await server?.close();
    await dns?.close();
    await github?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("PUT answers the records; verify finds the CNAME; GET is live once the domain answers here; a restart keeps it; DELETE ends it", async () => {
    expect((await call(`/app/sites/${site}/domain`, json({ domain: "www.rocket-launch.com" }, undefined, "PUT"))).status).toBe(401);

    const put = await call(`/app/sites/${site}/domain`, json({ domain: "WWW.Rocket-Launch.com" }, token, "PUT"));
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({
      domain: "www.rocket-launch.com",
      domain_unicode: "www.rocket-launch.com",
      apex: false,
      records: [{ type: "CNAME", name: "www.rocket-launch.com", host: "www", value: "rocket.sites.test", purpose: expect.any(String) }],
      verified: false,
      verified_at: null,
    });
    const before = await (await call(`/app/sites/${site}/domain`, bearer(token))).json();
    expect(before).toMatchObject({ domain: "www.rocket-launch.com", verified: false, live: false, live_url: null, live_reason: expect.stringContaining("not verified") });

    const missing = await (await call(`/app/sites/${site}/domain/verify`, bearer(token, "POST"))).json();
    expect(missing).toMatchObject({ verified: false, dns: { found: false, message: expect.stringContaining("Missing: a CNAME record named www.rocket-launch.com pointing to rocket.sites.test") } });
    expect((await proof("www.rocket-launch.com")).status).not.toBe(200);

    await dns.setRecords({ cname: { "www.rocket-launch.com": "rocket.sites.test" }, a: { "rocket.sites.test": ["127.0.0.1"] } });
    const verify = await call(`/app/sites/${site}/domain/verify`, bearer(token, "POST"));
    expect(verify.status).toBe(200);
    const verified = await verify.json();
    expect(verified).toMatchObject({
      domain: "www.rocket-launch.com",
      verified: true,
      dns: { found: true, message: expect.stringContaining("Found: www.rocket-launch.com is a CNAME to rocket.sites.test."), records: [{ type: "CNAME", ok: true }] },
    });
    const served = await proof("www.rocket-launch.com");
    expect(served).toEqual({ status: 200, body: expect.stringMatching(/^reposite-verification=dom_\w+$/) });

    const live = await (await call(`/app/sites/${site}/domain`, bearer(token))).json();
    expect(live).toMatchObject({ verified: true, live: true, live_url: `http://www.rocket-launch.com:${settings.listen.port}/`, live_reason: null });

    // Pointed elsewhere later: still verified, no longer live, and the check says why.
    await dns.setRecords({ a: { "www.rocket-launch.com": ["127.0.0.2"], "rocket.sites.test": ["127.0.0.1"] } });
    const gone = await (await call(`/app/sites/${site}/domain`, bearer(token))).json();
    expect(gone).toMatchObject({ verified: true, live: false, live_reason: expect.stringContaining("points to 127.0.0.2, which is not this service") });
    await dns.setRecords({ cname: { "www.rocket-launch.com": "rocket.sites.test" }, a: { "rocket.sites.test": ["127.0.0.1"] } });

    // `reposite serve` again on the same data: the table is loaded from storage at start.
    await server.close();
    server = await startServer({ settings });
    await server.reposite.domains.load();
    expect(server.reposite.domainTable.isVerified("www.rocket-launch.com")).toBe(true);
    expect(server.reposite.domainTable.resolve("www.rocket-launch.com")).toBe("rocket");
    expect((await proof("www.rocket-launch.com")).body).toBe(served.body);
    expect(await (await call(`/app/sites/${site}/domain`, bearer(token))).json()).toMatchObject({ verified: true, live: true });

    const removed = await call(`/app/sites/${site}/domain`, bearer(token, "DELETE"));
    expect(removed.status).toBe(204);
    expect((await call(`/app/sites/${site}/domain`, bearer(token, "DELETE"))).status).toBe(204);
    expect(await (await call(`/app/sites/${site}/domain`, bearer(token))).json()).toMatchObject({ domain: null, records: [], verified: false, live: false });
    expect(server.reposite.domainTable.resolve("www.rocket-launch.com")).toBeUndefined();
    expect((await proof("www.rocket-launch.com")).status).not.toBe(200);
  });

  it("a claim never verified blocks nobody: the real owner connects and verifies; the squatter's claim is dropped (taken_at) and a verified domain stays one project's (409 domain_taken)", async () => {
    const squat = (await (await call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli", name: "Squat" }, otherToken))).json()).id;
    const claimed = await call(`/app/sites/${squat}/domain`, json({ domain: "www.launchpad.dev" }, otherToken, "PUT"));
    expect(claimed.status).toBe(200);
    expect(await claimed.json()).toMatchObject({ domain: "www.launchpad.dev", verified: false });

    // The real owner connects it anyway (today's 409 domain_taken is gone) and points DNS at their project.
    const real = (await (await call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli", name: "Launchpad" }, token))).json()).id;
    const put = await call(`/app/sites/${real}/domain`, json({ domain: "www.launchpad.dev" }, token, "PUT"));
    expect(put.status).toBe(200);
    const { records } = (await put.json()) as { records: { type: string; value: string }[] };
    expect(records).toEqual([expect.objectContaining({ type: "CNAME", value: "launchpad.sites.test" })]);
    await dns.setRecords({ cname: { "www.launchpad.dev": "launchpad.sites.test" }, a: { "launchpad.sites.test": ["127.0.0.1"] } });

    // The squatter cannot verify a name that points at someone else's project.
    const squatCheck = await (await call(`/app/sites/${squat}/domain/verify`, bearer(otherToken, "POST"))).json();
    expect(squatCheck).toMatchObject({ verified: false, dns: { found: false } });
    const verify = await call(`/app/sites/${real}/domain/verify`, bearer(token, "POST"));
    expect(verify.status).toBe(200);
    expect(await verify.json()).toMatchObject({ domain: "www.launchpad.dev", verified: true, dns: { found: true } });
    expect(server.reposite.domainTable.resolve("www.launchpad.dev")).toBe("launchpad");
    expect(await (await call(`/app/sites/${real}/domain`, bearer(token))).json()).toMatchObject({ verified: true, live: true });

    // The squatter's side says what happened, and the name stays the owner's.
    const dropped = await (await call(`/app/sites/${squat}/domain`, bearer(otherToken))).json();
    expect(dropped).toMatchObject({
      domain: "www.launchpad.dev",
      verified: false,
      taken_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      live: false,
      live_reason: expect.stringContaining("verified by another project first"),
    });
    for (const [path, init] of [
      ["/verify", bearer(otherToken, "POST")],
      ["", json({ domain: "WWW.launchpad.dev" }, otherToken, "PUT")],
    ] as const) {
      const refused = await call(`/app/sites/${squat}/domain${path}`, init);
      expect(refused.status, path).toBe(409);
      expect(await refused.json()).toMatchObject({ code: "domain_taken", field: "domain" });
    }
    const stranger = (await (await call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli", name: "Stranger" }, otherToken))).json()).id;
    const late = await call(`/app/sites/${stranger}/domain`, json({ domain: "www.launchpad.dev" }, otherToken, "PUT"));
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ code: "domain_taken", field: "domain" });
    expect(server.reposite.domainTable.resolve("www.launchpad.dev")).toBe("launchpad");
    expect((await proof("www.launchpad.dev")).status).toBe(200);

    // Removing the dropped claim is free and leaves the owner's domain alone.
    expect((await call(`/app/sites/${squat}/domain`, bearer(otherToken, "DELETE"))).status).toBe(204);
    expect(server.reposite.domainTable.resolve("www.launchpad.dev")).toBe("launchpad");
    expect((await proof("www.launchpad.dev")).status).toBe(200);
    await dns.setRecords({});
  });

  it("bad input is 422 naming the field; another account gets 404; verify before PUT is 409 no_domain", async () => {
    const own = (await (await call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli", name: "Checks" }, token))).json()).id;
    for (const [body, code] of [
      [{}, "invalid_request"],
      [{ domain: "203.0.113.7" }, "invalid_domain"],
      [{ domain: "localhost" }, "invalid_domain"],
      [{ domain: "x.sites.test" }, "reserved_domain"],
      [{ domain: "www.example.com", extra: 1 }, "invalid_request"],
    ] as const) {
      const response = await call(`/app/sites/${own}/domain`, json(body, token, "PUT"));
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(await response.json()).toMatchObject({ code, error: expect.any(String) });
    }
    const bad = await (await call(`/app/sites/${own}/domain`, json({ domain: "1.2.3.4" }, token, "PUT"))).json();
    expect(bad).toMatchObject({ code: "invalid_domain", field: "domain" });
    const early = await call(`/app/sites/${own}/domain/verify`, bearer(token, "POST"));
    expect(early.status).toBe(409);
    expect(await early.json()).toMatchObject({ code: "no_domain" });

    await call(`/app/sites/${own}/domain`, json({ domain: "checks.example.com" }, token, "PUT"));
    for (const [method, path, init] of [
      ["PUT", "", json({ domain: "evil.example.com" }, otherToken, "PUT")],
      ["POST", "/verify", bearer(otherToken, "POST")],
      ["GET", "", bearer(otherToken)],
      ["DELETE", "", bearer(otherToken, "DELETE")],
    ] as const) {
      expect((await call(`/app/sites/${own}/domain${path}`, init)).status, method).toBe(404);
    }
    expect(server.reposite.domainTable.ofSite(own)?.domain).toBe("checks.example.com");
  });
});
