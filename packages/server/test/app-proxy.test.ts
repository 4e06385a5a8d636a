import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { spawn } from "node:child_process";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import {
  AppRoutes,
  createReposite,
  DeploymentStore,
  DESIGNS,
  findDesign,
  MembersService,
  ProjectStore,
  PublishedSiteStore,
  renderNotFoundPage,
  STORAGE,
  VISIT_SETTINGS,
  type DeploymentRecord,
  type DeploymentStatus,
  type PublishedSite,
  type Reposite,
} from "@reposite/core";
import { freePort, sampleSite, codeTestHost } from "@reposite/test-support";
import { toNodeHandler } from "h3";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { createApp } from "../src/app.js";
import { appResponseHeaders, appSetCookie, createAppProxy } from "../src/app-proxy/index.js";
import { MEMBER_GATE_CACHE_SECONDS } from "../src/edge/nginx-edge.js";
import type { RunningServer } from "../src/start-server.js";
import { countNodeRequests, freshCookie, nodeRequestsFor, SHAPES, startServerIn, type NodeRequests } from "./edge-shapes.js";
import { watchStorage } from "./storage-touches.js";

// The reference server as `startServer` composes it, on a real socket, with a plain node:http app
// (and a `ws` WebSocket server) standing in for a deployed container. Requests go out with
// node:http: Node's fetch drops a `Host` header, and the site is chosen by its Host.
// Both shapes run the same cases: Reposite alone, and REPOSITE_EDGE=nginx (nginx on the port, `/app/`
// of a running app straight to it). Where nginx differs by design, the case says why.


function snapshot(site: { id: string; owner: string; slug: string; url: string }): PublishedSite {
  const design = DESIGNS[0]!;
  const page = (path: string, body: string) => ({ path, contentType: "text/html; charset=utf-8", body, etag: `"${path}"`, lastModified: "2026-03-01T10:00:00.000Z" });
  return {
    site_id: site.id,
    owner_id: site.owner,
    slug: site.slug,
    url: site.url,
    design: design.id,
    name: "Lumen",
    pages: ["template", "auth"],
    community: false,
    files: {
      "/": page("/", "<!doctype html><title>Lumen</title><h1>Lumen</h1>"),
      "/auth": page("/auth", "<!doctype html><title>Sign in</title>"),
      "/404": page("/404", renderNotFoundPage(design, sampleSite({ name: "Lumen" }))),
    },
    published_at: "2026-03-01T10:00:00.000Z",
    revision: 1,
  };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  text: string;
}

