import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { Readable } from "node:stream";
import { join } from "node:path";
import { AppRoutes, createReposite, EdgeRouteTable, ProjectStore, type AppHandle, type AppImage, type ProjectRecord, type Reposite } from "@reposite/core";
import { createSwarmAppRuntime, createSwarmImageBuilder, type SwarmAppRuntime } from "@reposite/provider-swarm";
import { buildLocalBaseImages, buildLocalNginxImage, docker, dockerForTests, ensureSwarm, freePort, removeLabelled, startRegistry, writeTar, type TestRegistry } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startNginxEdge, type NginxEdge } from "../../src/edge/index.js";
import { containerNginx, EDGE_CONTAINER_LABEL } from "../../src/edge/nginx-container.js";

// The nginx edge in a container (REPOSITE_EDGE_NGINX=container) in front of Swarm apps, on the real
// single-node swarm and a loopback registry: the edge joins each app's overlay network and resolves
// the service by name through Docker's DNS, which answers healthy tasks only. Node stands behind it
// on a Unix socket. Everything is named reposite-swarmtest-edge-* and labelled with this run.

const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `reposite-swarmtest-edge-${randomBytes(4).toString("hex")}`;
const labels = { [RUN_LABEL]: run };
const MAIN = "site_swarmedgemain0001";
const OTHER = "site_swarmedgeother001";
const BROKEN = "site_swarmedgebroken01";

/** Answers its version and its task's host name; leaves at once on SIGTERM, as many apps do. */
const APP_SERVER = `
const http = require("node:http"), os = require("node:os");
process.on("SIGTERM", () => process.exit(0));
http.createServer((req, res) => {
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ version: process.env.APP_VERSION, host: os.hostname(), path: req.url }));
}).listen(Number(process.env.PORT));
`;

