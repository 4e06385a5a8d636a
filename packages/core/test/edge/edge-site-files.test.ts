import { execFile } from "node:child_process";
import { access, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { edgeFileName, nginxEdgeConfig, siteHosts, type EdgeRoutes } from "../../src/index.js";

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
    // The hosts of sites on disk have a server of their own, whose files nginx finds by host (their links: siteHosts);
    // a domain of a site without files, and any other host, reach the default server, which sends all but /app to Reposite.
    expect(siteHosts(routes)).toEqual([["lumen.sites.example.com", "lumen"], ["lumen.dev", "lumen"]]);
    expect(files["routes.conf"]).toContain('server_name "lumen.sites.example.com" "lumen.dev";');
    expect(files["routes.conf"]).not.toContain("other");
    expect(files["routes.conf"]).toContain(`root ${join(dir, "hosts")};`);
    const defaultServer = files["nginx.conf"]!.slice(files["nginx.conf"]!.indexOf("  server {"));
    expect(defaultServer).not.toContain("try_files");
    // No `if` anywhere: a method is told by limit_except, a site by the server's name.
    expect(Object.values(files).join("\n")).not.toMatch(/\bif\s*\(/);
    await nginxAccepts(dir, files);
  });

  it("is accepted by nginx with host names up to DNS's 253 characters, and with 20,000 sites", async () => {
    const dir = await mkdtemp(join(tmpdir(), "reposite-edge-sites-conf-"));
    dirs.push(dir);
    await mkdir(join(dir, "tmp"), { recursive: true });
    // nginx's default hash buckets (64 bytes) hold names of about 40 characters: a 60-character slug
    // under this sites domain, or a long custom domain, made every configuration fail `nginx -t`.
    const longSlug = `a${"b".repeat(58)}c`;
    const longDomain = `${"d".repeat(63)}.${"e".repeat(63)}.${"f".repeat(63)}.${"g".repeat(53)}.example`;
    expect(longDomain).toHaveLength(253);
    const many = Array.from({ length: 20_000 }, (_, i) => `site-${i}`);
    const target = { host: "127.0.0.1", port: 18090 };
    const longRoutes: EdgeRoutes = {
      version: 4,
      sitesDomain: "sites.example.com",
      apps: [{ siteId: "site_long", slug: longSlug, target, gated: false }],
      domains: [{ domain: longDomain, slug: longSlug }],
      sites: [longSlug, ...many].sort(),
    };
    const files = nginxEdgeConfig(longRoutes, { listen: { hostname: "127.0.0.1", port: 18080 }, node: { host: "127.0.0.1", port: 18081 }, dir, trustProxy: false, shutdownSeconds: 7, sites: { dir: join(dir, "sites"), brotliModule: null, visitsLog: null } });
    expect(files["routes.conf"]).toContain(`"${longDomain}"`);
    await nginxAccepts(dir, files);
  });
});

async function nginxAccepts(dir: string, files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  const { stderr } = await run("nginx", ["-t", "-p", dir, "-c", join(dir, "nginx.conf")]);
  expect(stderr).toContain("test is successful");
  expect(stderr).not.toContain("[warn]");
}
