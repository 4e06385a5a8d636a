import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { LookupFunction } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import {
  createReposite,
  DESIGNS,
  EVENTS,
  renderNotFoundPage,
  renderPage,
  SITE_CHANGED_CHANNEL,
  PublishedSiteStore,
  STORAGE,
  VISIT_SETTINGS,
  VisitCounter,
  type PublishedFile,
  type PublishedSite,
  type Reposite,
} from "@reposite/core";
import { freePort, launchBrowser, sampleSite, samplePages, codeTestHost } from "@reposite/test-support";
import { toNodeHandler } from "h3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app.js";
import { createHostRouter, hostnameOf } from "../src/site-runtime/host-router.js";
import { negotiateEncoding } from "../src/site-runtime/serve-published.js";
import { startServer, type RunningServer } from "../src/start-server.js";

// ---------------------------------------------------------------------------------------------
// Pure parts: the host rule and content negotiation.

describe("host router", () => {
  const route = createHostRouter({ sitesDomain: "localhost:3000", baseUrl: "http://localhost:3000" });

  it.each([
    ["lumen.localhost:3000", "lumen"],
    ["lumen.localhost", "lumen"],
    ["LUMEN.LocalHost:3000", "lumen"],
    ["lumen.localhost.:3000", "lumen"],
    ["lumen.localhost:8080", "lumen"],
    ["a.b.localhost:3000", "a.b"],
    ["localhost:3000", null],
    ["localhost", null],
    ["127.0.0.1:3000", null],
    ["[::1]:3000", null],
    ["lumen.example.com", null],
    ["evil-localhost:3000", null],
    ["", null],
  ] as const)("%s -> %s", (host, slug) => {
    expect(route(host)).toBe(slug);
  });

  it("never takes the API's own host for a site, even under the sites domain", () => {
    const nested = createHostRouter({ sitesDomain: "reposite.dev", baseUrl: "https://app.reposite.dev" });
    expect(nested("app.reposite.dev")).toBeNull();
    expect(nested("lumen.reposite.dev")).toBe("lumen");
  });

  it("asks host resolvers (custom domains) about other hosts, lower-cased and without port", () => {
    const domains = new Map([["www.lumen.dev", "lumen"]]);
    const resolver = vi.fn((hostname: string) => domains.get(hostname));
    const withDomains = createHostRouter({ sitesDomain: "sites.test", hostResolvers: [resolver] });
    expect(withDomains("WWW.Lumen.dev:443")).toBe("lumen");
    expect(resolver).toHaveBeenCalledWith("www.lumen.dev");
    expect(withDomains("other.dev")).toBeNull();
    domains.set("other.dev", "other");
    expect(withDomains("other.dev")).toBe("other");
    expect(withDomains("x.sites.test")).toBe("x");
  });

  it("hostnameOf strips ports, IPv6 ports and the trailing dot", () => {
    expect(hostnameOf("Example.COM.:8443")).toBe("example.com");
    expect(hostnameOf("[::1]:3000")).toBe("[::1]");
  });
});

describe("content negotiation", () => {
  it.each([
    [undefined, "identity"],
    ["", "identity"],
    ["gzip, deflate, br, zstd", "br"],
    ["gzip, deflate", "gzip"],
    ["br;q=0, gzip", "gzip"],
    ["gzip;q=0.5, br;q=0.4", "gzip"],
    ["br;q=0.5, gzip;q=0.5", "br"],
    ["*", "br"],
    ["identity", "identity"],
    ["gzip;q=0, br;q=0", "identity"],
    ["x-gzip", "gzip"],
  ] as const)("Accept-Encoding %s -> %s", (header, encoding) => {
    expect(negotiateEncoding(header)).toBe(encoding);
  });
});

// ---------------------------------------------------------------------------------------------
// Over a real socket, the two ways the server can be composed.

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2a4a8d50000000049454e44ae426082",
  "hex"
);


const etagOf = (bytes: Buffer) => `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 22)}"`;

function file(path: string, contentType: string, body: string | Buffer, lastModified = "2026-03-01T10:00:00.000Z"): PublishedFile {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  return {
    path,
    contentType,
    body: typeof body === "string" ? body : bytes.toString("base64"),
    ...(typeof body === "string" ? {} : { encoding: "base64" as const }),
    etag: etagOf(bytes),
    lastModified,
  };
}

