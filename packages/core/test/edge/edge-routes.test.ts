import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createStorage } from "unstorage";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { AppRoutes, appUpstream, createReposite, EdgeRouteTable, nginxEdgeConfig, ProjectRecordsSplit, ProjectStore, type EdgeRoutes, type ProjectRecord, type Reposite } from "../../src/index.js";

const run = promisify(execFile);

function project(id: string, slug: string, changes: Partial<ProjectRecord> = {}): ProjectRecord {
  return {
    id,
    owner_id: "acct_owner",
    created_at: "2026-03-01T00:00:00Z",
    updated_at: "2026-03-01T00:00:00Z",
    repository: { host: "github", owner: "acme", name: slug, url: `https://github.com/acme/${slug}`, private: false, default_branch: "main", description: "", topics: [] },
    slug,
    name: slug,
    description: "",
    ga_id: "",
    design: "console",
    color_mode: "",
    logo_url: "",
    logo_image: "",
    auth_redirect_to_app: false,
    visits: 0,
    ...changes,
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe("the edge's route table (EdgeRouteTable)", () => {
  const open: Reposite[] = [];
  afterEach(async () => {
    for (const reposite of open.splice(0)) await reposite.close();
  });

  async function rig() {
    const storage = createStorage();
    const reposite = createReposite({ storage, repoHosts: [], config: { sitesDomain: "sites.example.com:8080" } });
    open.push(reposite);
    // The one-time move of earlier records reads storage once at start: done before reads are counted.
    await reposite.container.resolve(ProjectRecordsSplit).ready();
    const store = reposite.container.resolve(ProjectStore);
    await store.insert(project("site_aaaaaaaaaaaaaaaa", "lumen"));
    await store.insert(project("site_bbbbbbbbbbbbbbbb", "ledger", { auth_redirect_to_app: true }));
    const reads = vi.spyOn(storage, "getItem");
    const table = reposite.container.resolve(EdgeRouteTable);
    return { reposite, store, table, routes: reposite.container.resolve(AppRoutes), reads };
  }

  it("follows the /app/ table, gates and verified domains, with a version that grows on every change", async () => {
    const { reposite, table, routes } = await rig();
    const seen: EdgeRoutes[] = [];
    table.subscribe((routes) => seen.push(routes));
    const first = table.snapshot();
    expect(first).toMatchObject({ sitesDomain: "sites.example.com", apps: [], domains: [] });

    routes.set("site_aaaaaaaaaaaaaaaa", { status: "running", target: { host: "127.0.0.1", port: 4001 } });
    routes.set("site_bbbbbbbbbbbbbbbb", { status: "running", target: { host: "127.0.0.1", port: 4002 } });
    await settle();
    expect(table.snapshot().apps).toEqual([
      { siteId: "site_bbbbbbbbbbbbbbbb", slug: "ledger", target: { host: "127.0.0.1", port: 4002 }, gated: true, status: "running" },
      { siteId: "site_aaaaaaaaaaaaaaaa", slug: "lumen", target: { host: "127.0.0.1", port: 4001 }, gated: false, status: "running" },
    ]);

    // A deploy's switch-over: the new target, at once (no read), and a stop.
    routes.set("site_aaaaaaaaaaaaaaaa", { status: "running", target: { host: "127.0.0.1", port: 4003 } });
    expect(table.snapshot().apps.find((app) => app.slug === "lumen")?.target).toEqual({ host: "127.0.0.1", port: 4003 });
    routes.set("site_aaaaaaaaaaaaaaaa", { status: "stopped", target: null });
    expect(table.snapshot().apps.find((app) => app.slug === "lumen")?.target).toBeNull();
    // Its state names the page an edge answers while it is not running.
    expect(table.snapshot().apps.find((app) => app.slug === "lumen")?.status).toBe("stopped");

    reposite.domainTable.set({ domain: "lumen.dev", siteId: "site_aaaaaaaaaaaaaaaa", slug: "lumen", verified: false });
    expect(table.snapshot().domains).toEqual([]);
    reposite.domainTable.set({ domain: "lumen.dev", siteId: "site_aaaaaaaaaaaaaaaa", slug: "lumen", verified: true });
    expect(table.snapshot().domains).toEqual([{ domain: "lumen.dev", slug: "lumen" }]);

    routes.delete("site_bbbbbbbbbbbbbbbb");
    expect(table.snapshot().apps.map((app) => app.slug)).toEqual(["lumen"]);
    const versions = seen.map((routes) => routes.version);
    expect(versions.length).toBeGreaterThanOrEqual(5);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(versions[0]).toBeGreaterThan(first.version);
  });

  it("reads a project only for apps: when its route first appears and when that project changes", async () => {
    const { store, table, routes, reads } = await rig();
    routes.set("site_aaaaaaaaaaaaaaaa", { status: "running", target: { host: "127.0.0.1", port: 4001 } });
    await settle();
    expect(reads).toHaveBeenCalledTimes(1);
    for (let port = 4002; port < 4012; port++) routes.set("site_aaaaaaaaaaaaaaaa", { status: "running", target: { host: "127.0.0.1", port } });
    expect(reads).toHaveBeenCalledTimes(1);
    // A project without an app changes: nothing read.
    await store.modify("site_bbbbbbbbbbbbbbbb", (record) => ({ ...record, name: "renamed" }));
    reads.mockClear();
    await store.modify("site_aaaaaaaaaaaaaaaa", (record) => ({ ...record, slug: "lumen-two", auth_redirect_to_app: true }));
    await settle();
    expect(reads.mock.calls.filter(([key]) => key === "projects:site_aaaaaaaaaaaaaaaa")).toHaveLength(2); // modify's own read, and the table's
    expect(table.snapshot().apps).toEqual([{ siteId: "site_aaaaaaaaaaaaaaaa", slug: "lumen-two", target: { host: "127.0.0.1", port: 4011 }, gated: true, status: "running" }]);
  });

  it("holds a target like a request would, so a switched-away container is not stopped while the edge may still send to it", async () => {
    const { routes } = await rig();
    const target = { host: "127.0.0.1", port: 4001 };
    const release = routes.hold(target);
    let drained = false;
    const waiting = routes.drained(target, 5_000).then(() => (drained = true));
    await settle();
    expect(drained).toBe(false);
    release();
    await waiting;
    expect(routes.pending(target)).toBe(0);
  });
});

describe("nginx configuration of the edge (nginxEdgeConfig)", () => {
  const routes: EdgeRoutes = {
    version: 7,
    sitesDomain: "sites.example.com",
    apps: [
      { siteId: "site_aaaaaaaaaaaaaaaa", slug: "lumen", target: { host: "127.0.0.1", port: 4001 }, gated: false },
      { siteId: "site_bbbbbbbbbbbbbbbb", slug: "ledger", target: { host: "127.0.0.1", port: 4002 }, gated: true },
      { siteId: "site_cccccccccccccccc", slug: "stopped", target: null, gated: false },
    ],
    domains: [
      { domain: "lumen.dev", slug: "lumen" },
      { domain: "ledger.dev", slug: "ledger" },
    ],
    sites: [],
  };
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  const settingsIn = (dir: string) => ({ listen: { hostname: "127.0.0.1", port: 18080 }, node: { host: "127.0.0.1", port: 18081 }, dir, trustProxy: false, shutdownSeconds: 7 });

  it("maps each running, open app's hosts to its own keepalive upstream; everything else goes to Reposite", () => {
    const files = nginxEdgeConfig(routes, settingsIn("/srv/edge"));
    expect(Object.keys(files).sort()).toEqual(["nginx.conf", "routes.conf"]);
    const map = files["routes.conf"]!;
    expect(map).toContain("map $reposite_cookie_mark$host $reposite_upstream {\n  default reposite_node;\n");
    const lumen = appUpstream("site_aaaaaaaaaaaaaaaa");
    expect(map).toContain(`"lumen.sites.example.com" ${lumen};`);
    expect(map).toContain(`"lumen.dev" ${lumen};`);
    expect(map).toContain(`upstream ${lumen} {\n  server 127.0.0.1:4001;\n  keepalive 32;`);
    expect(map).toContain("upstream reposite_node {\n  server 127.0.0.1:18081;");
    // Members-only and stopped apps: no upstream of their own (Reposite answers the gate and the 503 page).
    expect(map).not.toContain("ledger");
    expect(map).not.toContain("stopped");
    expect(map).not.toContain("site_cccccccccccccccc");
  });

  it("names app upstreams so nginx's scan for one rarely compares names: lengths spread, the id first", () => {
    // nginx picks the upstream a variable names by scanning all of them, comparing lengths, then names from the first character.
    const ids = Array.from({ length: 2000 }, (_, i) => `site_${i.toString(36).padStart(16, "0")}`);
    const names = ids.map(appUpstream);
    expect(new Set(names).size).toBe(ids.length);
    expect(appUpstream(ids[7]!)).toBe(names[7]);
    const byLength = new Map<number, number>();
    for (const name of names) byLength.set(name.length, (byLength.get(name.length) ?? 0) + 1);
    expect(byLength.size).toBe(24);
    // About 2000 / 24 = 83 names share a length; none has many more.
    expect(Math.max(...byLength.values())).toBeLessThan(140);
    expect(names[5]).toMatch(/^0{15}5_*$/);
  });

  it("strips /app, sets X-Forwarded-*, drops the visitor's own, streams and upgrades, and never uses `if`", () => {
    const conf = nginxEdgeConfig(routes, settingsIn("/srv/edge"))["nginx.conf"]!;
    for (const line of [
      "proxy_set_header X-Forwarded-For $remote_addr;",
      "proxy_set_header X-Forwarded-Proto $scheme;",
      "proxy_set_header X-Forwarded-Host $http_host;",
      "proxy_set_header X-Forwarded-Prefix /app;",
      'proxy_set_header Forwarded "";',
      'proxy_set_header X-Real-IP "";',
      'proxy_set_header X-Reposite-Member-Id "";',
      "proxy_set_header Upgrade $reposite_upgrade;",
      "proxy_set_header Connection $reposite_connection;",
      "proxy_buffering off;",
      "proxy_request_buffering off;",
      "pid /srv/edge/nginx.pid;",
      "listen 127.0.0.1:18080 default_server;",
      "proxy_pass http://$reposite_upstream$reposite_app_path;",
    ]) {
      expect(conf).toContain(line);
    }
    expect(conf).not.toMatch(/\bif\s*\(/);
    // Every location carries the forwarding headers (a location's own proxy_set_header inherits none):
    // Reposite's, and `/app` and `/app/`, prefix locations (no regular expression to test per request).
    expect(conf.match(/X-Forwarded-For \$remote_addr/g)).toHaveLength(3);
    expect(conf).toContain("location = /app {");
    expect(conf).toContain("location ^~ /app/ {");
    expect(conf).not.toMatch(/location ~/);
    expect(conf).not.toContain("real_ip_header");
    // Behind a trusted proxy, its client address and scheme.
    const trusted = nginxEdgeConfig(routes, { ...settingsIn("/srv/edge"), trustProxy: true })["nginx.conf"]!;
    expect(trusted).toContain("real_ip_header X-Forwarded-For;");
    expect(trusted).toContain("proxy_set_header X-Forwarded-Proto $reposite_proto;");
    expect(trusted).toContain("map $http_x_forwarded_proto $reposite_proto {");
  });

  it("is accepted by the real nginx -t", async () => {
    const dir = await mkdtemp(join(tmpdir(), "reposite-edge-conf-"));
    dirs.push(dir);
    await mkdir(join(dir, "tmp"), { recursive: true });
    for (const trustProxy of [false, true]) {
      for (const [name, text] of Object.entries(nginxEdgeConfig(routes, { ...settingsIn(dir), trustProxy }))) await writeFile(join(dir, name), text);
      const { stderr } = await run("nginx", ["-t", "-p", dir, "-c", join(dir, "nginx.conf")]);
      expect(stderr).toContain("test is successful");
    }
  });
});
