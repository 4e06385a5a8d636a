import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createReposite, LiveCheck, type DnsResolver, type Reposite } from "../../src/index.js";

const TOKEN = "dom_live";
const PROOF = `reposite-verification=${TOKEN}`;

/** DNS as a table: name -> IPv4 addresses. */
const table: Record<string, string[]> = {};
const resolver: DnsResolver = {
  resolveCname: async () => [],
  resolve4: async (name) => table[name] ?? [],
  resolve6: async () => [],
  resolveTxt: async () => [],
};

let dir: string;
let reposite: Reposite;
let check: LiveCheck;
const clock = { time: Date.parse("2026-05-01T10:00:00Z"), now: () => new Date(clock.time) };
/** What each server answers at the proof path, and the Host / SNI it was asked with. */
const answers = { http: PROOF, https: PROOF };
const seen: { scheme: string; host: string | undefined; servername?: string | false }[] = [];
let httpServer: ReturnType<typeof createHttpServer>;
let httpsServer: ReturnType<typeof createHttpsServer>;

const handler = (scheme: "http" | "https") => (req: IncomingMessage, res: ServerResponse) => {
  seen.push({ scheme, host: req.headers.host, ...(scheme === "https" ? { servername: (req.socket as unknown as { servername?: string | false }).servername } : {}) });
  if (req.url !== "/.well-known/reposite-domain") {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": "text/plain" }).end(answers[scheme]);
};

const listen = (server: ReturnType<typeof createHttpServer>) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "reposite-live-"));
  // A CA and a certificate for www.live-app.com signed by it: the live check trusts the CA through `liveCa`.
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
  run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Live Test CA");
  run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "site.key", "-out", "site.csr", "-subj", "/CN=www.live-app.com");
  await writeFile(join(dir, "ext.cnf"), "subjectAltName=DNS:www.live-app.com\n");
  run("x509", "-req", "-in", "site.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "site.pem", "-days", "2", "-extfile", "ext.cnf");
  httpServer = createHttpServer(handler("http"));
  httpsServer = createHttpsServer({ key: await readFile(join(dir, "site.key")), cert: await readFile(join(dir, "site.pem")) }, handler("https"));
  const [httpPort, httpsPort] = await Promise.all([listen(httpServer), listen(httpsServer as unknown as ReturnType<typeof createHttpServer>)]);
  reposite = createReposite({
    storage: createStorage(),
    clock,
    dns: resolver,
    config: { dataDir: dir, baseUrl: "https://reposite.example", sitesDomain: "sites.example", publicIpv4: "127.0.0.1" },
    domains: { liveHttpsPort: httpsPort, liveHttpPort: httpPort, liveCa: await readFile(join(dir, "ca.pem"), "utf8"), liveCacheMs: 30_000, liveTimeoutMs: 2_000 },
  });
  check = reposite.container.resolve(LiveCheck);
});
afterAll(async () => {
  await reposite?.close();
  httpServer?.close();
  httpsServer?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("asks over HTTPS first (SNI and certificate of the domain), keeps the answer briefly, then asks again", async () => {
  table["www.live-app.com"] = ["127.0.0.1"];
  const target = { domain: "www.live-app.com", token: TOKEN, siteHost: "live.sites.example" };
  const port = (httpsServer.address() as AddressInfo).port;
  await expect(check.check(target)).resolves.toEqual({ live: true, url: `https://www.live-app.com:${port}/`, reason: null });
  expect(seen.at(-1)).toEqual({ scheme: "https", host: "www.live-app.com", servername: "www.live-app.com" });

  // Kept: the server now answers something else, the check does not ask yet.
  answers.https = "reposite-verification=another";
  answers.http = "reposite-verification=another";
  const asked = seen.length;
  await expect(check.check(target)).resolves.toMatchObject({ live: true });
  expect(seen.length).toBe(asked);

  clock.time += 30_000;
  const later = await check.check(target);
  expect(later).toMatchObject({ live: false, url: null });
  expect(later.reason).toContain("does not answer as this project's site");
  expect(seen.length).toBe(asked + 2);
  answers.https = PROOF;
  answers.http = PROOF;
});

it("falls back to HTTP when HTTPS has no certificate for the name", async () => {
  table["plain.live-app.com"] = ["127.0.0.1"];
  const port = (httpServer.address() as AddressInfo).port;
  const answer = await check.check({ domain: "plain.live-app.com", token: TOKEN, siteHost: "live.sites.example" });
  expect(answer).toEqual({ live: true, url: `http://plain.live-app.com:${port}/`, reason: null });
  expect(seen.at(-1)).toEqual({ scheme: "http", host: "plain.live-app.com" });
});

it("never connects to an address that is not this service's", async () => {
  table["elsewhere.live-app.com"] = ["127.0.0.2"];
  const asked = seen.length;
  const answer = await check.check({ domain: "elsewhere.live-app.com", token: TOKEN, siteHost: "live.sites.example" });
  expect(answer).toEqual({ live: false, url: null, reason: "elsewhere.live-app.com points to 127.0.0.2, which is not this service." });
  // Where the project's own address resolves counts as this service's.
  table["live.sites.example"] = ["127.0.0.2"];
  check.forget("elsewhere.live-app.com");
  const viaSites = await check.check({ domain: "elsewhere.live-app.com", token: TOKEN, siteHost: "live.sites.example" });
  expect(viaSites.reason).toContain("does not answer");
  expect(seen.length).toBe(asked);
  await expect(check.check({ domain: "nothing.live-app.com", token: TOKEN, siteHost: "live.sites.example" })).resolves.toMatchObject({ live: false, reason: "nothing.live-app.com has no address in DNS." });
});