/** A request to the server with the given Host; `body` is sent as is. */
function send(port: number, path: string, init: { host: string; method?: string; headers?: Record<string, string | string[]>; body?: string | Buffer }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method: init.method ?? "GET", headers: { host: init.host, ...init.headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

/** What the stand-in app saw of one request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

interface Upload {
  received: number;
  hash: string;
  done: boolean;
  /** Resolves once the app has received at least `bytes`. */
  reached(bytes: number): Promise<void>;
}

/**
 * The app behind `/app/`: `/echo*` answers with what it received; `/sse` sends an event and holds
 * the stream until `releaseSse()`; `/upload` hashes a streamed body; `/cookies` and `/hop` answer
 * with headers the proxy must hold back; `/broken` drops the connection without answering.
 * WebSockets echo, and say what their handshake carried.
 */
async function startStandInApp() {
  let releaseSse: () => void = () => undefined;
  const upload: Upload = {
    received: 0,
    hash: "",
    done: false,
    reached(bytes) {
      return new Promise((resolve) => {
        const check = () => (this.received >= bytes ? resolve() : setTimeout(check, 5));
        check();
      });
    },
  };
  let connections = 0;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? "/";
    if (url === "/sse") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write("event: first\ndata: one\n\n");
      releaseSse = () => res.end("event: last\ndata: two\n\n");
      return;
    }
    if (url === "/upload-early") {
      // Answers at the first bytes and goes on reading (a progress line, then the result): full duplex.
      const hash = createHash("sha256");
      upload.received = 0;
      upload.done = false;
      req.once("data", () => res.writeHead(200, { "content-type": "text/plain" }).write("receiving\n"));
      req.on("data", (chunk: Buffer) => {
        upload.received += chunk.length;
        hash.update(chunk);
      });
      req.on("end", () => {
        upload.hash = hash.digest("hex");
        upload.done = true;
        res.end(JSON.stringify({ received: upload.received, hash: upload.hash }));
      });
      return;
    }
    if (url === "/upload") {
      const hash = createHash("sha256");
      upload.received = 0;
      upload.done = false;
      req.on("data", (chunk: Buffer) => {
        upload.received += chunk.length;
        hash.update(chunk);
      });
      req.on("end", () => {
        upload.hash = hash.digest("hex");
        upload.done = true;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ received: upload.received, hash: upload.hash }));
      });
      return;
    }
    if (url === "/cookies") {
      res.writeHead(200, [
        ["content-type", "text/plain"],
        ["set-cookie", "app_session=1; Path=/; HttpOnly"],
        ["set-cookie", "wide=1; Domain=localhost; Path=/"],
        ["set-cookie", "wider=2; path=/; domain=.lumen.localhost; SameSite=Lax"],
        ["set-cookie", "reposite_member=planted; Path=/"],
        ["set-cookie", "__Host-reposite_member=planted; Secure; Path=/"],
        ["set-cookie", "reposite_session=planted; Path=/"],
        ["set-cookie", "__Host-reposite_session=planted; Secure; Path=/"],
        ["set-cookie", "Reposite_Other=1"],
        ["set-cookie", "__Secure-reposite_x=1; Secure"],
        ["set-cookie", "=nameless"],
      ].flat());
      return void res.end("cookies");
    }
    if (url === "/hop") {
      res.writeHead(200, {
        "content-type": "text/plain",
        connection: "x-app-hop",
        "x-app-hop": "1",
        "keep-alive": "timeout=99, max=7",
        "proxy-authenticate": "Basic realm=app",
        trailer: "x-checksum",
        "x-kept": "yes",
      });
      return void res.end("hop");
    }
    if (url === "/broken") return void req.socket.destroy();
    const seen: Seen = { method: req.method ?? "", url, headers: req.headers };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(seen));
  };
  const server = createServer(handle);
  const closedWaiters: (() => void)[] = [];
  server.on("connection", (socket) => {
    connections++;
    socket.once("close", () => closedWaiters.splice(0).forEach((wake) => wake()));
  });
  const wss = new WebSocketServer({ server });
  wss.on("headers", (headers) => headers.push("Set-Cookie: reposite_member=planted; Path=/", "Set-Cookie: ws_ok=1; Domain=localhost"));
  wss.on("connection", (socket, req) => {
    socket.send(JSON.stringify({ url: req.url, headers: req.headers }));
    socket.on("message", (data) => socket.send(`echo: ${String(data)}`));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    upload,
    releaseSse: () => releaseSse(),
    connections: () => connections,
    /** Calls `wake` when the next connection to the app closes. */
    onceConnectionClosed: (wake: () => void) => closedWaiters.push(wake),
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Opens a WebSocket to the server with the site's Host; resolves with the socket and its first message, or the refusal. */
function openSocket(port: number, path: string, host: string, headers: Record<string, string> = {}) {
  return new Promise<
    | { socket: WebSocket; first: { url: string; headers: IncomingHttpHeaders }; handshake: IncomingHttpHeaders }
    | { refused: number; headers: IncomingHttpHeaders; body: string }
  >((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers: { host, ...headers } });
    let handshake: IncomingHttpHeaders = {};
    socket.once("upgrade", (res) => (handshake = res.headers));
    socket.once("message", (data) => resolve({ socket, first: JSON.parse(String(data)), handshake }));
    socket.once("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ refused: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    socket.once("error", reject);
  });
}

const nextMessage = (socket: WebSocket) => new Promise<string>((resolve) => socket.once("message", (data) => resolve(String(data))));

/** How an upload to an app that answers before reading it all went: done, or stalled (no byte reached the app for `stallMs`). */
interface EarlyUpload {
  completed: boolean;
  /** Bytes the app had when it ended or stalled. */
  received: number;
  /** What the visitor got of the answer. */
  answer: string;
}

/**
 * Sends `total` bytes to `path` (by default the app's `/upload-early`) as fast as the connection takes them while reading the
 * answer (a client that reads while it sends, as curl does), and watches the bytes reach the app.
 */
function uploadWhileAnswered(port: number, host: string, upload: Upload, path = "/app/upload-early", total = 50 * 1024 * 1024, stallMs = 2_000): Promise<EarlyUpload> {
  return new Promise<EarlyUpload>((resolve, reject) => {
    let answer = "";
    let finished = false;
    const finish = (completed: boolean) => {
      if (finished) return;
      finished = true;
      clearInterval(watch);
      if (!completed) req.destroy();
      resolve({ completed, received: upload.received, answer });
    };
    const req = httpRequest({ host: "127.0.0.1", port, path, method: "POST", headers: { host, "content-type": "application/octet-stream", "content-length": String(total) }, agent: false }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (text: string) => (answer += text));
      res.on("end", () => finish(true));
    });
    req.on("error", (error) => (finished ? undefined : reject(error)));
    let last = -1;
    let since = Date.now();
    const watch = setInterval(() => {
      if (upload.received !== last) (last = upload.received), (since = Date.now());
      else if (Date.now() - since > stallMs) finish(false);
    }, 100);
    const chunk = Buffer.alloc(1024 * 1024, 7);
    void (async () => {
      for (let sent = 0; sent < total && !finished; sent += chunk.length) {
        if (!req.write(chunk)) await new Promise((drained) => req.once("drain", drained).once("close", drained));
      }
      if (!finished) req.end();
    })();
  });
}

