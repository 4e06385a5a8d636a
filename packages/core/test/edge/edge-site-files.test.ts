import { execFile } from "node:child_process";
import { access, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { edgeFileName, nginxEdgeConfig, type EdgeRoutes } from "../../src/index.js";

const run = promisify(execFile);
const nginxHere = await run("nginx", ["-v"]).then(() => true, () => false);
if (process.env.REPOSITE_REQUIRE_DOCKER === "1" && !nginxHere) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but nginx is not installed (apt-get install nginx)");
const BROTLI = "/usr/lib/nginx/modules/ngx_http_brotli_static_module.so";

describe("where a published file lies for the edge (edgeFileName)", () => {
  it("names pages, typed files, the home and 404 pages so nginx sends the snapshot's content type", () => {
    const html = "text/html; charset=utf-8";
    expect(edgeFileName("/", html)).toBe("index.html");
    expect(edgeFileName("/404", html)).toBe("404.html");
    expect(edgeFileName("/about", html)).toBe("pages/about.html");
    expect(edgeFileName("/docs/intro", html)).toBe("pages/docs/intro.html");
    expect(edgeFileName("/sitemap.xml", "application/xml; charset=utf-8")).toBe("files/sitemap.xml");
    expect(edgeFileName("/robots.txt", "text/plain; charset=utf-8", false)).toBe("plain/robots.txt");
    expect(edgeFileName("/favicon.ico", "image/png")).toBe("typed/favicon.ico.png");
    expect(edgeFileName("/favicon.ico", "image/svg+xml")).toBe("typed/favicon.ico.svg");
    expect(edgeFileName("/_images/ab12.webp", "image/webp")).toBe("files/_images/ab12.webp");
  });

  it("leaves odd paths and unknown types to Reposite", () => {
    expect(edgeFileName("/x/../etc", "text/html; charset=utf-8")).toBeNull();
    expect(edgeFileName("/a\\b", "text/html; charset=utf-8")).toBeNull();
    expect(edgeFileName("/data.bin", "application/octet-stream")).toBeNull();
    expect(edgeFileName("/404", "image/png")).toBeNull();
  });
});

describe.runIf(nginxHere)("nginx configuration with published sites", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  const routes: EdgeRoutes = { version: 3, sitesDomain: "sites.example.com", apps: [], domains: [{ domain: "lumen.dev", slug: "lumen" }, { domain: "other.dev", slug: "other" }], sites: ["lumen"] };

  it("maps the hosts of sites on disk (slug and verified domains) to their folder, and is accepted by nginx -t", async () => {
    const dir = await mkdtemp(join(tmpdir(), "reposite-edge-sites-conf-"));
    dirs.push(dir);
    await mkdir(join(dir, "tmp"), { recursive: true });
    const brotliModule = await access(BROTLI).then(() => BROTLI, () => null);
    const files = nginxEdgeConfig(routes, { listen: { hostname: "127.0.0.1", port: 18080 }, node: { host: "127.0.0.1", port: 18081 }, dir, trustProxy: false, shutdownSeconds: 7, sites: { dir: join(dir, "sites"), brotliModule, visitsLog: join(dir, "visits.log") } });
    expect(files["routes.conf"]).toContain('"lumen.sites.example.com" lumen;');
    expect(files["routes.conf"]).toContain('"lumen.dev" lumen;');
    // A domain of a site without files goes to Reposite.
    expect(files["routes.conf"]).not.toContain("other");
    // Its `if`s (one per files location) only send a request on (`return`), never in the proxied /app/ location.
    expect(files["nginx.conf"]!.match(/\bif\s*\(/g)).toHaveLength(2);
    expect(files["nginx.conf"]!.slice(files["nginx.conf"]!.indexOf("location ~ ^/app"))).not.toMatch(/\bif\s*\(/);
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    const { stderr } = await run("nginx", ["-t", "-p", dir, "-c", join(dir, "nginx.conf")]);
    expect(stderr).toContain("test is successful");
  });
});
