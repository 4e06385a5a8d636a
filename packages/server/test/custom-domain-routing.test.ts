import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppRoutes, createReposite, DeploymentStore, ProjectStore, PublishedSiteStore, STORAGE, VISIT_SETTINGS, type DeploymentRecord, type PublishedSite, type Reposite } from "@reposite/core";
import { codeTestHost, freePort } from "@reposite/test-support";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import type { RunningServer } from "../src/start-server.js";
import { byNginxAlone, countNodeRequests, freshCookie, nodeRequestsFor, SHAPES, startServerIn, type NodeRequests } from "./edge-shapes.js";
import { watchStorage } from "./storage-touches.js";

// A project's verified custom domain, on the reference server as `startServer` composes it (no
// host resolvers given: the default is `reposite.domainTable`), over a real socket. Requests go
// out with node:http, since Node's fetch drops a Host header. The domains service is driven here
// through `reposite.domainTable` directly, as it keeps that table. Both shapes run the same cases:
// Reposite alone, and REPOSITE_EDGE=nginx (pages from files and `/app/` straight to the app by nginx).

const DOMAIN = "www.lumen.dev";
const SLUG_HOST = "lumen.sites.test";
const LANDING = `<!doctype html><html><head><title>Lumen</title><meta name="description" content="Status pages"></head><body><h1>Status pages your users trust</h1>${"<p>Lumen.</p>".repeat(40)}</body></html>`;
const ABOUT = `<!doctype html><html><head><title>About Lumen</title></head><body><h1>About Lumen</h1>${"<p>About us.</p>".repeat(40)}</body></html>`;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}


function send(port: number, path: string, init: { host: string; method?: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method: init.method ?? "GET", headers: { host: init.host, ...init.headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

/** The app behind `/app/`: answers what it received; WebSockets say what their handshake carried, then echo. */
async function startStandInApp() {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
  });
  const wss = new WebSocketServer({ server });
  wss.on("connection", (socket, req) => {
    socket.send(JSON.stringify({ url: req.url, headers: req.headers }));
    socket.on("message", (data) => socket.send(`echo: ${String(data)}`));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Opened = { socket: WebSocket; first: { url: string; headers: IncomingHttpHeaders } } | { refused: number } | { failed: string };

/** A WebSocket to the server with the given Host: its first message, or how it was refused. */
function openSocket(port: number, path: string, host: string, headers: Record<string, string> = {}): Promise<Opened> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers: { host, ...headers } });
    socket.once("message", (data) => resolve({ socket, first: JSON.parse(String(data)) }));
    socket.once("unexpected-response", (_req, res) => {
      res.resume();
      resolve({ refused: res.statusCode ?? 0 });
    });
    socket.once("error", (error) => resolve({ failed: error.message }));
  });
}

const attribute = (html: string, pattern: RegExp) => pattern.exec(html)?.[1];
const canonicalOf = (html: string) => attribute(html, /<link rel="canonical" href="([^"]+)">/);

