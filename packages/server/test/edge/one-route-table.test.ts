import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppRoutes, createReposite, EdgeRouteTable, ProjectStore, PublishedSiteStore, type PublishedSite, type Reposite } from "@reposite/core";
import { codeTestHost, freePort } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startServer, type RunningServer } from "../../src/start-server.js";

// The Node runtime and the nginx edge read one route table (core's EdgeRouteTable): after each
// change (an app switched, the gate turned on, a custom domain verified and removed, the site
// renamed) a request gets the same answer from Reposite's own process as from nginx in front of it,
// and the table both read names the change. One `startServer` with REPOSITE_EDGE=nginx; Reposite's
// internal address is the one its start-up line names.

const nginxHere = await new Promise<boolean>((resolve) => execFile("nginx", ["-v"], (error) => resolve(!error)));
if (process.env.REPOSITE_REQUIRE_DOCKER === "1" && !nginxHere) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but nginx is not installed (apt-get install nginx)");

interface Answer {
  status: number;
  location: string | undefined;
  body: string;
}

function send(port: number, host: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host }, agent: false, timeout: 5_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error(`no answer to ${host}${path}`)));
    req.end();
  });
}

/** What a visitor sees of an answer: its status, where it sends them, and which app or page answered. */
function seen(answer: Answer): string {
  const app = /^\{"app":"(\w+)"/.exec(answer.body)?.[1];
  const what = app ? `app ${app}` : `page ${createHash("sha256").update(answer.body).digest("hex").slice(0, 12)}`;
  return `${answer.status} ${answer.location ?? "-"} ${what}`;
}

/** A stand-in for a deployed container: says which one it is. */
async function standInApp(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ app: name }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

function snapshot(siteId: string, ownerId: string, slug: string, port: number): PublishedSite {
  const file = (path: string, body: string) => ({ path, contentType: "text/html; charset=utf-8", body, etag: `"${slug}${path}"`, lastModified: "2026-03-01T00:00:00Z" });
  const url = `http://${slug}.localhost:${port}`;
  return {
    site_id: siteId,
    owner_id: ownerId,
    slug,
    url,
    design: "console",
    name: "lumen",
    pages: ["template"],
    community: false,
    files: {
      "/": file("/", `<!doctype html><html><head><title>lumen</title><link rel="canonical" href="${url}/"></head><body><h1>lumen</h1></body></html>`),
      "/404": file("/404", "<!doctype html><title>Not found</title><h1>Not found</h1>"),
    },
    published_at: "2026-03-01T00:00:00Z",
    revision: 1,
  };
}

describe.runIf(nginxHere)("one route table for the Node runtime and the nginx edge", () => {
  let reposite: Reposite;
  let server: RunningServer;
  let dataDir: string;
  let port: number;
  let nodePort: number;
  let siteId: string;
  let ownerId: string;
  let table: EdgeRouteTable;
  const apps: { server: Server; port: number }[] = [];

  beforeAll(async () => {
    port = await freePort();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-one-route-table-"));
    reposite = createReposite({ repoHosts: [codeTestHost], config: { dataDir, baseUrl: `http://127.0.0.1:${port}`, sitesDomain: `localhost:${port}` } });
    apps.push(await standInApp("a"), await standInApp("b"));
    ownerId = (await reposite.accounts.findOrCreate("owner@example.com")).account.id;
    siteId = (await reposite.projects.create(ownerId, { repohost_url: "https://code.test/acme/lumen" })).id;
    // The address claimed and the site published, as publishing leaves them.
    expect(await reposite.container.resolve(PublishedSiteStore).claim("lumen", siteId)).toBe(true);
    await reposite.container.resolve(ProjectStore).modify(siteId, (project) => ({ ...project, slug: "lumen" }));
    await reposite.container.resolve(PublishedSiteStore).put(snapshot(siteId, ownerId, "lumen", port));
    server = await startServer({ settings: { listen: { port, hostname: "127.0.0.1" }, reposite: {}, edge: "nginx" }, reposite });
    nodePort = Number(/in front of Reposite on [^ ]+:(\d+)/.exec(server.edge ?? "")?.[1]);
    expect(nodePort).toBeGreaterThan(0);
    table = reposite.container.resolve(EdgeRouteTable);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    for (const app of apps) app.server.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /**
   * Reposite's own answer (at once: it decides from the table in memory) and nginx's (once its
   * reload with the table's new version is done) are the same; answers that one.
   */
  async function bothSee(host: string, path: string): Promise<string> {
    const node = seen(await send(nodePort, host, path));
    await vi.waitFor(async () => expect(seen(await send(port, host, path))).toBe(node), { timeout: 10_000, interval: 50 });
    return node;
  }

  const hostOf = (slug: string) => `${slug}.localhost:${port}`;
  const setRoute = async (app: { port: number }) => {
    const routes = reposite.container.resolve(AppRoutes);
    routes.set(siteId, { status: "running", target: { host: "127.0.0.1", port: app.port } });
    await routes.applied(siteId);
  };
  const appIn = (slug: string) => table.snapshot().apps.find((app) => app.slug === slug);

  it("is one table per composition, the one the edge is configured from", () => {
    expect(reposite.container.resolve(EdgeRouteTable)).toBe(table);
    expect(table.snapshot().sites).toEqual(["lumen"]);
  });

  it("an app switched: both send /app/ to the new container", async () => {
    await setRoute(apps[0]!);
    expect(await bothSee(hostOf("lumen"), "/app/who")).toBe("200 - app a");
    await setRoute(apps[1]!);
    expect(await bothSee(hostOf("lumen"), "/app/who")).toBe("200 - app b");
    expect(appIn("lumen")?.target?.port).toBe(apps[1]!.port);
  });

  it("the gate turned on: both send a signed-out visitor to sign in; off again, both let them through", async () => {
    await setRoute(apps[1]!);
    await reposite.container.resolve(ProjectStore).modify(siteId, (project) => ({ ...project, auth_redirect_to_app: true }));
    expect(await bothSee(hostOf("lumen"), "/app/who")).toMatch(/^302 \/auth\?next=%2Fapp%2Fwho page /);
    expect(table.projectRoute(siteId)?.gated).toBe(true);
    expect(appIn("lumen")?.gated).toBe(true);
    await reposite.container.resolve(ProjectStore).modify(siteId, (project) => ({ ...project, auth_redirect_to_app: false }));
    expect(await bothSee(hostOf("lumen"), "/app/who")).toBe("200 - app b");
    expect(appIn("lumen")?.gated).toBe(false);
  });

  it("a custom domain verified, then removed: both serve the site there, then neither does", async () => {
    await setRoute(apps[1]!);
    const page = await bothSee(hostOf("lumen"), "/");
    expect(page).toMatch(/^200 - page /);
    reposite.domainTable.set({ domain: "lumen.test", siteId, slug: "lumen", verified: true });
    expect(await bothSee("lumen.test", "/")).toMatch(/^200 - page /);
    expect(await bothSee("lumen.test", "/app/who")).toBe("200 - app b");
    expect(table.snapshot().domains).toEqual([{ domain: "lumen.test", slug: "lumen" }]);

    reposite.domainTable.deleteSite(siteId);
    // The name is Reposite's own host again (its home page), for both.
    expect(await bothSee("lumen.test", "/")).not.toBe(page);
    expect(await bothSee("lumen.test", "/app/who")).not.toMatch(/app b/);
    expect(table.snapshot().domains).toEqual([]);
    expect(await bothSee(hostOf("lumen"), "/")).toBe(page);
  });

  it("the site renamed: both serve the site and its app at the new address, neither at the old one", async () => {
    await setRoute(apps[1]!);
    await reposite.publishing.setSlug(ownerId, siteId, { slug: "lumen-two" });
    expect(await bothSee(hostOf("lumen-two"), "/")).toMatch(/^200 - page /);
    expect(await bothSee(hostOf("lumen-two"), "/app/who")).toBe("200 - app b");
    expect(await bothSee(hostOf("lumen"), "/app/who")).not.toMatch(/app b/);
    expect(appIn("lumen-two")?.target?.port).toBe(apps[1]!.port);
    expect(appIn("lumen")).toBeUndefined();
  });
});
