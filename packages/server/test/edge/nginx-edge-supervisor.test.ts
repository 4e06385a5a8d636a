import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppRoutes, createReposite, EdgeRouteTable, ProjectStore, type ProjectRecord, type Reposite } from "@reposite/core";
import { freePort } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startNginxEdge, type NginxEdge } from "../../src/edge/index.js";
import { settingsFromEnv } from "../../src/config-from-env.js";

// The supervisor with the machine's real nginx: two small node:http servers stand for an app and
// for Reposite, and the route table is changed the way deploys change it.

const nginxHere = await new Promise<boolean>((resolve) => execFile("nginx", ["-v"], (error) => resolve(!error)));
if (process.env.REPOSITE_REQUIRE_DOCKER === "1" && !nginxHere) throw new Error("nginx is not installed (apt-get install nginx)");

const SITE = "site_aaaaaaaaaaaaaaaa";

function get(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, path: "/app/x", headers: { host }, agent: false }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on("error", reject)
      .end();
  });
}

const answering = async (body: string) => {
  const server = createServer((_req, res) => res.end(body));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
};

describe.runIf(nginxHere)("the nginx edge's supervisor with the real nginx", () => {
  let reposite: Reposite;
  let edge: NginxEdge;
  let dir: string;
  let port: number;
  let routes: AppRoutes;
  const servers: Server[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "reposite-edge-sup-"));
    reposite = createReposite({ repoHosts: [], config: { sitesDomain: "sites.test" } });
    await reposite.container.resolve(ProjectStore).insert({ id: SITE, owner_id: "acct_owner", slug: "lumen", auth_redirect_to_app: false } as ProjectRecord);
    const node = await answering("reposite");
    const app = await answering("app one");
    servers.push(node.server, app.server);
    routes = reposite.container.resolve(AppRoutes);
    routes.set(SITE, { status: "running", target: { host: "127.0.0.1", port: app.port } });
    const table = reposite.container.resolve(EdgeRouteTable);
    await table.load();
    port = await freePort();
    edge = await startNginxEdge({ dir, listen: { hostname: "127.0.0.1", port }, node: { host: "127.0.0.1", port: node.port }, trustProxy: false, shutdownMs: 3_000, table, appRoutes: routes, coalesceMs: 100 });
  });
  afterAll(async () => {
    await edge?.close();
    for (const server of servers) server.close();
    await reposite?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("serves the table it started with: the app's host to the app, any other host to Reposite", async () => {
    expect(await get(port, "lumen.sites.test")).toEqual({ status: 200, body: "app one" });
    expect(await get(port, "other.sites.test")).toEqual({ status: 200, body: "reposite" });
    expect(edge.applied()).toBe(1);
  });

  it("makes a burst of route changes one reload, and holds the old target until nginx let go of it", async () => {
    const apps = await Promise.all(["app two", "app three", "app four"].map(answering));
    servers.push(...apps.map((each) => each.server));
    const first = routes.entries()[0]![1].target!;
    for (const { port: appPort } of apps) routes.set(SITE, { status: "running", target: { host: "127.0.0.1", port: appPort } });
    // The switched-away target is counted busy: a deploy's drain waits for nginx.
    expect(routes.pending(first)).toBe(1);
    await vi.waitFor(async () => expect((await get(port, "lumen.sites.test")).body).toBe("app four"), { timeout: 5_000 });
    await vi.waitFor(() => expect(routes.pending(first)).toBe(0), { timeout: 5_000 });
    expect(edge.applied()).toBe(2);
  });

  it("keeps the running configuration when a new one fails nginx -t, and applies the next good one", async () => {
    const good = await readFile(join(dir, "routes.conf"), "utf8");
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    // A target nginx cannot resolve: `nginx -t` refuses the whole configuration.
    routes.set(SITE, { status: "running", target: { host: "no-such-host.invalid", port: 80 } });
    await vi.waitFor(() => expect(errors).toHaveBeenCalledWith(expect.stringMatching(/were not applied; nginx keeps serving version \d+: .*no-such-host\.invalid/)), { timeout: 10_000 });
    errors.mockRestore();
    expect(await readFile(join(dir, "routes.conf"), "utf8")).toBe(good);
    expect(await get(port, "lumen.sites.test")).toEqual({ status: 200, body: "app four" });
    const five = await answering("app five");
    servers.push(five.server);
    routes.set(SITE, { status: "running", target: { host: "127.0.0.1", port: five.port } });
    await vi.waitFor(async () => expect((await get(port, "lumen.sites.test")).body).toBe("app five"), { timeout: 5_000 });
  });

  it("sends a stopped app's /app/ to Reposite (its 503 page)", async () => {
    routes.set(SITE, { status: "stopped", target: null });
    await vi.waitFor(async () => expect((await get(port, "lumen.sites.test")).body).toBe("reposite"), { timeout: 5_000 });
  });
});

describe("REPOSITE_EDGE", () => {
  it("is nginx or left out; anything else is a start-up error", () => {
    expect(settingsFromEnv({ REPOSITE_EDGE: "nginx" }).edge).toBe("nginx");
    expect(settingsFromEnv({}).edge).toBeUndefined();
    expect(() => settingsFromEnv({ REPOSITE_EDGE: "caddy" })).toThrow(/REPOSITE_EDGE must be nginx .* not "caddy"/);
  });

  it("without nginx installed, names the Debian/Ubuntu package", async () => {
    const dir = await mkdtemp(join(tmpdir(), "reposite-edge-none-"));
    const reposite = createReposite({ repoHosts: [] });
    try {
      await expect(
        startNginxEdge({ dir, binary: "nginx-not-installed-here", listen: { hostname: "127.0.0.1", port: 1 }, node: { host: "127.0.0.1", port: 2 }, trustProxy: false, shutdownMs: 1_000, table: reposite.container.resolve(EdgeRouteTable), appRoutes: reposite.container.resolve(AppRoutes) }),
      ).rejects.toThrow(/REPOSITE_EDGE=nginx needs nginx.*apt-get install nginx/);
    } finally {
      await reposite.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
