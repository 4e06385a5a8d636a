import { randomBytes, X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { freePort, startDnsServer, startFakeGitHub, startPebble, type DnsServer, type FakeGitHub, type Pebble } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_REPOS, json } from "../harness.js";
import { startServerProcess, type ServerProcess } from "../server-process.js";
import type { PeerCertificate } from "node:tls";
import { handshake, startEdgeProcess, tlsToolsHere, type EdgeProcess } from "./edge-test-tools.js";

// Built-in ACME with `reposite edge` on another machine: the control plane (`reposite serve` with
// REPOSITE_EDGE_TOKEN and REPOSITE_HTTPS_PORT) orders a verified custom domain's certificate from
// Debian's pebble, whose HTTP-01 request comes in through the edge's nginx (pebble only knows the
// edge's port); the edge fetches the key and chain over the feed with its edge token and its nginx
// serves them by SNI, on after a restart with the control plane down, and again after a renewal.

const DOMAIN = "www.rocket-remote-tls.example";
const toolsHere = await tlsToolsHere();

describe.runIf(toolsHere)("reposite edge with the control plane's built-in ACME, in real processes", () => {
  const edgeToken = randomBytes(24).toString("hex");
  let pebble: Pebble;
  let dns: DnsServer;
  let github: FakeGitHub;
  let dataDir: string;
  let edgeDir: string;
  let cpPort: number;
  let edgePort: number;
  let edgeHttpsPort: number;
  let cpEnv: Record<string, string>;
  let cp: ServerProcess;
  let edge: EdgeProcess;
  let token: string;
  const pemFile = () => join(edgeDir, "edge", "certs", `${DOMAIN}.pem`);

  const api = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`http://127.0.0.1:${cpPort}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  /** The serial the control plane's feed lists for DOMAIN now (undefined while there is none). */
  const listedSerial = async () => {
    const response = await fetch(`http://127.0.0.1:${cpPort}/edge/routes`, { headers: { authorization: `Bearer ${edgeToken}` } });
    const feed = (await response.json()) as { certificates: { name: string; version: string }[] };
    return feed.certificates.find((certificate) => certificate.name === DOMAIN)?.version;
  };
  /** Waits until the edge's nginx completes a handshake for DOMAIN with the certificate whose serial `serial()` says. */
  const servedByEdge = async (serial: () => Promise<string | undefined>) => {
    let served: PeerCertificate | Error | undefined;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      served = await handshake(edgeHttpsPort, DOMAIN);
      const wanted = await serial();
      if (!(served instanceof Error) && wanted && served.serialNumber.toUpperCase() === wanted.toUpperCase()) return served;
    }
    throw new Error(`the edge did not serve the wanted serial for ${DOMAIN}: ${served instanceof Error ? served.message : served?.serialNumber}\n${edge.output()}`);
  };
  const startControlPlane = async (env: Record<string, string> = {}) => (cp = await startServerProcess(cpPort, { ...cpEnv, ...env }));

  beforeAll(async () => {
    const ports = new Set<number>();
    while (ports.size < 4) ports.add(await freePort());
    let cpHttpsPort: number;
    [cpPort, edgePort, edgeHttpsPort, cpHttpsPort] = [...ports] as [number, number, number, number];
    // pebble validates HTTP-01 on the edge's port only: the challenge must come in through the edge.
    pebble = await startPebble({ httpPort: edgePort });
    dns = await startDnsServer({ cname: { [DOMAIN]: "rocket.sites.test" }, a: { "rocket.sites.test": ["127.0.0.1"] } });
    github = await startFakeGitHub({ repos: DEFAULT_REPOS });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-cp-tls-"));
    edgeDir = await mkdtemp(join(tmpdir(), "reposite-remote-edge-tls-"));
    const setup = createReposite({ config: { dataDir }, repoHosts: [] });
    const { account } = await setup.accounts.findOrCreate("owner-remote-tls@example.com");
    token = (await setup.tokens.create(account.id, { name: "tls", lifetime: "30d" })).secret;
    await setup.close();
    cpEnv = {
      REPOSITE_HOSTING: "off",
      REPOSITE_DATA_DIR: dataDir,
      REPOSITE_BASE_URL: `http://127.0.0.1:${cpPort}`,
      REPOSITE_SITES_DOMAIN: "sites.test",
      REPOSITE_PUBLIC_IPV4: "127.0.0.1",
      REPOSITE_DNS_SERVERS: dns.address,
      REPOSITE_GITHUB_API_URL: github.url,
      REPOSITE_HTTPS_PORT: String(cpHttpsPort),
      REPOSITE_ACME_DIRECTORY_URL: pebble.directoryUrl,
      REPOSITE_ACME_CA_FILE: pebble.caFile,
      REPOSITE_EDGE_TOKEN: edgeToken,
      REPOSITE_TRUST_PROXY: "1",
    };
    await startControlPlane();
    edge = await startEdgeProcess({ PORT: String(edgePort), REPOSITE_HTTPS_PORT: String(edgeHttpsPort), REPOSITE_DATA_DIR: edgeDir, REPOSITE_CONTROL_PLANES: `http://127.0.0.1:${cpPort}`, REPOSITE_EDGE_TOKEN: edgeToken });
    const site = await api("/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli", name: "Rocket" }));
    await api(`/app/sites/${site.id as string}/domain`, json({ domain: DOMAIN }, undefined, "PUT"));
    expect(await api(`/app/sites/${site.id as string}/domain/verify`, { method: "POST" })).toMatchObject({ verified: true });
  }, 120_000);

  afterAll(async () => {
    if (edge && edge.child.exitCode === null) await edge.stop();
    if (cp && cp.child.exitCode === null) await cp.stop();
    await pebble?.close();
    await dns?.close();
    await github?.close();
    for (const dir of [dataDir, edgeDir]) if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  let firstSerial: string;

  it("orders the certificate through a challenge that came in through the edge, and the edge serves it by SNI", async () => {
    // Ordered only once pebble reached the control plane's challenge answer through the edge's nginx.
    await expect.poll(listedSerial, { timeout: 30_000, interval: 250 }).toBeTruthy();
    firstSerial = (await listedSerial())!;
    const served = await servedByEdge(async () => firstSerial);
    expect(served.subjectaltname).toBe(`DNS:${DOMAIN}`);
    const intermediate = new X509Certificate(await pebble.intermediate());
    expect(served.issuer.CN).toBe(intermediate.subject.match(/CN=(.*)/)![1]);
    // Written on the edge's own disk: key then chain, for nginx's workers only.
    expect((await stat(pemFile())).mode & 0o777).toBe(0o600);
    const pem = await readFile(pemFile(), "utf8");
    expect(pem.indexOf("PRIVATE KEY-----")).toBeLessThan(pem.indexOf("-----BEGIN CERTIFICATE-----"));
    // A name without a certificate gets none (no other name's certificate is shown).
    expect(await handshake(edgeHttpsPort, "unknown.rocket-remote-tls.example")).toBeInstanceOf(Error);
  }, 60_000);

  it("hands a certificate's key to the edge token only: 401 without a token and with a person's token, never cached, never logged", async () => {
    const url = `http://127.0.0.1:${cpPort}/edge/certificates/${DOMAIN}`;
    const none = await fetch(url);
    expect(none.status).toBe(401);
    expect(await none.text()).not.toContain("PRIVATE KEY");
    const person = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(person.status).toBe(401);
    expect(await person.text()).not.toContain("PRIVATE KEY");

    const given = await fetch(url, { headers: { authorization: `Bearer ${edgeToken}` } });
    expect(given.status).toBe(200);
    expect(given.headers.get("cache-control")).toBe("no-store");
    const body = (await given.json()) as { name: string; version: string; key_pem: string; chain_pem: string };
    expect(body).toMatchObject({ name: DOMAIN, version: firstSerial });
    expect(body.key_pem).toContain("PRIVATE KEY-----");
    expect(new X509Certificate(body.chain_pem).checkHost(DOMAIN)).toBe(DOMAIN);

    const unknown = await fetch(`http://127.0.0.1:${cpPort}/edge/certificates/unknown.example`, { headers: { authorization: `Bearer ${edgeToken}` } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: "not_found" });
    const bad = await fetch(`http://127.0.0.1:${cpPort}/edge/certificates/..%2Fetc`, { headers: { authorization: `Bearer ${edgeToken}` } });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ code: "invalid_request" });

    const logs = `${cp.output().stdout}${cp.output().stderr}${edge.output()}`;
    expect(logs).not.toContain("PRIVATE KEY");
    expect(logs).not.toContain(edgeToken);
  }, 30_000);

  it("a restarted edge serves the certificate it has while the control plane is down, and picks up the renewal once it is back", async () => {
    await cp.stop();
    await edge.kill();
    edge = await startEdgeProcess({ PORT: String(edgePort), REPOSITE_HTTPS_PORT: String(edgeHttpsPort), REPOSITE_DATA_DIR: edgeDir, REPOSITE_CONTROL_PLANES: `http://127.0.0.1:${cpPort}`, REPOSITE_EDGE_TOKEN: edgeToken });
    const kept = await servedByEdge(async () => firstSerial);
    expect(kept.subjectaltname).toBe(`DNS:${DOMAIN}`);

    // Back with a renewal window longer than pebble's 90 days: the stored certificate is renewed at
    // start, its challenge again through the edge, and the edge follows the new serial.
    await startControlPlane({ REPOSITE_ACME_RENEW_DAYS: "100" });
    await expect.poll(async () => (await listedSerial().catch(() => firstSerial)) !== firstSerial, { timeout: 30_000, interval: 250 }).toBe(true);
    const renewed = await servedByEdge(listedSerial);
    expect(renewed.serialNumber).not.toBe(kept.serialNumber);
    expect(renewed.subjectaltname).toBe(`DNS:${DOMAIN}`);
  }, 90_000);
});