describe.each(SHAPES)("the /app/ proxy over a socket (edge: %s)", (shape) => {
  let server: RunningServer;
  let reposite: Reposite;
  let app: Awaited<ReturnType<typeof startStandInApp>>;
  let dataDir: string;
  let port: number;
  let host: string;
  let siteId: string;
  let ownerId: string;

  const routes = () => reposite.container.resolve(AppRoutes);
  /** Sets the site's route, and waits until every proxy in front serves it (nginx: after its reload). */
  const setRoute = async (status: DeploymentStatus, target: { host: string; port: number } | null, id = siteId) => {
    routes().set(id, { status, target });
    await routes().applied(id);
  };
  const running = () => setRoute("running", { host: "127.0.0.1", port: app.port });
  const get = (path: string, init: Partial<Parameters<typeof send>[2]> = {}) => send(port, path, { host, ...init });
  /** The owner's gate; nginx takes it at its next reload: a signed-out visitor's answer says when. */
  const setGate = async (on: boolean) => {
    await reposite.container.resolve(ProjectStore).modify(siteId, (project) => ({ ...project, auth_redirect_to_app: on }));
    if (shape !== "nginx") return;
    // On: Reposite's redirect (nginx asked the gate). Off: nginx went to the app without asking the
    // gate or Reposite (a cookie no decision is kept for, so the gated configuration would ask).
    const applied = async () =>
      on ? (await get("/app/gate-probe")).status === 302 : Object.values(await nodeRequestsFor(server, () => get("/app/gate-probe", { headers: { cookie: freshCookie() } }))).every((count) => count === 0);
    await vi.waitFor(async () => expect(await applied()).toBe(true), { timeout: 10_000, interval: 50 });
  };
  const echo = async (path: string, init: Partial<Parameters<typeof send>[2]> = {}) => {
    const answer = await get(path, init);
    expect(answer.status, answer.text).toBe(200);
    // With the edge, nginx carried it to the app itself.
    if (shape === "nginx") expect(answer.headers["x-reposite-edge"]).toBe("nginx");
    return JSON.parse(answer.text) as Seen;
  };
  /** A member of the site with a session: the cookie the browser would send. */
  const memberCookie = async (email: string) => {
    const members = reposite.container.resolve(MembersService);
    const member = await members.register(siteId, { email, password: "analytical-engine" });
    const { secret } = await members.createSession(siteId, member.id);
    return { member, secret, cookie: `reposite_member=${secret}` };
  };

  beforeAll(async () => {
    app = await startStandInApp();
    port = await freePort();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-app-proxy-"));
    reposite = createReposite({
      repoHosts: [codeTestHost],
      config: { dataDir, baseUrl: `http://127.0.0.1:${port}`, sitesDomain: `localhost:${port}` },
      // Visits are written when a test says so, never by the timer in the middle of a storage count.
      register: (container) => container.register(VISIT_SETTINGS, { useValue: { flushMs: 3_600_000 } }),
    });
    server = await startServerIn(shape, reposite, port);
    const { account } = await reposite.accounts.findOrCreate("owner@example.com");
    ownerId = account.id;
    siteId = (await reposite.projects.create(ownerId, { repohost_url: "https://code.test/acme/lumen" })).id;
    host = `lumen.localhost:${port}`;
    // The address claimed and on the project, as publishing leaves it: the edge routes an app by its project's slug.
    expect(await reposite.container.resolve(PublishedSiteStore).claim("lumen", siteId)).toBe(true);
    await reposite.container.resolve(ProjectStore).modify(siteId, (project) => ({ ...project, slug: "lumen" }));
    await reposite.container.resolve(STORAGE).setItem("published-sites:lumen", snapshot({ id: siteId, owner: ownerId, slug: "lumen", url: `http://${host}` }));
  });
  afterAll(async () => {
    await server?.close();
    await app?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await running();
    await setGate(false);
  });

  it("removes /app from the path: /app -> /, /app/x?y -> /x?y", async () => {
    expect((await echo("/app")).url).toBe("/");
    expect((await echo("/app/")).url).toBe("/");
    expect((await echo("/app/reports/7?range=7d&x=%2F")).url).toBe("/reports/7?range=7d&x=%2F");
    expect((await echo("/app?tab=1")).url).toBe("/?tab=1");
    const posted = await echo("/app/items", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(posted.method).toBe("POST");
    // Only /app and what is under it: /application is the site's own (its 404 page).
    expect((await get("/application")).status).toBe(404);
    // The API's own /app/... routes on the API host are not the proxy's.
    expect((await send(port, "/app/sites", { host: `127.0.0.1:${port}` })).status).toBe(401);
  });

  it("sets X-Forwarded-For, -Proto, -Host and -Prefix itself, replacing the visitor's copies", async () => {
    const seen = await echo("/app/who", {
      headers: {
        "x-forwarded-for": "6.6.6.6",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "evil.example",
        "x-forwarded-prefix": "/admin",
        "x-forwarded-port": "443",
        forwarded: "for=6.6.6.6;proto=https",
        "x-real-ip": "6.6.6.6",
      },
    });
    expect(seen.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(seen.headers["x-forwarded-proto"]).toBe("http");
    expect(seen.headers["x-forwarded-host"]).toBe(host);
    expect(seen.headers["x-forwarded-prefix"]).toBe("/app");
    expect(seen.headers.host).toBe(host);
    for (const name of ["forwarded", "x-real-ip", "x-forwarded-port"]) expect(seen.headers[name], name).toBeUndefined();
  });

  // The Node runtime's own setting (nginx reads REPOSITE_TRUST_PROXY through real_ip: core's edge-routes tests).
  if (shape === "node") it("believes the proxy in front for the client's address and scheme only with REPOSITE_TRUST_PROXY", async () => {
    const proxy = createAppProxy(reposite, { trustProxy: true });
    const trusting = createServer(proxy.listener(toNodeHandler(createApp(reposite, { trustProxy: true }))));
    await new Promise<void>((resolve) => trusting.listen(0, "127.0.0.1", resolve));
    try {
      const answer = await send((trusting.address() as AddressInfo).port, "/app/who", {
        host,
        headers: { "x-forwarded-for": "203.0.113.7, 10.0.0.2", "x-forwarded-proto": "https" },
      });
      const seen = JSON.parse(answer.text) as Seen;
      expect(seen.headers["x-forwarded-for"]).toBe("203.0.113.7");
      expect(seen.headers["x-forwarded-proto"]).toBe("https");
    } finally {
      trusting.closeAllConnections();
      await new Promise((resolve) => trusting.close(resolve));
      proxy.close();
    }
  });

  it("drops hop-by-hop headers, and those named in Connection, both ways", async () => {
    const seen = await echo("/app/hop-request", {
      headers: {
        connection: "keep-alive, x-visitor-hop",
        "x-visitor-hop": "1",
        "keep-alive": "timeout=30",
        te: "trailers",
        "proxy-authorization": "Basic dXNlcjpwYXNz",
        "proxy-connection": "keep-alive",
        "x-kept": "yes",
      },
    });
    // nginx drops the standard hop-by-hop headers, but no directive drops a header that the visitor
    // (or the app) names in Connection at request time: behind the edge that one passes, both ways.
    const named = shape === "nginx" ? [] : ["x-visitor-hop"];
    for (const name of [...named, "keep-alive", "te", "proxy-authorization", "proxy-connection"]) expect(seen.headers[name], name).toBeUndefined();
    expect(seen.headers.connection ?? "").not.toMatch(/x-visitor-hop/i);
    expect(seen.headers["x-kept"]).toBe("yes");

    const answer = await get("/app/hop");
    expect(answer.status).toBe(200);
    expect(answer.text).toBe("hop");
    expect(answer.headers["x-kept"]).toBe("yes");
    for (const name of [...(shape === "nginx" ? [] : ["x-app-hop"]), "proxy-authenticate", "trailer"]) expect(answer.headers[name], name).toBeUndefined();
    expect(answer.headers.connection).not.toMatch(/x-app-hop/i);
    expect(answer.headers["keep-alive"] ?? "").not.toMatch(/timeout=99/);
  });

  it("keeps connections to the app alive across requests", async () => {
    const before = app.connections();
    for (let i = 0; i < 20; i++) await echo(`/app/again/${i}`);
    // nginx keeps a pool per worker process (one per core).
    expect(app.connections() - before).toBeLessThanOrEqual(shape === "nginx" ? cpus().length : 1);
  });

  it("carries a WebSocket through /app/ both ways", async () => {
    const opened = await openSocket(port, "/app/live?room=1", host, { "x-forwarded-for": "6.6.6.6" });
    if (!("socket" in opened)) throw new Error(`refused: ${opened.refused} ${opened.body}`);
    try {
      expect(opened.first.url).toBe("/live?room=1");
      expect(opened.first.headers["x-forwarded-prefix"]).toBe("/app");
      expect(opened.first.headers["x-forwarded-for"]).toBe("127.0.0.1");
      expect(opened.first.headers["x-forwarded-host"]).toBe(host);
      for (const message of ["hello", "x".repeat(200_000)]) {
        const reply = nextMessage(opened.socket);
        opened.socket.send(message);
        expect(await reply).toBe(`echo: ${message}`);
      }
      // The app's handshake cannot plant Reposite's cookie, nor one for another host.
      const cookies = ([] as string[]).concat(opened.handshake["set-cookie"] ?? []);
      // nginx cannot drop one Set-Cookie line: Reposite's name is made Secure, which browsers refuse
      // from an http page, and the Domain is held to the site's host (nginx-forwarding.ts, appCookies).
      expect(cookies).toEqual(shape === "nginx" ? ["reposite_member=planted; Path=/; Secure", "ws_ok=1; Domain=lumen.localhost"] : ["ws_ok=1"]);
    } finally {
      opened.socket.close();
    }
  });

  it("streams a response as the app writes it: the first SSE event arrives before the app ends the stream", async () => {
    const events: string[] = [];
    let ended = false;
    const firstEvent = new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port, path: "/app/sse", headers: { host, accept: "text/event-stream" }, agent: false }, (res) => {
        expect(res.headers["content-type"]).toBe("text/event-stream");
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          events.push(chunk);
          resolve();
        });
        res.on("end", () => (ended = true));
      });
      req.on("error", reject);
      req.end();
    });
    await firstEvent;
    expect(events.join("")).toContain("data: one");
    expect(ended).toBe(false);
    app.releaseSse();
    await vi.waitFor(() => expect(ended).toBe(true));
    expect(events.join("")).toContain("data: two");
  });

  it("streams a 50 MB upload to the app without holding it: the app receives before the client has sent it all", async () => {
    const total = 50 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31) & 0xff;
    const expected = createHash("sha256");
    let sent = 0;
    const answer = await new Promise<Answer>((resolve, reject) => {
      const req = httpRequest(
        { host: "127.0.0.1", port, path: "/app/upload", method: "POST", headers: { host, "content-type": "application/octet-stream", "content-length": String(total) }, agent: false },
        (res) => {
          const parts: Buffer[] = [];
          res.on("data", (part: Buffer) => parts.push(part));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, text: Buffer.concat(parts).toString() }));
        },
      );
      req.on("error", reject);
      const write = (): Promise<void> => {
        expected.update(chunk);
        sent += chunk.length;
        return req.write(chunk) ? Promise.resolve() : new Promise((drained) => req.once("drain", drained));
      };
      void (async () => {
        for (let i = 0; i < 5; i++) await write();
        // Everything past here waits until the app has the first megabyte: a proxy that
        // buffered the whole body first would never get there.
        await app.upload.reached(1024 * 1024);
        expect(sent).toBeLessThan(total);
        expect(app.upload.done).toBe(false);
        let widest = 0;
        while (sent < total) {
          await write();
          widest = Math.max(widest, sent - app.upload.received);
        }
        // In flight at any time: socket buffers, never the upload.
        expect(widest).toBeLessThan(total / 2);
        req.end();
      })().catch(reject);
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ received: total, hash: expected.digest("hex") });
  });

  it("an app that answers before it has read the whole upload: Node carries both ways; nginx stops passing the upload on (documented)", async () => {
    const result = await uploadWhileAnswered(port, host, app.upload);
    expect(result.answer.startsWith("receiving\n")).toBe(true);
    if (shape === "node") {
      expect(result).toMatchObject({ completed: true, received: 50 * 1024 * 1024 });
      return;
    }
    // Stock nginx stops sending the request body once the app's answer has begun (its upstream
    // module, for every proxy_pass; only gRPC keeps both ways): the upload stalls part way, as with
    // the hand-written proxy_pass below. docs/deploy/edge-nginx.md says what apps do about it.
    expect(result.completed).toBe(false);
    expect(result.received).toBeGreaterThan(0);
    expect(result.received).toBeLessThan(50 * 1024 * 1024);
  }, 30_000);

  it("keeps the app from setting cookies for another host or under Reposite's names", async () => {
    const answer = await get("/app/cookies");
    expect(answer.status).toBe(200);
    if (shape === "node") {
      expect(answer.headers["set-cookie"]).toEqual(["app_session=1; Path=/; HttpOnly", "wide=1; Path=/", "wider=2; path=/; SameSite=Lax"]);
      return;
    }
    // nginx cannot drop one Set-Cookie line (appCookies in nginx-forwarding.ts): each cookie under a
    // Reposite name comes in a form browsers refuse to store (the __Host-/__Secure- prefixes without
    // Secure; Secure from this http page), and the Domain is held to the site's own host.
    expect(answer.headers["set-cookie"]).toEqual([
      "app_session=1; Path=/; HttpOnly",
      "wide=1; Domain=lumen.localhost; Path=/",
      "wider=2; path=/; domain=lumen.localhost; SameSite=Lax",
      "reposite_member=planted; Path=/; Secure",
      "__Host-reposite_member=planted; Path=/",
      "reposite_session=planted; Path=/; Secure",
      "__Host-reposite_session=planted; Path=/",
      "Reposite_Other=1; Secure",
      "__Secure-reposite_x=1",
      "=nameless",
    ]);
  });

  describe("the members gate", () => {
    it("sends signed-out visitors to sign in, refuses their writes, and lets members through with who they are", async () => {
      await setGate(true);
      const forged = { "x-reposite-member-id": "member_forged", "X-Reposite-Member-Email": "boss@example.com" };
      const visitor = await get("/app/reports?range=7d", { headers: forged });
      expect(visitor.status, `${JSON.stringify(visitor.headers)} ${visitor.text.slice(0, 300)}`).toBe(302);
      expect(visitor.headers.location).toBe("/auth?next=%2Fapp%2Freports%3Frange%3D7d");
      const write = await get("/app/api", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(write.status).toBe(401);
      expect(write.headers["content-type"]).toMatch(/^text\/html/);
      expect(write.text).toContain("Only signed-in members may use this app.");

      const { member, cookie } = await memberCookie("ada@example.com");
      const seen = await echo("/app/reports", { headers: { ...forged, cookie: `${cookie}; theme=dark` } });
      expect(seen.headers["x-reposite-member-id"]).toBe(member.id);
      expect(seen.headers["x-reposite-member-email"]).toBe("ada@example.com");
      expect(seen.headers.cookie).toBe("theme=dark");

      // Turned off: everyone reaches the app; forged identities still never do.
      await setGate(false);
      const open = await echo("/app/reports", { headers: forged });
      expect(Object.keys(open.headers).filter((name) => name.startsWith("x-reposite-"))).toEqual([]);
    });

    it("holds for WebSockets too: refused when signed out, identity headers when signed in", async () => {
      await setGate(true);
      const refused = await openSocket(port, "/app/live", host);
      expect("refused" in refused && refused.refused).toBe(401);

      const { member, cookie } = await memberCookie("bob@example.com");
      const opened = await openSocket(port, "/app/live", host, { cookie, "x-reposite-member-id": "member_forged" });
      if (!("socket" in opened)) throw new Error(`refused: ${opened.refused}`);
      expect(opened.first.headers["x-reposite-member-id"]).toBe(member.id);
      expect(opened.first.headers["x-reposite-member-email"]).toBe("bob@example.com");
      expect(opened.first.headers.cookie).toBeUndefined();
      opened.socket.close();
    });

    it("stops letting a member in as soon as they sign out", async () => {
      await setGate(true);
      const { secret, cookie } = await memberCookie("cy@example.com");
      await echo("/app/x", { headers: { cookie } });
      const signedOutAt = Date.now();
      await reposite.members.endSession(secret);
      if (shape === "node") return void expect((await get("/app/x", { headers: { cookie } })).status).toBe(302);
      // nginx keeps the gate's decision MEMBER_GATE_CACHE_SECONDS (3 s): the sign-out holds within that
      // (nginx counts the validity in whole seconds, hence up to one more, and the polling's own delay).
      await vi.waitFor(async () => expect((await get("/app/x", { headers: { cookie } })).status).toBe(302), { timeout: 8_000, interval: 100 });
      expect(Date.now() - signedOutAt).toBeLessThan(MEMBER_GATE_CACHE_SECONDS * 1000 + 2_000);
    });
  });

  describe("when the app does not run", () => {
    it.each([
      ["no app deployed", null, "No app is deployed for this site yet."],
      ["configured", "configured", "No app is deployed for this site yet."],
      ["building", "building", "The app is being built."],
      ["starting", "starting", "The app is starting."],
      ["stopped", "stopped", "The app of this site is stopped."],
      ["failed", "failed", "The app of this site could not be started."],
    ] as const)("answers 503 with Retry-After and a page in the site's design: %s", async (_label, status, message) => {
      if (status) await setRoute(status, null);
      else (routes().delete(siteId), await routes().applied(siteId));
      const answer = await get("/app/dashboard");
      expect(answer.status).toBe(503);
      // nginx answers the page of an app it knows itself; an app never set up is Reposite's to answer.
      if (shape === "nginx" && status) expect(answer.headers["x-reposite-edge"]).toBe("nginx");
      expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0);
      expect(answer.headers["content-type"]).toMatch(/^text\/html/);
      expect(answer.headers["cache-control"]).toBe("no-store");
      expect(answer.text).toContain(message);
      // Drawn by renderSitePage in the published design: the design's frame with the site's name.
      expect(answer.text).toContain("· Lumen</title>");
      expect(answer.text).toContain(`page-site`);
      expect(findDesign(DESIGNS[0]!.id)).toBeTruthy();

      const socket = await openSocket(port, "/app/live", host);
      expect("refused" in socket && socket.refused).toBe(503);
      expect("refused" in socket && Number(socket.headers["retry-after"])).toBeGreaterThan(0);
    });

    it("answers 502 with a page when the app refuses the connection or breaks off", async () => {
      const closed = await freePort();
      await setRoute("running", { host: "127.0.0.1", port: closed });
      const refused = await get("/app/dashboard");
      expect(refused.status).toBe(502);
      if (shape === "nginx") expect(refused.headers["x-reposite-edge"]).toBe("nginx");
      expect(refused.headers["content-type"]).toMatch(/^text\/html/);
      expect(refused.text).toContain("did not answer");
      const socket = await openSocket(port, "/app/live", host);
      expect("refused" in socket && socket.refused).toBe(502);

      await running();
      const broken = await get("/app/broken");
      expect(broken.status).toBe(502);
      expect(broken.text).toContain("did not answer");
    });
  });

  it("decides from memory: no storage read per proxied request (HTTP and WebSocket) after warm-up", async () => {
    await setGate(true);
    const { cookie } = await memberCookie("dee@example.com");
    const storage = watchStorage(reposite.container.resolve(STORAGE));
    let requests: NodeRequests | undefined;
    try {
      // Warm-up: the site, the project (the gate) and the session are read once.
      await echo("/app/warm", { headers: { cookie } });
      await get("/app/warm");
      storage.clear();
      requests = countNodeRequests(server);

      const startedAt = Date.now();
      for (let i = 0; i < 30; i++) await echo(`/app/hot/${i}`, { headers: { cookie } });
      if (shape === "nginx") {
        // Not one request reached Reposite: nginx asked the gate at most once per kept decision.
        expect(requests.main, requests.seen.join(", ")).toBe(0);
        expect(requests.gate).toBeLessThanOrEqual(1 + Math.ceil((Date.now() - startedAt) / (MEMBER_GATE_CACHE_SECONDS * 1000)));
      }
      for (let i = 0; i < 10; i++) expect((await get(`/app/hot/${i}`)).status).toBe(302);
      const opened = await openSocket(port, "/app/live", host, { cookie });
      expect("socket" in opened).toBe(true);
      if ("socket" in opened) opened.socket.close();
      const perRequest = storage.touched();
      await setRoute("stopped", null);
      // With the edge, a change of state draws the app's page for it once (app-pages-files.ts): a change, not a request.
      if (shape === "nginx") storage.clear();
      expect((await get("/app/hot", { headers: { cookie } })).status).toBe(503);
      // Reposite answers what is its own with the edge too: the 10 redirects to sign in, and a
      // members-only app's 503 page (the gate comes first); the member's WebSocket went by nginx.
      if (shape === "nginx") expect(requests.main, requests.seen.join(", ")).toBe(11);

      expect([...perRequest, ...storage.touched()]).toEqual([]);
    } finally {
      requests?.stop();
      storage.stop();
    }
  });

  it("reaches the app of a project that published no pages, and decides that from memory too after warm-up", async () => {
    const other = (await reposite.projects.create(ownerId, { repohost_url: "https://code.test/acme/ledger" })).id;
    const appHost = `ledger.localhost:${port}`;
    expect((await send(port, "/app/x", { host: appHost })).status).toBe(404); // nothing there yet
    // What a first deployment setup leaves: the address claimed, a deployment on the project.
    expect(await reposite.container.resolve(PublishedSiteStore).claim("ledger", other)).toBe(true);
    await reposite.container.resolve(ProjectStore).modify(other, (project) => ({ ...project, slug: "ledger" }));
    await reposite.container.resolve(DeploymentStore).modify(other, () => ({ status: "running" }) as DeploymentRecord);
    // An app of its own, so its kept-alive connections are not the other tests' business.
    const ledger = await startStandInApp();
    await setRoute("running", { host: "127.0.0.1", port: ledger.port }, other);
    const storage = watchStorage(reposite.container.resolve(STORAGE));
    try {
      const first = await send(port, "/app/first", { host: appHost });
      expect(first.status, first.text).toBe(200);
      expect((JSON.parse(first.text) as Seen).url).toBe("/first");
      storage.clear();
      const requests = countNodeRequests(server);
      try {
        for (let i = 0; i < 20; i++) expect((await send(port, `/app/hot/${i}`, { host: appHost })).status).toBe(200);
        // With the edge, nginx alone answered them.
        if (shape === "nginx") expect(requests.main, requests.seen.join(", ")).toBe(0);
      } finally {
        requests.stop();
      }
      expect(storage.touched()).toEqual([]);
      // The site's other addresses stay unpublished.
      expect((await send(port, "/", { host: appHost })).status).toBe(404);
    } finally {
      storage.stop();
      routes().set(other, { status: "stopped", target: null });
      await ledger.close();
    }
  });

  // The Node runtime's own count (with the edge, the edge holds a target while nginx may send to it: nginx-edge.ts).
  if (shape === "node") it("counts each proxied request in flight until its answer ends, for the switch-over's drain", async () => {
    const target = { host: "127.0.0.1", port: app.port };
    const req = httpRequest({ host: "127.0.0.1", port, path: "/app/sse", headers: { host }, agent: false });
    const started = new Promise<IncomingMessage>((resolve) => req.once("response", resolve));
    req.end();
    const res = await started;
    expect(routes().pending(target)).toBe(1);
    const drained = routes().drained(target, 10_000);
    app.releaseSse();
    res.resume();
    await drained;
    expect(routes().pending(target)).toBe(0);
  });

  it("follows a switch-over: new requests go to the new target, and the old one's kept connections close once drained", async () => {
    const next = await startStandInApp();
    try {
      // A kept-alive connection to the current app, then the switch.
      await echo("/app/before");
      const closed = new Promise<void>((resolve) => app.onceConnectionClosed(resolve));
      await setRoute("running", { host: "127.0.0.1", port: next.port });
      const before = next.connections();
      await echo("/app/after");
      expect(next.connections()).toBe(before + 1);
      // At once, not when the idle timeout (4 s) would have closed it anyway.
      const late = new Promise<string>((resolve) => setTimeout(() => resolve("still open"), 1_500));
      expect(await Promise.race([closed.then(() => "closed"), late])).toBe("closed");
    } finally {
      await running();
      await next.close();
    }
  });

  it("answers other upgrades as plain requests, and refuses WebSockets elsewhere", async () => {
    // curl --http2 asks every plain-http request to become h2c.
    const h2c = await send(port, "/healthz", { host: `127.0.0.1:${port}`, headers: { connection: "Upgrade, HTTP2-Settings", upgrade: "h2c", "http2-settings": "AAMAAABkAARAAAAAAAIAAAAA" } });
    expect(h2c.status).toBe(200);
    expect(JSON.parse(h2c.text)).toEqual({ status: "ok" });
    const viaApp = await get("/app/h2c", { headers: { connection: "Upgrade, HTTP2-Settings", upgrade: "h2c", "http2-settings": "AAMAAABkAARAAAAAAAIAAAAA" } });
    expect((JSON.parse(viaApp.text) as Seen).url).toBe("/h2c");

    const api = await openSocket(port, "/app/sites", `127.0.0.1:${port}`);
    expect("refused" in api && api.refused).toBe(404);
    const page = await openSocket(port, "/about", host);
    expect("refused" in page && page.refused).toBe(404);
    const unknown = await openSocket(port, "/app/live", `nobody.localhost:${port}`);
    expect("refused" in unknown && unknown.refused).toBe(404);
  });
});