/** A snapshot the way publishing makes one: pages rendered in a design, 404 page, sitemap, robots, preview image. */
function snapshot(site: { id: string; owner: string; slug: string; url: string }, revision = 1, tagline = ""): PublishedSite {
  const design = DESIGNS[0]!;
  const context = sampleSite({ name: "Lumen" });
  const landing = { ...samplePages.template, hero: { ...samplePages.template.hero, title: `Status pages${tagline}` } };
  const HTML = "text/html; charset=utf-8";
  const files = [
    file("/", HTML, renderPage(design, landing, context)),
    file("/about", HTML, renderPage(design, samplePages.about, context)),
    file("/faq", HTML, renderPage(design, samplePages.faq, context)),
    file("/auth", HTML, renderPage(design, samplePages.auth, context)),
    file("/404", HTML, renderNotFoundPage(design, context)),
    file(
      "/sitemap.xml",
      "application/xml; charset=utf-8",
      `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.url}/</loc></url><url><loc>${site.url}/about</loc></url></urlset>\n`
    ),
    file("/robots.txt", "text/plain; charset=utf-8", `User-agent: *\nAllow: /\n\nSitemap: ${site.url}/sitemap.xml\n`),
    // Kept apart, as publishing keeps the preview image: startRig stores its body beside the snapshot.
    { ...file("/og.png", "image/png", PNG), body: "", apart: { size: PNG.length } },
  ];
  return {
    site_id: site.id,
    owner_id: site.owner,
    slug: site.slug,
    url: site.url,
    design: design.id,
    name: "Lumen",
    pages: ["template", "about", "faq", "auth"],
    community: false,
    files: Object.fromEntries(files.map((f) => [f.path, f])),
    published_at: "2026-03-01T10:00:00.000Z",
    revision,
  };
}

/** Resolves every name to 127.0.0.1, as browsers do for `*.localhost`. */
const loopback: LookupFunction = (_hostname, options, callback) => {
  if (options.all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: "127.0.0.1", family: 4 }]);
  else callback(null, "127.0.0.1", 4);
};

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/**
 * A request to a full URL (`http://lumen.localhost:<port>/about`) over a socket. Node's fetch drops
 * a `Host` header (a forbidden header name in the Fetch standard), so node:http sends these: the
 * Host is the URL's unless `headers.host` says otherwise; bodies arrive as sent (not decompressed).
 */
function send(url: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? "GET", headers: init.headers, lookup: loopback, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString("utf8") });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const STORAGE_METHODS = [
  "getItem",
  "getItems",
  "getItemRaw",
  "hasItem",
  "getKeys",
  "getMeta",
  "setItem",
  "setItems",
  "setItemRaw",
  "removeItem",
] as const;

