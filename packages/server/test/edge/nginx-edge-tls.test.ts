import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { freePort, startDnsServer, startFakeGitHub, startPebble, type DnsServer, type FakeGitHub, type Pebble } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_REPOS, json } from "../harness.js";
import { startServerProcess, type ServerProcess } from "../server-process.js";
import { handshake, tlsToolsHere } from "./edge-test-tools.js";

// `reposite serve` with REPOSITE_EDGE=nginx and built-in ACME, in its own process, against Debian's
// pebble: the custom domain's certificate is ordered through nginx (HTTP-01 on PORT), written for
// nginx, and served by nginx itself on the HTTPS port (proved with Node frozen by SIGSTOP).

const DOMAIN = "www.rocket-tls.example";
const toolsHere = await tlsToolsHere();

describe.runIf(toolsHere)("REPOSITE_EDGE=nginx with built-in ACME, in a real server process", () => {
  let pebble: Pebble;
  let dns: DnsServer;
  let github: FakeGitHub;
  let dataDir: string;
  let port: number;
  let httpsPort: number;
  let server: ServerProcess;
  let token: string;

  const api = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };

  beforeAll(async () => {
    port = await freePort();
    do httpsPort = await freePort();
    while (httpsPort === port);
    pebble = await startPebble({ httpPort: port });
    dns = await startDnsServer({ cname: { [DOMAIN]: "rocket.sites.test" }, a: { "rocket.sites.test": ["127.0.0.1"] } });
    github = await startFakeGitHub({ repos: DEFAULT_REPOS });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-edge-tls-"));
    const setup = createReposite({ config: { dataDir }, repoHosts: [] });
    const { account } = await setup.accounts.findOrCreate("owner-tls@example.com");
    token = (await setup.tokens.create(account.id, { name: "tls", lifetime: "30d" })).secret;
    await setup.close();
    server = await startServerProcess(port, {
      REPOSITE_EDGE: "nginx",
      REPOSITE_HOSTING: "off",
      REPOSITE_DATA_DIR: dataDir,
      REPOSITE_BASE_URL: `http://127.0.0.1:${port}`,
      REPOSITE_SITES_DOMAIN: "sites.test",
      REPOSITE_PUBLIC_IPV4: "127.0.0.1",
      REPOSITE_DNS_SERVERS: dns.address,
      REPOSITE_GITHUB_API_URL: github.url,
      REPOSITE_HTTPS_PORT: String(httpsPort),
      REPOSITE_ACME_DIRECTORY_URL: pebble.directoryUrl,
      REPOSITE_ACME_CA_FILE: pebble.caFile,
    });
    const site = await api("/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli", name: "Rocket" }));
    await api(`/app/sites/${site.id as string}/domain`, json({ domain: DOMAIN }, undefined, "PUT"));
    expect(await api(`/app/sites/${site.id as string}/domain/verify`, { method: "POST" })).toMatchObject({ verified: true });
  }, 120_000);

  afterAll(async () => {
    if (server?.child.signalCode === "SIGSTOP") server.child.kill("SIGCONT");
    if (server && server.child.exitCode === null) await server.stop();
    await pebble?.close();
    await dns?.close();
    await github?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("orders the verified domain's certificate through nginx (HTTP-01 on PORT), writes it for nginx, and nginx serves it on the HTTPS port by SNI", async () => {
    expect(server.output().stdout).toMatch(new RegExp(`https://127\\.0\\.0\\.1:${httpsPort}`));
    const certs = join(dataDir, "edge", "certs");
    // pebble validated over http://DOMAIN:PORT/.well-known/acme-challenge/…, which only nginx listens on.
    await expect.poll(() => stat(join(certs, `${DOMAIN}.pem`)).then(() => true, () => false), { timeout: 30_000, interval: 200 }).toBe(true);
    expect((await stat(join(certs, `${DOMAIN}.pem`))).mode & 0o777).toBe(0o600);
    // One file: the key, then the chain (so a renewal never pairs a new key with the old certificate).
    const pem = await readFile(join(certs, `${DOMAIN}.pem`), "utf8");
    expect(pem.indexOf("PRIVATE KEY-----")).toBeLessThan(pem.indexOf("-----BEGIN CERTIFICATE-----"));
    const written = new X509Certificate(pem.slice(pem.indexOf("-----BEGIN CERTIFICATE-----")));
    const intermediate = new X509Certificate(await pebble.intermediate());
    expect(written.checkIssued(intermediate)).toBe(true);

    // Node frozen: whatever completes a handshake on the HTTPS port now is nginx.
    process.kill(server.child.pid!, "SIGSTOP");
    try {
      const served = await handshake(httpsPort, DOMAIN);
      if (served instanceof Error) throw served;
      expect(served.subjectaltname).toBe(`DNS:${DOMAIN}`);
      expect(served.fingerprint256).toBe(written.fingerprint256);
      expect(served.issuer.CN).toBe(intermediate.subject.match(/CN=(.*)/)![1]);
      // A name without a certificate gets no certificate at all: the handshake fails.
      const other = await handshake(httpsPort, "unknown.rocket-tls.example");
      expect(other).toBeInstanceOf(Error);
    } finally {
      process.kill(server.child.pid!, "SIGCONT");
    }
  }, 60_000);
});
