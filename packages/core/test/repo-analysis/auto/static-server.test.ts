import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { freePort, waitForHttp } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATIC_SERVER_SOURCE } from "../../../src/repo-analysis/auto/static-server.js";

/** The static server Reposite adds to built sites, run here with this machine's Node (the Docker test runs it in an image). */
describe("static server (.reposite/serve.mjs)", () => {
  let folder: string;
  let server: ChildProcess;
  let url: string;

  const site: Record<string, string> = {
    "index.html": "<h1>home</h1>",
    "about.html": "<h1>about</h1>",
    "docs/index.html": "<h1>docs</h1>",
    "assets/app.js": "console.log(1)",
    "assets/style.css": "body{}",
    "logo.svg": "<svg/>",
    ".env": "SECRET=1",
    ".well-known/security.txt": "Contact: x",
  };

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "reposite-serve-"));
    for (const [path, content] of Object.entries(site)) {
      await mkdir(dirname(join(folder, "site", path)), { recursive: true });
      await writeFile(join(folder, "site", path), content);
    }
    await writeFile(join(folder, "serve.mjs"), STATIC_SERVER_SOURCE);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [join(folder, "serve.mjs"), join(folder, "site")], { env: { ...process.env, PORT: String(port) }, stdio: "ignore" });
    await waitForHttp(`${url}/health`, { timeoutMs: 10_000 });
  });

  afterAll(async () => {
    server?.kill("SIGTERM");
    await rm(folder, { recursive: true, force: true });
  });

  const get = async (path: string, init?: RequestInit) => {
    const response = await fetch(`${url}${path}`, { redirect: "manual", ...init });
    return { status: response.status, type: response.headers.get("content-type"), location: response.headers.get("location"), body: await response.text(), headers: response.headers };
  };

  it("answers files with their content types", async () => {
    expect(await get("/")).toMatchObject({ status: 200, type: "text/html; charset=utf-8", body: "<h1>home</h1>" });
    expect(await get("/assets/app.js")).toMatchObject({ status: 200, type: "text/javascript; charset=utf-8", body: "console.log(1)" });
    expect(await get("/assets/style.css")).toMatchObject({ status: 200, type: "text/css; charset=utf-8" });
    expect(await get("/logo.svg")).toMatchObject({ status: 200, type: "image/svg+xml" });
    expect(await get("/health")).toMatchObject({ status: 200, body: "ok\n" });
  });

  it("answers deep links with index.html and 200, and missing files with 404", async () => {
    expect(await get("/users/42/settings?tab=1")).toMatchObject({ status: 200, body: "<h1>home</h1>" });
    expect(await get("/assets/missing.js")).toMatchObject({ status: 404 });
  });

  it("serves clean URLs and redirects folders relatively, so the redirect stays under /app/", async () => {
    expect(await get("/about")).toMatchObject({ status: 200, body: "<h1>about</h1>" });
    expect(await get("/docs/")).toMatchObject({ status: 200, body: "<h1>docs</h1>" });
    expect(await get("/docs?x=1")).toMatchObject({ status: 301, location: "docs/?x=1" });
  });

  it("hides dotfiles but serves .well-known", async () => {
    expect(await get("/.env")).toMatchObject({ status: 404 });
    expect(await get("/..%2f..%2fetc%2fpasswd")).toMatchObject({ status: 404 });
    expect(await get("/.well-known/security.txt")).toMatchObject({ status: 200, body: "Contact: x" });
  });

  it("caches hashed assets for long, revalidates pages, and answers 304 to a matching ETag", async () => {
    const asset = await get("/assets/app.js");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await get("/")).headers.get("cache-control")).toBe("no-cache");
    expect((await get("/assets/app.js", { headers: { "if-none-match": asset.headers.get("etag") ?? "" } })).status).toBe(304);
  });

  it("refuses other methods", async () => {
    expect(await get("/", { method: "POST" })).toMatchObject({ status: 405 });
  });

  // Runs last: it adds a 404.html, which multi-page sites (Astro, a Next.js export) ship.
  it("answers unknown pages with 404.html and 404 when the site has one", async () => {
    await writeFile(join(folder, "site", "404.html"), "<h1>not found</h1>");
    expect(await get("/no/such/page")).toMatchObject({ status: 404, type: "text/html; charset=utf-8", body: "<h1>not found</h1>" });
  });
});