// Node internals: the rules the Node runtime holds an app's headers to.
describe("the /app/ proxy's header rules", () => {
  it("holds Set-Cookie lines to the rules", () => {
    expect(appSetCookie("a=1; Domain=example.com; Path=/x; Secure")).toBe("a=1; Path=/x; Secure");
    expect(appSetCookie("a=1;domain=.example.com")).toBe("a=1");
    expect(appSetCookie("a=b=c; DOMAIN = evil.test ; HttpOnly")).toBe("a=b=c; HttpOnly");
    for (const name of ["reposite_member", "__Host-reposite_member", "reposite_session", "__Host-reposite_session", "reposite_discourse", "__host-REPOSITE_x", " reposite_member"]) {
      expect(appSetCookie(`${name}=x; Path=/`), name).toBeNull();
    }
    expect(appSetCookie("nameless")).toBeNull();
    expect(appSetCookie("=v")).toBeNull();
    expect(appSetCookie("reposited=1")).toBe("reposited=1");
    expect(appResponseHeaders(["Connection", "close, X-Drop", "X-Drop", "1", "Content-Length", "2", "Set-Cookie", "reposite_member=x"])).toEqual(["Content-Length", "2"]);
  });
});

// nginx alone, without Reposite: a hand-written `proxy_pass` with request and response buffering off
// and HTTP/1.1 to the app, as the edge has them. Once the app's answer has begun, nginx sends no more
// of the request body: its upstream module swaps the write handler for a dummy one unless the
// module sets `preserve_output`, which only gRPC does (nginx/nginx src/http/ngx_http_upstream.c,
// ngx_http_upstream_send_request_handler). No directive changes it, so the edge cannot either.
if (SHAPES.includes("nginx")) {
  describe("nginx's own proxy_pass and an app that answers before reading the whole upload", () => {
    let app: Awaited<ReturnType<typeof startStandInApp>>;
    let dir: string;
    let port: number;
    let stopNginx: () => Promise<void>;

    beforeAll(async () => {
      app = await startStandInApp();
      port = await freePort();
      dir = await mkdtemp(join(tmpdir(), "reposite-nginx-early-answer-"));
      await mkdir(join(dir, "tmp"));
      const conf = [
        "daemon off;",
        "worker_processes 1;",
        `pid ${dir}/nginx.pid;`,
        `error_log ${dir}/error.log warn;`,
        "events { worker_connections 64; }",
        "http {",
        "  access_log off;",
        `  client_body_temp_path ${dir}/tmp/body;`,
        `  proxy_temp_path ${dir}/tmp/proxy;`,
        "  client_max_body_size 0;",
        "  proxy_request_buffering off;",
        "  proxy_buffering off;",
        "  proxy_http_version 1.1;",
        "  server {",
        `    listen 127.0.0.1:${port};`,
        `    location /app/ { proxy_pass http://127.0.0.1:${app.port}/; }`,
        "  }",
        "}",
        "",
      ].join("\n");
      await writeFile(join(dir, "nginx.conf"), conf);
      const nginx = spawn("nginx", ["-p", dir, "-c", join(dir, "nginx.conf")], { stdio: "ignore" });
      const exited = new Promise<void>((resolve) => nginx.once("exit", () => resolve()));
      stopNginx = async () => {
        nginx.kill("SIGTERM");
        await exited;
      };
      await vi.waitFor(() => fetch(`http://127.0.0.1:${port}/app/echo`).then((answer) => expect(answer.status).toBe(200)), { timeout: 10_000, interval: 50 });
    });
    afterAll(async () => {
      await stopNginx?.();
      await app?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("stalls the upload part way; the same upload to an app that reads it all first arrives whole", async () => {
      const early = await uploadWhileAnswered(port, "any.test", app.upload);
      expect(early.answer).toBe("receiving\n");
      expect(early.completed).toBe(false);
      expect(early.received).toBeGreaterThan(0);
      expect(early.received).toBeLessThan(50 * 1024 * 1024);

      const whole = await uploadWhileAnswered(port, "any.test", app.upload, "/app/upload");
      expect(whole.completed).toBe(true);
      expect(JSON.parse(whole.answer)).toMatchObject({ received: 50 * 1024 * 1024 });
    }, 30_000);
  });
}