interface Rig {
  reposite: Reposite;
  port: number;
  /** `http://<slug>.localhost:<port>` */
  siteUrl: (slug: string) => string;
  apiUrl: string;
  site: PublishedSite;
  accountId: string;
  /** Calls to the storage port since the last `resetStorageCalls`. */
  storageCalls: () => number;
  resetStorageCalls: () => void;
  publish: (site: PublishedSite) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * `server`: the reference server as `startServer` composes it (node-level fast path in front of
 * the h3 app). `app`: the h3 app alone through `toNodeHandler`, so the middleware answers everything.
 */
type Composition = "server" | "app";

async function startRig(composition: Composition): Promise<Rig> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), "reposite-sites-"));
  const apiUrl = `http://127.0.0.1:${port}`;
  const reposite = createReposite({
    repoHosts: [codeTestHost],
    config: { dataDir, baseUrl: apiUrl, sitesDomain: `localhost:${port}` },
    // Visits are written when a test says so, never by the timer in the middle of a storage count.
    register: (container) => container.register(VISIT_SETTINGS, { useValue: { flushMs: 3_600_000 } }),
  });
  let server: RunningServer | undefined;
  let plain: Server | undefined;
  if (composition === "server") {
    server = await startServer({ settings: { listen: { port, hostname: "127.0.0.1" }, reposite: {} }, reposite });
  } else {
    plain = createHttpServer(toNodeHandler(createApp(reposite)));
    await new Promise<void>((resolve) => plain!.listen(port, "127.0.0.1", resolve));
  }

  const { account } = await reposite.accounts.findOrCreate("owner@example.com");
  const project = await reposite.projects.create(account.id, { repohost_url: "https://code.test/acme/lumen" });
  const siteUrl = (slug: string) => `http://${slug}.localhost:${port}`;
  const site = snapshot({ id: project.id, owner: account.id, slug: "lumen", url: siteUrl("lumen") });
  const storage = reposite.container.resolve(STORAGE);
  await reposite.container.resolve(PublishedSiteStore).putApartBody(site.site_id, site.files["/og.png"]!, PNG);
  await storage.setItem("published-sites:lumen", site);

  const spies = STORAGE_METHODS.map((method) => vi.spyOn(storage, method));
  return {
    reposite,
    port,
    siteUrl,
    apiUrl,
    site,
    accountId: account.id,
    storageCalls: () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0),
    resetStorageCalls: () => spies.forEach((spy) => spy.mockClear()),
    async publish(next) {
      await storage.setItem(`published-sites:${next.slug}`, next);
      reposite.container.resolve(EVENTS).publish(SITE_CHANGED_CHANNEL, { slug: next.slug });
    },
    async close() {
      spies.forEach((spy) => spy.mockRestore());
      if (server) await server.close();
      else {
        plain!.closeAllConnections();
        await new Promise<void>((resolve) => plain!.close(() => resolve()));
        await reposite.close();
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

describe.each(["server", "app"] as const)("published sites over a socket (%s)", (composition) => {
  let rig: Rig;
  let lumen: string;

  beforeAll(async () => {
    rig = await startRig(composition);
    lumen = rig.siteUrl("lumen");
  });
  afterAll(async () => {
    await rig?.close();
  });

  const bodyOf = (path: string) => {
    const f = rig.site.files[path]!;
    if (f.apart) return PNG;
    return Buffer.from(f.body, f.encoding === "base64" ? "base64" : "utf8");
  };

  it("routes by Host, with and without the port, in any case", async () => {
    for (const host of [`lumen.localhost:${rig.port}`, "lumen.localhost", `LUMEN.LOCALHOST:${rig.port}`]) {
      const answer = await send(`${rig.apiUrl}/`, { headers: { host } });
      expect(answer.status, host).toBe(200);
      expect(answer.body.equals(bodyOf("/")), host).toBe(true);
    }
  });

  it("serves every file with its type, ETag, Last-Modified, caching and security headers", async () => {
    const expected = [
      ["/", "text/html; charset=utf-8"],
      ["/about", "text/html; charset=utf-8"],
      ["/faq", "text/html; charset=utf-8"],
      ["/auth", "text/html; charset=utf-8"],
      ["/sitemap.xml", "application/xml; charset=utf-8"],
      ["/robots.txt", "text/plain; charset=utf-8"],
      ["/og.png", "image/png"],
    ] as const;
    for (const [path, type] of expected) {
      const answer = await send(`${lumen}${path}`);
      expect(answer.status, path).toBe(200);
      expect(answer.headers["content-type"], path).toBe(type);
      expect(answer.body.equals(bodyOf(path)), path).toBe(true);
      expect(answer.headers["content-length"], path).toBe(String(bodyOf(path).length));
      expect(answer.headers.etag, path).toBe(rig.site.files[path]!.etag);
      expect(answer.headers["last-modified"], path).toBe("Sun, 01 Mar 2026 10:00:00 GMT");
      expect(answer.headers["x-content-type-options"], path).toBe("nosniff");
      expect(answer.headers["content-encoding"], path).toBeUndefined();
    }
    const page = await send(`${lumen}/about?utm_source=x`);
    expect(page.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    expect(page.headers["content-security-policy"]).toContain("frame-ancestors 'self'");
    const image = await send(`${lumen}/og.png`);
    expect(image.headers["cache-control"]).toBe("public, max-age=86400");
    expect(image.headers.vary).toBeUndefined();
  });

  it("answers 304 to If-None-Match (any listed tag, weak or strong) and If-Modified-Since", async () => {
    const etag = rig.site.files["/about"]!.etag;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"nope", ${etag}`, "*"]) {
      const answer = await send(`${lumen}/about`, { headers: { "if-none-match": ifNoneMatch } });
      expect(answer.status, ifNoneMatch).toBe(304);
      expect(answer.body.length).toBe(0);
      expect(answer.headers.etag).toBe(etag);
      expect(answer.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    }
    expect((await send(`${lumen}/about`, { headers: { "if-none-match": '"other"' } })).status).toBe(200);
    expect((await send(`${lumen}/about`, { headers: { "if-modified-since": "Sun, 01 Mar 2026 10:00:00 GMT" } })).status).toBe(304);
    expect((await send(`${lumen}/about`, { headers: { "if-modified-since": "Sat, 28 Feb 2026 10:00:00 GMT" } })).status).toBe(200);
  });

  it("sends brotli or gzip as the client asks, with Vary and an ETag per encoding", async () => {
    const br = await send(`${lumen}/`, { headers: { "accept-encoding": "gzip, deflate, br, zstd" } });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("Accept-Encoding");
    expect(brotliDecompressSync(br.body).equals(bodyOf("/"))).toBe(true);
    expect(br.body.length).toBeLessThan(bodyOf("/").length / 3);
    expect(Number(br.headers["content-length"])).toBe(br.body.length);

    const gzip = await send(`${lumen}/sitemap.xml`, { headers: { "accept-encoding": "gzip" } });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gzip.headers.vary).toBe("Accept-Encoding");
    expect(gunzipSync(gzip.body).equals(bodyOf("/sitemap.xml"))).toBe(true);

    const plain = await send(`${lumen}/`);
    expect(plain.headers.vary).toBe("Accept-Encoding");
    const tags = new Set([br.headers.etag, (await send(`${lumen}/`, { headers: { "accept-encoding": "gzip" } })).headers.etag, plain.headers.etag]);
    expect(tags.size).toBe(3);

    // The brotli copy's ETag revalidates.
    const revalidated = await send(`${lumen}/`, { headers: { "accept-encoding": "br", "if-none-match": br.headers.etag! } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe(br.headers.etag);

    // Images are not compressed again.
    const image = await send(`${lumen}/og.png`, { headers: { "accept-encoding": "br, gzip" } });
    expect(image.headers["content-encoding"]).toBeUndefined();
    expect(image.body.equals(PNG)).toBe(true);
  });

  it("HEAD answers the headers of GET without a body", async () => {
    const head = await send(`${lumen}/faq`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers["content-length"]).toBe(String(bodyOf("/faq").length));
    expect(head.headers.etag).toBe(rig.site.files["/faq"]!.etag);
    expect(head.body.length).toBe(0);
  });

  it("redirects a trailing slash to the page, keeping the query, and never to another host", async () => {
    const answer = await send(`${lumen}/about/?ref=x`);
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe("/about?ref=x");
    expect((await send(`${lumen}/faq//`)).headers.location).toBe("/faq");
    const protocolRelative = await send(`${lumen}//evil.example/`);
    expect(protocolRelative.status).toBe(404);
    expect(protocolRelative.headers.location).toBeUndefined();
  });

  it("answers unknown paths with the site's own 404 page and status 404", async () => {
    for (const path of ["/pricing", "/404", "/about.html", "/community/x"]) {
      const answer = await send(`${lumen}${path}`);
      expect(answer.status, path).toBe(404);
      expect(answer.headers["content-type"], path).toBe("text/html; charset=utf-8");
      expect(answer.body.equals(bodyOf("/404")), path).toBe(true);
      expect(answer.headers["cache-control"]).toBe("no-cache");
    }
    const compressed = await send(`${lumen}/pricing`, { headers: { "accept-encoding": "br" } });
    expect(compressed.status).toBe(404);
    expect(brotliDecompressSync(compressed.body).equals(bodyOf("/404"))).toBe(true);
  });

  it("answers a slug with no site with a plain Reposite page, not the API", async () => {
    for (const slug of ["nobody-here", "x", "a.b"]) {
      const answer = await send(`${rig.siteUrl(slug)}/`);
      expect(answer.status, slug).toBe(404);
      expect(answer.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(answer.text).toContain("No site here");
      expect(answer.text).toContain(rig.apiUrl);
    }
  });

  it("answers other methods on files with 405 and an Allow header", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const answer = await send(`${lumen}/about`, { method });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow).toBe("GET, HEAD");
      expect(answer.headers["content-type"]).toBe("text/html; charset=utf-8");
    }
  });

  it("never sends CORS headers or JSON errors on a site host, tokens and preflights included", async () => {
    const attempts: { method: string; headers: Record<string, string>; path: string }[] = [
      { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" }, path: "/" },
      { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "GET" }, path: "/app/sites" },
      { method: "GET", headers: { authorization: "Bearer nope", origin: "https://evil.example" }, path: "/app/sites" },
      { method: "POST", headers: { "content-type": "application/json" }, path: "/agent/login" },
      { method: "GET", headers: {}, path: "/healthz" },
    ];
    for (const attempt of attempts) {
      const answer = await send(`${lumen}${attempt.path}`, { method: attempt.method, headers: attempt.headers });
      const label = `${attempt.method} ${attempt.path}`;
      expect(
        Object.keys(answer.headers).filter((name) => name.startsWith("access-control-")),
        label
      ).toEqual([]);
      expect(answer.headers["content-type"], label).toMatch(/^text\/html/);
      expect(answer.headers["www-authenticate"], label).toBeUndefined();
      expect(answer.text, label).not.toMatch(/^\s*\{/);
    }
  });

  it("leaves the API host alone: GET /healthz is still JSON and preflights are still refused", async () => {
    const health = await send(`${rig.apiUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(health.text)).toEqual({ status: "ok" });
    const bare = await send(`${rig.apiUrl}/healthz`, { headers: { host: `localhost:${rig.port}` } });
    expect(JSON.parse(bare.text)).toEqual({ status: "ok" });
    const preflight = await send(`${rig.apiUrl}/app/sites`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(403);
    expect(JSON.parse(preflight.text)).toMatchObject({ code: "cors_refused" });
  });

  it("touches no storage on the hot path: zero storage calls across 100 requests after the first", async () => {
    await send(`${lumen}/`);
    await send(`${rig.siteUrl("ghost-site")}/`);
    rig.resetStorageCalls();
    const paths = ["/", "/about", "/faq", "/auth", "/sitemap.xml", "/robots.txt", "/missing", "/about/"];
    const encodings = ["", "gzip", "br, gzip"];
    for (let i = 0; i < 100; i++) {
      const path = paths[i % paths.length]!;
      const headers: Record<string, string> = { "user-agent": FIREFOX };
      if (encodings[i % 3]) headers["accept-encoding"] = encodings[i % 3]!;
      if (i % 5 === 0) headers["if-none-match"] = rig.site.files["/"]!.etag;
      const answer = await send(`${i % 10 === 9 ? rig.siteUrl("ghost-site") : lumen}${path}`, { headers });
      expect(answer.status).toBeGreaterThan(0);
    }
    expect(rig.storageCalls()).toBe(0);

    // The preview image's answers without a body come from memory too.
    const image = rig.site.files["/og.png"]!;
    expect((await send(`${lumen}/og.png`, { headers: { "if-none-match": image.etag } })).status).toBe(304);
    const head = await send(`${lumen}/og.png`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers["content-length"]).toBe(String(PNG.length));
    expect(rig.storageCalls()).toBe(0);
  });

  it("reads the preview image from storage for each answer with a body, and never keeps it in memory", async () => {
    await send(`${lumen}/`);
    const cached = rig.reposite.siteCache.peek("lumen")!;
    expect(cached.files.get("/og.png")!.held("identity")).toBeUndefined();
    rig.resetStorageCalls();
    for (let i = 1; i <= 3; i++) {
      const answer = await send(`${lumen}/og.png`, { headers: { "accept-encoding": "br, gzip" } });
      expect(answer.status).toBe(200);
      expect(answer.body.equals(PNG)).toBe(true);
      expect(answer.headers.etag).toBe(rig.site.files["/og.png"]!.etag);
      expect(answer.headers["cache-control"]).toBe("public, max-age=86400");
      expect(rig.storageCalls()).toBe(i);
    }
    expect(cached.files.get("/og.png")!.held("identity")).toBeUndefined();
  });

  it("makes gzip and the plain body of a page on first use, from memory, then answers them from memory", async () => {
    await send(`${lumen}/faq`, { headers: { "accept-encoding": "br" } });
    rig.resetStorageCalls();
    for (const encoding of ["gzip", ""]) {
      const first = await send(`${lumen}/faq`, { headers: encoding ? { "accept-encoding": encoding } : {} });
      const again = await send(`${lumen}/faq`, { headers: encoding ? { "accept-encoding": encoding } : {} });
      expect(first.headers["content-encoding"]).toBe(encoding || undefined);
      expect(again.body.equals(first.body)).toBe(true);
      expect(again.headers.etag).toBe(first.headers.etag);
      const plain = encoding === "gzip" ? gunzipSync(first.body) : first.body;
      expect(plain.equals(bodyOf("/faq"))).toBe(true);
      // Kept: the next such request is answered on the fast path, from memory.
      expect(rig.reposite.siteCache.peek("lumen")!.files.get("/faq")!.held(encoding === "gzip" ? "gzip" : "identity")?.equals(first.body)).toBe(true);
    }
    expect(rig.storageCalls()).toBe(0);
  });

  it("counts page views of browsers, not of scripts, bots, HEADs or files; the project's visits show them", async () => {
    const counter = rig.reposite.container.resolve(VisitCounter);
    await counter.flush();
    const before = (await rig.reposite.projects.list(rig.accountId))[0]!.visits;

    await send(`${lumen}/`, { headers: { "user-agent": FIREFOX } });
    await send(`${lumen}/about`, { headers: { "user-agent": FIREFOX } });
    await send(`${lumen}/`, { headers: { "user-agent": FIREFOX, "if-none-match": rig.site.files["/"]!.etag } });
    for (const userAgent of ["curl/8.5.0", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "python-requests/2.31"]) {
      await send(`${lumen}/`, { headers: { "user-agent": userAgent } });
    }
    await send(`${lumen}/`);
    await send(`${lumen}/`, { method: "HEAD", headers: { "user-agent": FIREFOX } });
    await send(`${lumen}/robots.txt`, { headers: { "user-agent": FIREFOX } });
    await send(`${lumen}/missing`, { headers: { "user-agent": FIREFOX } });
    await send(`${lumen}/about/`, { headers: { "user-agent": FIREFOX } });

    expect(counter.unwritten().get(rig.site.site_id)).toBe(3);
    await counter.flush();
    const [project] = await rig.reposite.projects.list(rig.accountId);
    expect(project!.visits).toBe(before + 3);
  });

  it("shows a new publish right after SITE_CHANGED", async () => {
    const before = await send(`${lumen}/`);
    expect(before.text).toContain("Status pages");
    expect(before.text).not.toContain("Status pages, revised");
    const next = snapshot({ id: rig.site.site_id, owner: rig.site.owner_id, slug: "lumen", url: lumen }, 2, ", revised");
    await rig.publish(next);
    const after = await send(`${lumen}/`, { headers: { "if-none-match": before.headers.etag! } });
    expect(after.status).toBe(200);
    expect(after.text).toContain("Status pages, revised");
    expect(after.headers.etag).toBe(next.files["/"]!.etag);
    // Back to what the other tests expect.
    await rig.publish(rig.site);
    expect((await send(`${lumen}/`)).body.equals(bodyOf("/"))).toBe(true);
  });

  it("a site published after its slug was asked for shows at once", async () => {
    expect((await send(`${rig.siteUrl("latecomer")}/`)).status).toBe(404);
    await rig.publish(snapshot({ id: rig.site.site_id, owner: rig.site.owner_id, slug: "latecomer", url: rig.siteUrl("latecomer") }));
    expect((await send(`${rig.siteUrl("latecomer")}/`)).status).toBe(200);
  });
});

describe("published sites in a browser", () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig("server");
  });
  afterAll(async () => {
    await rig?.close();
  });

  it("http://<slug>.localhost:<port>/ opens in Chromium, pages and the 404 page included; headless visits are not counted", async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const lumen = rig.siteUrl("lumen");
      const home = await page.goto(`${lumen}/`);
      expect(home?.status()).toBe(200);
      expect(await page.title()).toBe(samplePages.template.meta.title);
      expect(await home?.headerValue("content-encoding")).toBe("br");

      const missing = await page.goto(`${lumen}/nothing-here`);
      expect(missing?.status()).toBe(404);
      expect(await page.title()).toContain("Page not found");

      const redirected = await page.goto(`${lumen}/about/`);
      expect(redirected?.status()).toBe(200);
      expect(new URL(page.url()).pathname).toBe("/about");

      // A reload revalidates: the server answers 304 and the page is still there.
      const again = await page.goto(`${lumen}/about`);
      expect([200, 304]).toContain(again?.status());
      expect(await page.title()).toBe(samplePages.about.meta.title);

      expect(rig.reposite.container.resolve(VisitCounter).unwritten().get(rig.site.site_id) ?? 0).toBe(0);
    } finally {
      await browser.close();
    }
  });
});