function get(port: number, host: string, path = "/app/hello"): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, headers: { host }, agent: false, timeout: 10_000 }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on("error", reject)
      .on("timeout", function (this: { destroy(error: Error): void }) {
        this.destroy(new Error("no answer within 10 s"));
      })
      .end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!engine.available)("the nginx edge in a container in front of Swarm apps", () => {
  let registry: TestRegistry;
  let runtime: SwarmAppRuntime;
  let reposite: Reposite;
  let routes: AppRoutes;
  let table: EdgeRouteTable;
  let edge: NginxEdge;
  let root: string;
  let node: Server;
  let port: number;
  const images: Record<"v1" | "v2" | "bad", AppImage | null> = { v1: null, v2: null, bad: null };
  let main: AppHandle;
  let other: AppHandle;
  const container = `${run}-nginx`;

  /** The networks the edge container is on now. */
  const edgeNetworks = async () => Object.keys(JSON.parse((await docker(["inspect", "--format", "{{json .NetworkSettings.Networks}}", container])).stdout) as Record<string, unknown>);
  /** An app's JSON through the edge once it answers there. */
  const answerOf = (host: string) =>
    vi.waitFor(
      async () => {
        const answer = await get(port, host);
        expect(answer.status).toBe(200);
        return JSON.parse(answer.body) as { version: string; host: string; path: string };
      },
      { timeout: 90_000, interval: 250 },
    );
  /** The edge in its container on `port`, Node behind it on its socket: also what a restarted Reposite starts. */
  const startEdge = (image: string) =>
    startNginxEdge({
      dir: join(root, "edge"),
      listen: { hostname: "127.0.0.1", port },
      node: { socket: join(root, "run", "node.sock") },
      trustProxy: false,
      shutdownMs: 3_000,
      table,
      appRoutes: routes,
      coalesceMs: 100,
      runner: containerNginx({ image, name: container, mounts: [join(root, "run")], labels }),
    });
  /** Steady requests through the edge (two clients, a new connection each) while `during` runs. */
  const underLoad = async <T>(during: () => Promise<T>) => {
    let polling = true;
    const failures: string[] = [];
    const versions: string[] = [];
    const client = async () => {
      while (polling) {
        const answer = await get(port, "lumen.sites.test").catch((error: Error) => ({ status: 0, body: error.message }));
        if (answer.status === 200) versions.push((JSON.parse(answer.body) as { version: string }).version);
        else failures.push(`${answer.status} ${answer.body.slice(0, 80)}`);
        await sleep(20);
      }
    };
    const clients = [client(), client()];
    const result = await during().finally(() => (polling = false));
    await Promise.all(clients);
    return { result, failures, versions };
  };

  beforeAll(async () => {
    await ensureSwarm();
    registry = await startRegistry();
    const options = { registry: { address: registry.address }, health: { intervalSeconds: 1, timeoutSeconds: 2, retries: 3, startPeriodSeconds: 3 } };
    runtime = createSwarmAppRuntime(options);
    const builder = createSwarmImageBuilder(options);
    const [base, nginxImage] = await Promise.all([buildLocalBaseImages(), buildLocalNginxImage()]);
    const build = (tag: string, lines: string[], from: string) =>
      builder.build({
        context: Readable.from([writeTar([{ path: "Dockerfile", type: "file", content: Buffer.from([`FROM ${from}`, ...lines, ""].join("\n")) }, { path: "server.js", type: "file", content: Buffer.from(APP_SERVER) }])]),
        dockerfile: "Dockerfile",
        tag: `${run}/app:${tag}`,
        labels,
        memoryMb: 256,
        timeoutMs: 120_000,
        onLog: () => undefined,
      });
    const app = (version: string) => ["COPY server.js /app/server.js", `ENV APP_VERSION=${version}`, 'CMD ["node", "/app/server.js"]'];
    images.v1 = await build("v1", app("v1"), base.node);
    images.v2 = await build("v2", app("v2"), base.node);
    // Runs, but never answers HTTP: its health check never passes.
    images.bad = await build("bad", ['CMD ["sleep", "3600"]'], base.busybox);
    const spec = (role: string) => ({ name: `${run}-${role}`, image: images.v1!.reference, labels, env: {}, port: 8080, memoryMb: 128, cpus: 0.5, pidsLimit: 64, healthPath: "/", network: `${run}-${role}-net` });
    [main, other] = await Promise.all([runtime.run(spec("main")), runtime.run(spec("other"))]);

    // Reposite's Node process, standing behind nginx on a Unix socket in a folder of its own.
    root = await mkdtemp(join(tmpdir(), "reposite-swarm-edge-"));
    await mkdir(join(root, "run"));
    node = createServer((_req, res) => res.end("reposite"));
    await new Promise<void>((resolve) => node.listen(join(root, "run", "node.sock"), resolve));
    reposite = createReposite({ repoHosts: [], config: { sitesDomain: "sites.test" } });
    const projects = reposite.container.resolve(ProjectStore);
    await projects.insert({ id: MAIN, owner_id: "acct_owner", slug: "lumen", auth_redirect_to_app: false } as ProjectRecord);
    await projects.insert({ id: OTHER, owner_id: "acct_owner", slug: "umbra", auth_redirect_to_app: false } as ProjectRecord);
    await projects.insert({ id: BROKEN, owner_id: "acct_owner", slug: "broken", auth_redirect_to_app: false } as ProjectRecord);
    routes = reposite.container.resolve(AppRoutes);
    routes.set(MAIN, { status: "running", target: main.address });
    routes.set(OTHER, { status: "running", target: other.address });
    table = reposite.container.resolve(EdgeRouteTable);
    await table.load();
    port = await freePort();
    edge = await startEdge(nginxImage);
  }, 400_000);

  afterAll(async () => {
    await edge?.close();
    for (const handle of [main, other]) if (handle) await runtime.remove(handle.id).catch(() => undefined);
    await removeLabelled(RUN_LABEL, run).catch(() => undefined);
    await registry?.stop();
    node?.close();
    await reposite?.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 180_000);

  it("serves each app's /app/ through nginx in a container on the app's overlay network, and everything else from Node on its socket", async () => {
    expect(await answerOf("lumen.sites.test")).toMatchObject({ version: "v1", path: "/hello" });
    expect(await answerOf("umbra.sites.test")).toMatchObject({ version: "v1" });
    expect(await get(port, "nothing.sites.test", "/")).toEqual({ status: 200, body: "reposite" });
    expect(edge.description).toMatch(/in a container/);
    // Labelled, and joined to both apps' networks beside the one it publishes its port from.
    expect((await docker(["inspect", "--format", `{{index .Config.Labels "${EDGE_CONTAINER_LABEL}"}}`, container])).stdout.trim()).toBe(container);
    expect((await edgeNetworks()).sort()).toEqual(["bridge", main.address.network, other.address.network].sort());
  }, 120_000);

  it("loses no request through the edge in three rollouts under steady load", async () => {
    const counts: number[] = [];
    for (const image of [images.v2!, images.v1!, images.v2!]) {
      const deploy = await underLoad(() => runtime.replace!(main.id, { image: image.reference }));
      expect(deploy.result.outcome).toBe("updated");
      expect(deploy.failures).toEqual([]);
      expect(deploy.versions.length).toBeGreaterThan(20);
      counts.push(deploy.versions.length);
    }
    console.log(`[swarm-edge] requests answered through the edge during three rollouts: ${counts.join(", ")}; failed: 0`);
    expect((await answerOf("lumen.sites.test")).version).toBe("v2");
  }, 400_000);

  it("keeps the old version answering every request through the edge while Swarm rolls back an image that never becomes healthy", async () => {
    const bad = await underLoad(() => runtime.replace!(main.id, { image: images.bad!.reference }));
    expect(bad.result.outcome).toBe("rolled_back");
    expect(bad.failures).toEqual([]);
    expect(bad.versions.length).toBeGreaterThan(20);
    expect(new Set(bad.versions)).toEqual(new Set(["v2"]));
    console.log(`[swarm-edge] requests answered through the edge during the rolled-back rollout: ${bad.versions.length}; failed: 0`);
  }, 300_000);

  it("keeps the running configuration when nginx -t in the container refuses a new one", async () => {
    const good = await readFile(join(root, "edge", "routes.conf"), "utf8");
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    // An app on this machine whose host nginx cannot resolve: `nginx -t` refuses the whole configuration.
    routes.set(BROKEN, { status: "running", target: { host: "no-such-host.invalid", port: 80 } });
    try {
      await vi.waitFor(() => expect(errors).toHaveBeenCalledWith(expect.stringMatching(/were not applied; nginx keeps serving version \d+: .*no-such-host\.invalid/)), { timeout: 20_000 });
    } finally {
      routes.delete(BROKEN);
      errors.mockRestore();
    }
    expect(await readFile(join(root, "edge", "routes.conf"), "utf8")).toBe(good);
    expect(await answerOf("lumen.sites.test")).toMatchObject({ path: "/hello" });
  }, 60_000);

  it("does not let an app reach another app's network through the edge's seat on both", async () => {
    // The other app answers through the edge, which is on both networks...
    const theOther = await answerOf("umbra.sites.test");
    const taskAddresses = (await runtime.docker.listTasks({ filters: { service: [other.id], "desired-state": ["running"] } })) as { NetworksAttachments?: { Addresses?: string[] }[] }[];
    const addresses = taskAddresses.flatMap((task) => (task.NetworksAttachments ?? []).flatMap((attachment) => (attachment.Addresses ?? []).map((address) => address.split("/")[0]!)));
    expect(addresses.length).toBeGreaterThan(0);
    // ...but from inside the main app neither its name nor its address answers.
    const probe = (url: string) =>
      runtime.exec!(main.id, ["node", "-e", `fetch(${JSON.stringify(url)}, { signal: AbortSignal.timeout(3000) }).then(r => r.text()).then(t => { console.log("ANSWER " + t); }, e => { console.log("FAILED " + (e.cause?.code ?? e.name)); })`]);
    expect((await probe(`http://${other.address.host}:8080/`)).output).toMatch(/FAILED/);
    for (const address of addresses) {
      const seen = (await probe(`http://${address}:8080/`)).output;
      expect(seen).not.toContain(theOther.host);
    }
    // The probe itself works: main reaches its own service by name.
    expect((await probe(`http://${main.address.host}:8080/`)).output).toMatch(/ANSWER/);
  }, 120_000);

  it("leaves a removed app's network, so the app and its network can be removed", async () => {
    routes.delete(OTHER);
    await vi.waitFor(async () => expect(await edgeNetworks()).not.toContain(other.address.network), { timeout: 20_000, interval: 250 });
    await runtime.remove(other.id);
    expect((await docker(["network", "ls", "--format", "{{.Name}}"])).stdout.split("\n")).not.toContain(other.address.network);
    expect(await edgeNetworks()).toContain(main.address.network);
    expect((await answerOf("lumen.sites.test")).version).toBe("v2");
  }, 120_000);

  it("is found again by a restarted edge, which takes it over without a gap, and removed at shutdown", async () => {
    const id = (await docker(["inspect", "--format", "{{.Id}}", container])).stdout.trim();
    // A second edge with the same container name: what a Reposite restarted after a crash starts.
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const image = await buildLocalNginxImage();
    const takeover = await underLoad(() => startEdge(image));
    const again = takeover.result;
    try {
      // Visitors saw no gap while the new edge took the running nginx over.
      expect(takeover.failures).toEqual([]);
      expect(takeover.versions.length).toBeGreaterThan(0);
      expect((await docker(["inspect", "--format", "{{.Id}}", container])).stdout.trim()).toBe(id);
      expect(await answerOf("lumen.sites.test")).toMatchObject({ path: "/hello" });
      console.log(`[swarm-edge] requests answered while a restarted edge took the container over: ${takeover.versions.length}; failed: 0`);
    } finally {
      await again.close();
    }
    const left = (await docker(["ps", "-aq", "--filter", `label=${EDGE_CONTAINER_LABEL}=${container}`])).stdout.trim();
    expect(left).toBe("");
    errors.mockRestore();
  }, 120_000);
});
