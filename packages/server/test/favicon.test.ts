import { createHash } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createReposite, DESIGNS, injectHead, renderFavicons, renderPage, siteHead, STORAGE, type PublishedFile, type PublishedSite, type Reposite } from "@reposite/core";
import { samplePages, sampleSite } from "@reposite/test-support";
import { toNodeHandler } from "h3";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";

const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

function file(path: string, contentType: string, body: string | Buffer): PublishedFile {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  return {
    path,
    contentType,
    body: typeof body === "string" ? body : bytes.toString("base64"),
    ...(typeof body === "string" ? {} : { encoding: "base64" as const }),
    etag: `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 22)}"`,
    lastModified: "2026-03-01T10:00:00.000Z",
  };
}

/** A snapshot with a landing page and the icon files publishing writes for `logo`. */
async function snapshot(slug: string, name: string, logo: string): Promise<PublishedSite> {
  const design = DESIGNS[0]!;
  const icons = await renderFavicons({ name, logo, design, colorMode: "" });
  const files = [
    file(
      "/",
      "text/html; charset=utf-8",
      injectHead(
        renderPage(design, samplePages.template, sampleSite({ name, logoUrl: logo })),
        siteHead({ pageUrl: `http://${slug}.sites.test/`, siteUrl: `http://${slug}.sites.test`, siteName: name, title: name, description: name })
      )
    ),
    ...icons.map((icon) => file(icon.path, icon.contentType, icon.body)),
  ];
  return {
    site_id: `site_${slug}`,
    owner_id: "acct_owner",
    slug,
    url: `http://${slug}.sites.test`,
    design: design.id,
    name,
    pages: ["template"],
    community: false,
    files: Object.fromEntries(files.map((f) => [f.path, f])),
    published_at: "2026-03-01T10:00:00.000Z",
    revision: 1,
  };
}

function get(url: string, host: string): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("favicon on a published site", () => {
  let reposite: Reposite;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    reposite = createReposite({ storage: createStorage(), config: { baseUrl: "http://app.test", sitesDomain: "sites.test" } });
    const storage = reposite.container.resolve(STORAGE);
    await storage.setItem("published-sites:plain", await snapshot("plain", "rocket", ""));
    await storage.setItem("published-sites:logoed", await snapshot("logoed", "rocket", `data:image/png;base64,${PIXEL.toString("base64")}`));
    server = createServer(toNodeHandler(createApp(reposite)));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await reposite.close();
  });

  it("links /favicon.ico from the page and answers it with an image, cached like other images", async () => {
    const page = await get(`${base}/`, "plain.sites.test");
    expect(page.body.toString("utf8")).toContain('<link rel="icon" href="/favicon.ico">');
    const ico = await get(`${base}/favicon.ico`, "plain.sites.test");
    expect(ico.status).toBe(200);
    expect(ico.headers["content-type"]).toMatch(/^image\//);
    expect(ico.headers["cache-control"]).toBe("public, max-age=86400");
  });

  it("serves an SVG monogram in the design's colours without a logo", async () => {
    const svg = await get(`${base}/favicon.svg`, "plain.sites.test");
    expect(svg.status).toBe(200);
    expect(svg.headers["content-type"]).toBe("image/svg+xml");
    const text = svg.body.toString("utf8");
    expect(text).toContain(`fill="${DESIGNS[0]!.look.palette.accent}"`);
    expect(text).toContain(">R</text>");
  });

  it("serves the project's logo as the icon when it has one", async () => {
    const ico = await get(`${base}/favicon.ico`, "logoed.sites.test");
    expect(ico.status).toBe(200);
    expect(ico.headers["content-type"]).toBe("image/png");
    expect(ico.body.equals(PIXEL)).toBe(true);
  });
});
