import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { getWithHost, startCaddy, startFakeGitHub, type FakeGitHub, type RunningCaddy } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../src/start-server.js";
import { DEFAULT_REPOS } from "./harness.js";
import { publishSite } from "./publish-site.js";

const DOCUMENTED_CADDYFILE = fileURLToPath(new URL("../../../docs/deploy/Caddyfile", import.meta.url));
const caddyBinary = process.env.CADDY_PATH || "caddy";

describe("the documented Caddyfile (docs/deploy/Caddyfile)", () => {
  it("is valid for Debian's caddy: on-demand TLS behind /tls/ask, the API host and a catch-all proxied to Reposite", async () => {
    const { stdout } = await promisify(execFile)(caddyBinary, ["adapt", "--config", DOCUMENTED_CADDYFILE, "--adapter", "caddyfile"]);
    const config = JSON.parse(stdout);
    const automation = config.apps.tls.automation;
    expect(automation.on_demand).toEqual({ ask: "http://127.0.0.1:3000/tls/ask" });
    // The API's host has its own certificate; every other name is on demand.
    expect(automation.policies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ subjects: ["reposite.example.com"] }),
        expect.objectContaining({ on_demand: true }),
      ]),
    );
    expect(automation.policies.find((policy: { on_demand?: boolean }) => policy.on_demand).subjects).toBeUndefined();
    const server = Object.values(config.apps.http.servers)[0] as { listen: string[]; routes: unknown[] };
    expect(server.listen).toEqual([":443"]);
    // Both sites proxy to Reposite, and nothing rewrites Host on the way.
    const text = JSON.stringify(server.routes);
    expect(text.match(/"dial":"127\.0\.0\.1:3000"/g)).toHaveLength(2);
    expect(text).not.toContain("header_up");
  });
});

describe("startCaddy (test-support)", () => {
  it("fails with a message that says what to install when there is no caddy binary", async () => {
    await expect(startCaddy({ askUrl: "http://127.0.0.1:9/tls/ask", upstream: "127.0.0.1:9", binary: "/nonexistent/caddy" })).rejects.toThrow(
      /caddy did not start: could not start \/nonexistent\/caddy.*install Debian's caddy/,
    );
  });
});

describe("HTTPS through Caddy with on-demand certificates from its internal CA", () => {
  let github: FakeGitHub;
  let dataDir: string;
  let server: RunningServer;
  let caddy: RunningCaddy;
  let rocketPage: string;

  beforeAll(async () => {
    github = await startFakeGitHub({ repos: DEFAULT_REPOS });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-caddy-test-"));
    // As docs/deploy/caddy.md runs it: on loopback, trusting the proxy's X-Forwarded-*.
    server = await startServer({
      settings: {
        listen: { port: 0, hostname: "127.0.0.1" },
        trustProxy: true,
        reposite: {
          github: { apiUrl: github.url, webHosts: ["github.com"] },
          config: { dataDir, baseUrl: "https://reposite.test", sitesDomain: "sites.test" },
        },
      },
    });
    const call = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);
    const { account } = await server.reposite.accounts.findOrCreate("ada@example.com");
    const { secret } = await server.reposite.tokens.create(account.id, { name: "test", lifetime: "30d" });
    const rocket = await publishSite({ call }, secret, "rocket");
    const comet = await publishSite({ call }, secret, "comet");
    server.reposite.domainTable.set({ domain: "www.rocket.example", siteId: rocket, slug: "rocket", verified: true });
    server.reposite.domainTable.set({ domain: "www.comet.example", siteId: comet, slug: "comet", verified: false });
    rocketPage = (await getWithHost(`${server.url}/`, "rocket.sites.test")).body;
    expect(rocketPage).toContain("<html");

    const upstream = new URL(server.url).host;
    caddy = await startCaddy({ askUrl: `${server.url}/tls/ask`, upstream });
  });
  afterAll(async () => {
    await caddy?.close();
    await server?.close();
    await github?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** The names a certificate covers, from node's `subjectaltname` ("DNS:a, DNS:b"). */
  const names = (altNames: string | undefined) => (altNames ?? "").split(", ").map((name) => name.replace(/^DNS:/, ""));

  it("issues a certificate for a verified custom domain during the handshake and serves its site", async () => {
    const answer = await caddy.get("www.rocket.example");
    expect(names(answer.certificate.subjectaltname)).toEqual(["www.rocket.example"]);
    expect(answer.certificate.issuer.CN).toContain("Caddy Local Authority");
    expect(answer.status).toBe(200);
    // The published site's landing page, reached by its Host through Caddy.
    const title = /<title>([^<]*)<\/title>/.exec(rocketPage)![1]!;
    expect(answer.body).toContain(`<title>${title}</title>`);
    expect(caddy.log()).toMatch(/certificate obtained successfully.*www\.rocket\.example/);
  });

  it("issues one for a published site's address too, and serves the same page as Reposite does directly", async () => {
    const answer = await caddy.get("rocket.sites.test");
    expect(names(answer.certificate.subjectaltname)).toEqual(["rocket.sites.test"]);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(rocketPage);
  });

  it("refuses the handshake for an unknown name, an unpublished address and a domain not yet verified", async () => {
    for (const name of ["unknown.example", "nobody-here.sites.test", "www.comet.example"]) {
      await expect(caddy.get(name), name).rejects.toThrow(/alert|EPROTO|socket hang up|ECONNRESET/i);
    }
    expect(caddy.log()).not.toMatch(/certificate obtained successfully.*(unknown\.example|nobody-here|www\.comet\.example)/);
  });

  it("issues the certificate once the domain is verified, without reloading Caddy", async () => {
    await expect(caddy.get("www.comet.example")).rejects.toThrow();
    const comet = server.reposite.domainTable.get("www.comet.example")!;
    server.reposite.domainTable.set({ ...comet, verified: true });
    const answer = await caddy.get("www.comet.example");
    expect(names(answer.certificate.subjectaltname)).toEqual(["www.comet.example"]);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain("<html");
  });

  it("redirects plain HTTP to HTTPS on its HTTP port", async () => {
    const answer = await new Promise<{ status: number; location?: string }>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: caddy.httpPort, path: "/about", headers: { host: "www.rocket.example" } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: res.headers.location });
      });
      req.on("error", reject);
      req.end();
    });
    expect(answer.status).toBe(308);
    expect(answer.location).toMatch(/^https:\/\/www\.rocket\.example(:\d+)?\/about$/);
  });
});
