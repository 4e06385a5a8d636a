import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite, DOMAIN_PROOF_PATH, type DnsResolver, type Reposite } from "@reposite/core";
import { codeTestHost, freePort } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunningServer } from "../src/start-server.js";
import { byNginxAlone, SHAPES, startServerIn } from "./edge-shapes.js";

// The whole path of a domain through the domains service, on the reference server: connected,
// verified (DNS answered by a stub that points everything at 127.0.0.1), then `live` because the
// server answers the domain's proof at DOMAIN_PROOF_PATH with the domain as Host, even for a
// project that published nothing yet (routes/domain.ts answers it ahead of the site runtime);
// removed, it answers nothing. Both shapes: Reposite alone, and REPOSITE_EDGE=nginx in front.

const DOMAIN = "www.lumen.dev";

function get(port: number, path: string, host: string): Promise<{ status: number; text: string; cacheControl?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, headers: { host }, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, cacheControl: res.headers["cache-control"] }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** DNS as an owner who followed the records would have it: the domain a CNAME to the project's address, which is this loopback server. */
const dns: DnsResolver = {
  resolveCname: async (name) => {
    const project = /^www\.([a-z]+)\.dev$/.exec(name)?.[1];
    return project ? [`${project}.sites.test`] : [];
  },
  resolve4: async (name) => (name.endsWith(".dev") || name.endsWith(".sites.test") ? ["127.0.0.1"] : []),
  resolve6: async () => [],
  resolveTxt: async () => [],
};

describe.each(SHAPES)("a custom domain through the domains service: live, and the pages follow (edge: %s)", (shape) => {
  let server: RunningServer;
  let reposite: Reposite;
  let dataDir: string;
  let port: number;
  let ownerId: string;
  let siteId: string;

  beforeAll(async () => {
    port = await freePort();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-domain-proof-"));
    reposite = createReposite({
      repoHosts: [codeTestHost],
      config: { dataDir, baseUrl: "https://reposite.test", sitesDomain: "sites.test" },
      dns,
      // Visitors reach this server over plain HTTP on its test port.
      domains: { liveHttpsPort: null, liveHttpPort: port, liveCacheMs: 0 },
    });
    server = await startServerIn(shape, reposite, port);
    ownerId = (await reposite.accounts.findOrCreate("owner@example.com")).account.id;
    siteId = (await reposite.projects.create(ownerId, { repohost_url: "https://code.test/acme/lumen" })).id;
  });
  afterAll(async () => {
    await server?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("is served only while the domain is verified, and makes GET …/domain live; nothing of it on other hosts", async () => {
    const view = await reposite.domains.set(ownerId, siteId, { domain: DOMAIN });
    expect(view.verified).toBe(false);
    // Connected, not verified: the domain is not the project's yet.
    expect((await get(port, DOMAIN_PROOF_PATH, DOMAIN)).text).not.toContain("reposite-verification=");
    expect((await reposite.domains.get(ownerId, siteId)).live).toBe(false);

    expect((await reposite.domains.verify(ownerId, siteId)).verified).toBe(true);
    const proof = await get(port, DOMAIN_PROOF_PATH, DOMAIN);
    expect(proof.status).toBe(200);
    expect(proof.text.trim()).toMatch(/^reposite-verification=\S+$/);
    expect(proof.cacheControl).toBe("no-store");
    // The project's own address and the service have no proof to give.
    expect((await get(port, DOMAIN_PROOF_PATH, "lumen.sites.test")).text).not.toContain("reposite-verification=");
    expect((await get(port, DOMAIN_PROOF_PATH, "reposite.test")).text).not.toContain("reposite-verification=");

    const read = await reposite.domains.get(ownerId, siteId);
    expect(read.live, read.live_reason ?? "").toBe(true);
    expect(read.live_url).toBe(`http://${DOMAIN}:${port}/`);

    await reposite.domains.remove(ownerId, siteId);
    expect((await get(port, DOMAIN_PROOF_PATH, DOMAIN)).text).not.toContain("reposite-verification=");
  });

  it("verified and removed through the domains service, the published pages follow without a publish", async () => {
    const ledger = (await reposite.projects.create(ownerId, { repohost_url: "https://code.test/acme/ledger" })).id;
    await reposite.pageVersions.addCustom(ownerId, ledger, { kind: "template", html: "<!doctype html><html><head><title>Ledger</title></head><body><h1>Ledger</h1></body></html>", name: "landing" });
    await reposite.publishing.publish(ownerId, ledger, {});
    const canonical = async (host: string) => /<link rel="canonical" href="([^"]+)">/.exec((await get(port, "/", host)).text)?.[1];
    /** With the edge: once nginx serves `host`'s pages from its files by itself (or no longer does). */
    const nginxServes = async (host: string, serves = true) => {
      if (shape === "nginx") await vi.waitFor(async () => expect(await byNginxAlone(server, () => get(port, "/", host))).toBe(serves), { timeout: 10_000, interval: 50 });
    };
    await nginxServes("ledger.sites.test");
    expect(await canonical("ledger.sites.test")).toBe("https://ledger.sites.test/");

    await reposite.domains.set(ownerId, ledger, { domain: "www.ledger.dev" });
    expect(await canonical("www.ledger.dev")).toBeUndefined(); // not verified: not the site
    await reposite.domains.verify(ownerId, ledger);
    await nginxServes("www.ledger.dev");
    expect(await canonical("www.ledger.dev")).toBe("https://www.ledger.dev/");
    expect(await canonical("ledger.sites.test")).toBe("https://www.ledger.dev/");
    expect((await reposite.domains.get(ownerId, ledger)).live).toBe(true);

    await reposite.domains.remove(ownerId, ledger);
    await nginxServes("www.ledger.dev", false);
    expect(await canonical("www.ledger.dev")).toBeUndefined();
    expect(await canonical("ledger.sites.test")).toBe("https://ledger.sites.test/");
  });
});
