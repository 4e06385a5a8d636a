import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type DetailedPeerCertificate, type PeerCertificate, type TLSSocket } from "node:tls";
import { X509Certificate } from "node:crypto";
import { STORAGE, type Clock, type RecordStorage } from "@reposite/core";
import { freePort, getWithHost, startFakeGitHub, startPebble, type FakeGitHub, type Pebble } from "@reposite/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import { startServer, type RunningServer, type ServerSettings } from "../src/index.js";
import type { AcmeSettings } from "../src/tls/index.js";
import { DEFAULT_REPOS } from "./harness.js";
import { publishSite } from "./publish-site.js";

const DOMAIN = "www.rocket.example";
/** The service's own host (REPOSITE_BASE_URL's, https) and another name of the operator's (REPOSITE_ACME_HOSTNAMES): certified without any domain entry. */
const SERVICE_HOST = "reposite.example";
const OWN_HOST = "www.reposite.example";
const DAY_MS = 24 * 60 * 60 * 1000;

/** Real time moved by `offsetMs`: makes certificates look nearer their expiry without waiting. */
const shiftedClock: Clock & { offsetMs: number } = { offsetMs: 0, now: () => new Date(Date.now() + shiftedClock.offsetMs) };

let pebble: Pebble;
let github: FakeGitHub;
let dataDir: string;
let httpPort: number;
let httpsPort: number;
let trusted: string[];
let server: RunningServer | undefined;
let siteId: string;
let logged: MockInstance<typeof console.error>;

function settings(acme: Partial<AcmeSettings> = {}): ServerSettings {
  return {
    listen: { port: httpPort, hostname: "127.0.0.1" },
    https: { port: httpsPort, acme: { directoryUrl: pebble.directoryUrl, caFile: pebble.caFile, checkIntervalMs: 100, retryAfterMs: 500, hostnames: [OWN_HOST], ...acme } },
    reposite: {
      github: { apiUrl: github.url, webHosts: ["github.com"] },
      config: { dataDir, baseUrl: `https://${SERVICE_HOST}`, sitesDomain: "sites.test" },
      clock: shiftedClock,
    },
  };
}

async function restart(acme: Partial<AcmeSettings> = {}): Promise<RunningServer> {
  await server?.close();
  server = await startServer({ settings: settings(acme) });
  // Until the domains service keeps the table in storage, the test puts the entry back as it would.
  server.reposite.domainTable.set({ domain: DOMAIN, siteId, slug: "rocket", verified: true });
  return server;
}

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A GET over HTTPS to 127.0.0.1 with `servername` as SNI and Host, trusting pebble's root only. */
function httpsGet(servername: string, path = "/"): Promise<{ status: number; body: string; peer: DetailedPeerCertificate }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: "127.0.0.1", port: httpsPort, path, servername, headers: { host: servername }, ca: trusted, agent: false },
      (res) => {
        const peer = (res.socket as TLSSocket).getPeerCertificate(true);
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, peer }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** A bare TLS handshake: resolves with the certificate served, rejects when the server refuses. */
function handshake(servername: string | undefined): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: httpsPort, ...(servername ? { servername } : {}), ca: trusted }, () => {
      const peer = socket.getPeerCertificate();
      socket.end();
      resolve(peer);
    });
    socket.on("error", reject);
  });
}

const storedRecord = (domain: string) => server!.reposite.container.resolve<RecordStorage>(STORAGE).getItem<Record<string, string>>(`certificates:${domain}`);

beforeAll(async () => {
  github = await startFakeGitHub({ repos: DEFAULT_REPOS });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-acme-"));
  httpPort = await freePort();
  httpsPort = await freePort();
  // Pebble validates HTTP-01 on the server's HTTP port; its DNS answers 127.0.0.1 for every name.
  pebble = await startPebble({ httpPort });
  trusted = [await pebble.root()];
  logged = vi.spyOn(console, "error");
}, 60_000);

// Every order against pebble succeeds the first time: a failed one (said on the console) fails the test.
afterEach(() => {
  expect(logged.mock.calls.map((call) => String(call[0])).filter((line) => line.includes("ordering a certificate"))).toEqual([]);
});