describe.each(SHAPES)("a verified custom domain on the reference server (edge: %s)", (shape) => {
  let server: RunningServer;
  let reposite: Reposite;
  let app: Awaited<ReturnType<typeof startStandInApp>>;
  let dataDir: string;
  let port: number;
  let ownerId: string;
  let siteId: string;
  let published: PublishedSite;

  const get = (path: string, host = DOMAIN, headers: Record<string, string> = {}) => send(port, path, { host, headers });
  const routes = () => reposite.container.resolve(AppRoutes);
  const running = async (id = siteId, target = app.port) => {
    routes().set(id, { status: "running", target: { host: "127.0.0.1", port: target } });
    await routes().applied(id);
  };
  /** With the edge, a change is served after nginx's next reload: waits until `check` holds (at once without it). */
  const served = async (check: () => Promise<boolean>) => {
    if (shape === "nginx") await vi.waitFor(async () => expect(await check()).toBe(true), { timeout: 10_000, interval: 50 });
  };
  /** With the edge, once nginx serves the route table as it is now (a domain change included): AppRoutes.applied waits for that reload. */
  const tableServed = () => routes().applied(siteId);
  /** nginx answered `path` on `host` by itself (to the app, or from files), without Reposite. */
  const nginxAlone = (path: string, host = DOMAIN) => byNginxAlone(server, () => get(path, host));
  const setGate = async (on: boolean) => {
    await reposite.container.resolve(ProjectStore).modify(siteId, (project) => ({ ...project, auth_redirect_to_app: on }));
    // On: Reposite's redirect to sign in (nginx asked the gate). Off: nginx went to the app without asking
    // the gate or Reposite (a cookie no decision is kept for, so the gated configuration would ask).
    const probe = () => get("/app/gate-probe", DOMAIN, { cookie: freshCookie() });
    await served(async () => (on ? (await get("/app/gate-probe")).status === 302 : Object.values(await nodeRequestsFor(server, probe)).every((count) => count === 0)));
  };
  /** The domain verified; with the edge, once nginx serves the site's pages on it. */
  const verify = async () => {
    reposite.domainTable.set({ domain: DOMAIN, siteId, slug: "lumen", verified: true });
    await tableServed();
    await served(() => nginxAlone("/"));
  };
  const storedSite = () => reposite.container.resolve(PublishedSiteStore).get("lumen");

  beforeAll(async () => {
    app = await startStandInApp();
    port = await freePort();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-custom-domain-"));
    reposite = createReposite({
      repoHosts: [codeTestHost],
      // The service and its sites on https, as in production (TLS ends at the proxy in front).
      config: { dataDir, baseUrl: "https://reposite.test", sitesDomain: "sites.test" },
      // Visits are written when a test says so, never by the timer in the middle of a storage count.
      register: (container) => container.register(VISIT_SETTINGS, { useValue: { flushMs: 3_600_000 } }),
    });
    server = await startServerIn(shape, reposite, port);
    ownerId = (await reposite.accounts.findOrCreate("owner@example.com")).account.id;
    siteId = (await reposite.projects.create(ownerId, { repohost_url: "https://code.test/acme/lumen" })).id;
    await reposite.pageVersions.addCustom(ownerId, siteId, { kind: "template", html: LANDING, name: "landing" });
    await reposite.pageVersions.addCustom(ownerId, siteId, { kind: "about", html: ABOUT, name: "about" });
    await reposite.publishing.publish(ownerId, siteId, {});
    published = (await storedSite())!;
    expect(published.url).toBe(`https://${SLUG_HOST}`);
    await served(() => nginxAlone("/", SLUG_HOST));
  });
  afterAll(async () => {
    await server?.close();
    await app?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await verify();
    await running();
    await setGate(false);
  });

  it("serves the site's pages, 404 page, sitemap, robots and preview image, with the domain as the public address", async () => {
    const landing = await get("/");
    expect(landing.status).toBe(200);
    expect(landing.text).toContain("Status pages your users trust");
    expect(canonicalOf(landing.text)).toBe(`https://${DOMAIN}/`);
    expect(attribute(landing.text, /<meta property="og:url" content="([^"]+)">/)).toBe(`https://${DOMAIN}/`);
    expect(attribute(landing.text, /<meta property="og:image" content="([^"]+)">/)).toBe(`https://${DOMAIN}/og.png`);
    expect(attribute(landing.text, /<meta name="twitter:image" content="([^"]+)">/)).toBe(`https://${DOMAIN}/og.png`);
    // Any case, a port, a trailing dot: the same host.
    for (const host of ["WWW.Lumen.DEV", `${DOMAIN}:443`, `${DOMAIN}.`]) expect(canonicalOf((await get("/about", host)).text), host).toBe(`https://${DOMAIN}/about`);

    const missing = await get("/no-such-page");
    expect(missing.status).toBe(404);
    expect(missing.text).toBe((await get("/no-such-page", SLUG_HOST)).text);
    expect(missing.text).toContain('<meta name="robots" content="noindex">');

    const sitemap = await get("/sitemap.xml");
    expect(sitemap.status).toBe(200);
    expect(sitemap.text).toContain(`<loc>https://${DOMAIN}/</loc>`);
    expect(sitemap.text).toContain(`<loc>https://${DOMAIN}/about</loc>`);
    expect(sitemap.text).not.toContain(SLUG_HOST);
    const robots = await get("/robots.txt");
    expect(robots.text).toContain(`Sitemap: https://${DOMAIN}/sitemap.xml`);

    const image = await get("/og.png");
    expect(image.status).toBe(200);
    expect(image.headers["content-type"]).toBe("image/png");
  });

  it("keeps the project's own address answering, and it names the domain as the canonical address too", async () => {
    const landing = await get("/", SLUG_HOST);
    expect(landing.status).toBe(200);
    expect(landing.text).toContain("Status pages your users trust");
    expect(canonicalOf(landing.text)).toBe(`https://${DOMAIN}/`);
    expect((await get("/robots.txt", SLUG_HOST)).text).toContain(`Sitemap: https://${DOMAIN}/sitemap.xml`);
  });

  it("does not route a domain that is not verified, nor one nobody added", async () => {
    const other = (await reposite.projects.create(ownerId, { repohost_url: "https://code.test/acme/ledger" })).id;
    reposite.domainTable.set({ domain: "ledger.dev", siteId: other, slug: "lumen", verified: false });
    try {
      for (const host of ["ledger.dev", "unknown.dev"]) {
        const page = await get("/", host);
        expect(page.text, host).not.toContain("Status pages your users trust");
        expect((await get("/robots.txt", host)).text, host).not.toContain("Sitemap:");
        expect((await get("/app/x", host)).text, host).not.toContain('"url":"/x"');
        expect("socket" in (await openSocket(port, "/app/live", host)), host).toBe(false);
      }
    } finally {
      reposite.domainTable.deleteSite(other);
    }
  });

  it("signs members in on the domain: the cookie is the domain's own, and the /app/ gate takes it", async () => {
    const origin = `https://${DOMAIN}`;
    const form = (path: string, fields: Record<string, string>, from = origin, cookie?: string) =>
      send(port, path, {
        host: DOMAIN,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: from, ...(cookie ? { cookie } : {}) },
        body: new URLSearchParams(fields).toString(),
      });

    // A form sent from the project's other address is another origin on this host.
    const crossSite = await form("/auth/sign-up", { email: "ada@example.com", password: "analytical-engine" }, `https://${SLUG_HOST}`);
    expect(crossSite.status).toBe(403);

    const signedUp = await form("/auth/sign-up", { email: "ada@example.com", password: "analytical-engine", next: "/app/" });
    expect(signedUp.status, signedUp.text).toBe(303);
    expect(signedUp.headers.location).toBe("/app/");
    const setCookie = signedUp.headers["set-cookie"]!.find((line) => line.startsWith("__Host-reposite_member="))!;
    expect(setCookie).toMatch(/; Secure/i);
    expect(setCookie).toMatch(/; HttpOnly/i);
    expect(setCookie).not.toMatch(/domain=/i);
    const cookie = setCookie.split(";")[0]!;

    const account = await get("/auth/account", DOMAIN, { cookie });
    expect(account.status).toBe(200);
    expect(account.text).toContain("ada@example.com");

    // Signing in again on the domain works the same way.
    const signedIn = await form("/auth/sign-in", { email: "ada@example.com", password: "analytical-engine" });
    expect(signedIn.status).toBe(303);

    await setGate(true);
    const gated = await get("/app/reports");
    expect(gated.status).toBe(302);
    expect(gated.headers.location).toBe(`/auth?next=${encodeURIComponent("/app/reports")}`);
    const seen = JSON.parse((await get("/app/reports", DOMAIN, { cookie })).text) as { url: string; headers: IncomingHttpHeaders };
    expect(seen.url).toBe("/reports");
    expect(seen.headers["x-reposite-member-email"]).toBe("ada@example.com");
  });

  it("proxies /app/ on the domain, HTTP and WebSocket, with the domain as the forwarded host", async () => {
    const answer = await get("/app/items?page=2");
    expect(answer.status, answer.text).toBe(200);
    if (shape === "nginx") expect(await nginxAlone("/app/items?page=2")).toBe(true);
    const seen = JSON.parse(answer.text) as { url: string; headers: IncomingHttpHeaders };
    expect(seen.url).toBe("/items?page=2");
    expect(seen.headers.host).toBe(DOMAIN);
    expect(seen.headers["x-forwarded-host"]).toBe(DOMAIN);
    expect(seen.headers["x-forwarded-prefix"]).toBe("/app");

    const opened = await openSocket(port, "/app/live?room=1", DOMAIN);
    if (!("socket" in opened)) throw new Error(`WebSocket refused: ${JSON.stringify(opened)}`);
    try {
      expect(opened.first.url).toBe("/live?room=1");
      expect(opened.first.headers["x-forwarded-host"]).toBe(DOMAIN);
      const reply = new Promise<string>((resolve) => opened.socket.once("message", (data) => resolve(String(data))));
      opened.socket.send("hello");
      expect(await reply).toBe("echo: hello");
    } finally {
      opened.socket.close();
    }
  });

  it("decides from memory on the domain: no storage read for pages, the 404 page, /app/ or a WebSocket after warm-up", async () => {
    await setGate(true);
    const members = reposite.members;
    const member = await members.register(siteId, { email: "dee@example.com", password: "analytical-engine" });
    const cookie = `__Host-reposite_member=${(await members.createSession(siteId, member.id)).secret}`;
    const storage = watchStorage(reposite.container.resolve(STORAGE));
    let requests: NodeRequests | undefined;
    try {
      // Warm-up: the site, the project (the gate) and the session are read once.
      for (const path of ["/", "/about", "/sitemap.xml", "/robots.txt", "/missing"]) await get(path);
      await get("/app/warm", DOMAIN, { cookie });
      storage.clear();
      requests = countNodeRequests(server);

      for (let i = 0; i < 10; i++) {
        expect((await get("/")).status).toBe(200);
        expect((await get("/about", DOMAIN, { "accept-encoding": "br" })).status).toBe(200);
        expect((await get("/sitemap.xml")).status).toBe(200);
        expect((await get(`/missing/${i}`)).status).toBe(404);
        expect((await get(`/app/hot/${i}`, DOMAIN, { cookie })).status).toBe(200);
        expect((await get(`/app/hot/${i}`)).status).toBe(302);
      }
      const opened = await openSocket(port, "/app/live", DOMAIN, { cookie });
      expect("socket" in opened).toBe(true);
      if ("socket" in opened) opened.socket.close();
      // With the edge, Reposite answered only the 10 redirects to sign in: pages, the 404 page, the
      // sitemap, the member's /app/ and WebSocket were nginx's (asking the gate, which keeps its decision).
      if (shape === "nginx") expect(requests.seen).toEqual(Array.from({ length: 10 }, (_, i) => `GET /app/hot/${i}`));

      expect(storage.touched()).toEqual([]);
    } finally {
      requests?.stop();
      storage.stop();
    }
  });

  it("reaches the app of a project without published pages on its domain, from memory after warm-up", async () => {
    const other = (await reposite.projects.create(ownerId, { repohost_url: "https://code.test/acme/ledger" })).id;
    // What a first deployment setup leaves: the address claimed, a deployment on the project.
    expect(await reposite.container.resolve(PublishedSiteStore).claim("ledger", other)).toBe(true);
    await reposite.container.resolve(ProjectStore).modify(other, (project) => ({ ...project, slug: "ledger" }));
    await reposite.container.resolve(DeploymentStore).modify(other, () => ({ status: "running" }) as DeploymentRecord);
    const ledger = await startStandInApp();
    await running(other, ledger.port);
    reposite.domainTable.set({ domain: "ledger.dev", siteId: other, slug: "ledger", verified: true });
    await served(() => nginxAlone("/app/first", "ledger.dev"));
    const storage = watchStorage(reposite.container.resolve(STORAGE));
    try {
      const first = await get("/app/first", "ledger.dev");
      expect(first.status, first.text).toBe(200);
      expect((JSON.parse(first.text) as { url: string }).url).toBe("/first");
      storage.clear();
      const requests = countNodeRequests(server);
      try {
        for (let i = 0; i < 20; i++) expect((await get(`/app/hot/${i}`, "ledger.dev")).status).toBe(200);
        // With the edge, nginx alone answered them.
        if (shape === "nginx") expect(requests.main, requests.seen.join(", ")).toBe(0);
      } finally {
        requests.stop();
      }
      expect(storage.touched()).toEqual([]);
      const opened = await openSocket(port, "/app/live", "ledger.dev");
      expect("socket" in opened).toBe(true);
      if ("socket" in opened) opened.socket.close();

      // Removed: the domain answers nothing of the project any more; its own address still does.
      reposite.domainTable.deleteSite(other);
      // With the edge, from nginx's next reload on (within its coalescing window).
      await routes().applied(other);
      expect((await get("/app/after", "ledger.dev")).text).not.toContain('"url":"/after"');
      expect((await get("/app/after", "ledger.sites.test")).status).toBe(200);
    } finally {
      storage.stop();
      reposite.domainTable.deleteSite(other);
      routes().set(other, { status: "stopped", target: null });
      await ledger.close();
    }
  });

  it("after removal the domain routes nothing, and the project's address is the canonical one again, all without a publish", async () => {
    expect(canonicalOf((await get("/", SLUG_HOST)).text)).toBe(`https://${DOMAIN}/`);
    reposite.domainTable.deleteSite(siteId);
    // With the edge, from nginx's next reload on (within its coalescing window), once the site's
    // files name its own address again.
    await tableServed();
    await served(async () => canonicalOf((await get("/", SLUG_HOST)).text) === `https://${SLUG_HOST}/`);

    const gone = await get("/");
    expect(gone.text).not.toContain("Status pages your users trust");
    expect((await get("/sitemap.xml")).text).not.toContain("<urlset");
    expect((await get("/app/items")).text).not.toContain('"url":"/items"');
    expect("socket" in (await openSocket(port, "/app/live", DOMAIN))).toBe(false);

    const landing = await get("/", SLUG_HOST);
    expect(landing.status).toBe(200);
    expect(canonicalOf(landing.text)).toBe(`https://${SLUG_HOST}/`);
    expect(attribute(landing.text, /<meta property="og:image" content="([^"]+)">/)).toBe(`https://${SLUG_HOST}/og.png`);
    expect((await get("/sitemap.xml", SLUG_HOST)).text).toContain(`<loc>https://${SLUG_HOST}/about</loc>`);
    expect((await get("/robots.txt", SLUG_HOST)).text).toContain(`Sitemap: https://${SLUG_HOST}/sitemap.xml`);
    expect(JSON.parse((await get("/app/items", SLUG_HOST)).text)).toMatchObject({ url: "/items" });

    // Verified again: the domain's address is back, still without a publish.
    await verify();
    expect(canonicalOf((await get("/about", SLUG_HOST)).text)).toBe(`https://${DOMAIN}/about`);
    expect(await storedSite()).toEqual(published);
  });
});
