import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { appUpstream, nginxEdgeConfig, SWARM_RESOLVER, type EdgeRoutes } from "../../src/index.js";

// Apps on networks of their own (Swarm services): nginx resolves the service by name per request
// through Docker's DNS instead of holding one address in an `upstream`.

const run = promisify(execFile);
const nginxHere = await run("nginx", ["-v"]).then(() => true, () => false);

const routes: EdgeRoutes = {
  version: 3,
  sitesDomain: "sites.test",
  apps: [
    { siteId: "site_swarm0000000001", slug: "lumen", target: { host: "reposite-app-lumen", port: 8080, network: "reposite-app-lumen-net" }, gated: false },
    { siteId: "site_local0000000001", slug: "local", target: { host: "127.0.0.1", port: 4001 }, gated: false },
  ],
  domains: [{ domain: "lumen.dev", slug: "lumen" }],
  sites: [],
};
const settingsIn = (dir: string) => ({ listen: { hostname: "0.0.0.0", port: 18080 }, node: { socket: `${dir}/node.sock` }, dir, trustProxy: false, shutdownSeconds: 7 });

describe("the nginx configuration of apps on networks of their own", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("maps a networked app's hosts to its service name, resolved per request by Docker's DNS, retried on the next task", () => {
    const conf = nginxEdgeConfig(routes, settingsIn("/srv/edge"))["routes.conf"]!;
    expect(conf).toContain('"lumen.sites.test" reposite-app-lumen:8080;');
    expect(conf).toContain('"lumen.dev" reposite-app-lumen:8080;');
    expect(conf).not.toContain(`upstream ${appUpstream("site_swarm0000000001")}`);
    expect(conf).toContain(SWARM_RESOLVER);
    expect(conf).toContain("proxy_next_upstream error timeout;");
    // An app on this machine keeps its keepalive upstream; Node is reached on its socket.
    expect(conf).toContain(`upstream ${appUpstream("site_local0000000001")} {\n  server 127.0.0.1:4001;`);
    expect(conf).toContain("upstream reposite_node {\n  server unix:/srv/edge/node.sock;");
  });

  it("has no resolver while no app is on a network of its own", () => {
    const conf = nginxEdgeConfig({ ...routes, apps: routes.apps.slice(1), domains: [] }, settingsIn("/srv/edge"))["routes.conf"]!;
    expect(conf).not.toContain("resolver");
  });

  it.runIf(nginxHere)("is accepted by the real nginx -t (the name is not resolved until a request comes)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "reposite-edge-swarm-conf-"));
    dirs.push(dir);
    await mkdir(join(dir, "tmp"), { recursive: true });
    for (const [name, text] of Object.entries(nginxEdgeConfig(routes, settingsIn(dir)))) await writeFile(join(dir, name), text);
    const { stderr } = await run("nginx", ["-t", "-p", dir, "-c", join(dir, "nginx.conf")]);
    expect(stderr).toContain("test is successful");
  });
});