afterAll(async () => {
  await server?.close();
  await pebble?.close();
  await github?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("built-in ACME against pebble on loopback", () => {
  let firstSerial: string;

  it("orders a certificate for a verified domain over HTTP-01, stores its key sealed and serves it by SNI with the site", async () => {
    server = await startServer({ settings: settings() });
    expect(server.httpsUrl).toBe(`https://127.0.0.1:${httpsPort}`);
    const call = (path: string, init?: RequestInit) => fetch(`${server!.url}${path}`, init);
    const { account } = await server.reposite.accounts.findOrCreate("ada@example.com");
    const { secret } = await server.reposite.tokens.create(account.id, { name: "test", lifetime: "30d" });
    siteId = await publishSite({ call }, secret, "rocket");
    // Not verified yet: nothing is ordered, no certificate is served.
    server.reposite.domainTable.set({ domain: DOMAIN, siteId, slug: "rocket", verified: false });
    await server.certificates!.check();
    expect(server.certificates!.forName(DOMAIN)).toBeUndefined();
    await expect(handshake(DOMAIN)).rejects.toThrow();

    server.reposite.domainTable.set({ domain: DOMAIN, siteId, slug: "rocket", verified: true });
    const certificate = await until(() => server!.certificates!.forName(DOMAIN), "the certificate from pebble");
    firstSerial = certificate.serial;

    // Stored with the key sealed: neither the record nor its file holds a private key in clear.
    const record = await storedRecord(DOMAIN);
    expect(record).toMatchObject({ domain: DOMAIN, serial: firstSerial, chain_pem: expect.stringContaining("BEGIN CERTIFICATE") });
    expect(record!.key_sealed).toBeTruthy();
    const file = await readFile(join(dataDir, "records", "certificates", DOMAIN), "utf8");
    expect(file).not.toMatch(/PRIVATE KEY/);
    expect(file).not.toContain(certificate.keyPem.split("\n")[1]);

    // Served by SNI, signed by pebble's intermediate, trusted through its root; the site answers.
    const page = await httpsGet(DOMAIN);
    expect(page.status).toBe(200);
    expect(page.peer.subjectaltname).toBe(`DNS:${DOMAIN}`);
    expect(page.peer.serialNumber).toBe(firstSerial);
    const intermediate = new X509Certificate(await pebble.intermediate());
    expect(page.peer.issuerCertificate.fingerprint256).toBe(intermediate.fingerprint256);
    expect(page.body).toBe((await getWithHost(`${server.url}/`, DOMAIN)).body);
    expect(page.body).toContain("<html");

    // The service's own host and the operator's other name got one too, without any domain entry.
    for (const name of [SERVICE_HOST, OWN_HOST]) {
      const own = await until(() => server!.certificates!.forName(name), `the certificate of ${name}`);
      expect((await handshake(name)).serialNumber).toBe(own.serial);
    }
  }, 60_000);

  it("refuses the handshake for an unknown name, an unverified one and one without SNI (no default certificate)", async () => {
    await expect(handshake("unknown.example")).rejects.toThrow();
    server!.reposite.domainTable.set({ domain: "www.comet.example", siteId: "someone-else", slug: "comet", verified: false });
    await expect(handshake("www.comet.example")).rejects.toThrow();
    await expect(handshake(undefined)).rejects.toThrow();
    // The verified name still works on the same listener.
    expect((await handshake(DOMAIN)).serialNumber).toBe(firstSerial);
  });

  it("answers the challenge route on any host before host routing, from memory", async () => {
    await server!.certificates!.challenges.put("tok_en-1", "tok_en-1.thumbprint");
    for (const host of [DOMAIN, "rocket.sites.test", "127.0.0.1"]) {
      expect(await getWithHost(`${server!.url}/.well-known/acme-challenge/tok_en-1`, host)).toEqual({ status: 200, body: "tok_en-1.thumbprint" });
    }
    await server!.certificates!.challenges.remove("tok_en-1");
    const gone = await getWithHost(`${server!.url}/.well-known/acme-challenge/tok_en-1`, DOMAIN);
    expect(gone.status).toBe(404);
  });

  it("serves the stored certificate after a restart without asking the CA", async () => {
    // A directory that counts every request: the restarted server must not call it.
    const asked: string[] = [];
    const directory: HttpServer = createHttpServer((req, res) => {
      asked.push(req.url ?? "");
      res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => directory.listen(0, "127.0.0.1", resolve));
    const port = (directory.address() as { port: number }).port;
    try {
      const restarted = await restart({ directoryUrl: `http://127.0.0.1:${port}/dir`, caFile: undefined });
      expect(restarted.certificates!.forName(DOMAIN)?.serial).toBe(firstSerial);
      expect((await httpsGet(DOMAIN)).peer.serialNumber).toBe(firstSerial);
      await new Promise((resolve) => setTimeout(resolve, 400));
      await restarted.certificates!.check();
      expect(asked).toEqual([]);
    } finally {
      await new Promise((resolve) => directory.close(resolve));
    }
  }, 30_000);

  it("renews a certificate on the timer once fewer than 30 days remain (new serial, stored), not before", async () => {
    const restarted = await restart();
    // 90-day certificates with ~90 days left: several checks go by without an order.
    await new Promise((resolve) => setTimeout(resolve, 400));
    await restarted.certificates!.check();
    expect(restarted.certificates!.forName(DOMAIN)?.serial).toBe(firstSerial);

    shiftedClock.offsetMs = 61 * DAY_MS;
    const renewed = await until(() => {
      const now = restarted.certificates!.forName(DOMAIN);
      return now && now.serial !== firstSerial ? now : undefined;
    }, "the renewal");
    shiftedClock.offsetMs = 0;
    await restarted.certificates!.check();
    const current = restarted.certificates!.forName(DOMAIN)!;
    expect(Date.parse(renewed.expiresAt)).toBeGreaterThan(Date.now() + 80 * DAY_MS);
    expect((await storedRecord(DOMAIN))!.serial).toBe(current.serial);
    expect((await httpsGet(DOMAIN)).peer.serialNumber).toBe(current.serial);
  }, 60_000);

  it("forgets a removed domain's certificate: no handshake, no stored record", async () => {
    server!.reposite.domainTable.deleteSite(siteId);
    expect(server!.certificates!.forName(DOMAIN)).toBeUndefined();
    await expect(handshake(DOMAIN)).rejects.toThrow();
    await expect.poll(() => storedRecord(DOMAIN)).toBeNull();
  });
});
