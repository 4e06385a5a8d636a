import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import {
  buildLocalBaseImages,
  buildLocalNginxImage,
  docker,
  dockerForTests,
  freePort,
  removeDataDir,
  startFakeGitHub,
  startRegistry,
  startTwoNodeSwarm,
  type FakeGitHub,
  type TestRegistry,
  type TwoNodeSwarm,
} from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "./server-process.js";
import { accountTokens, refusedStart, swarmAppRepo, swarmHostingClient } from "./swarm-hosting-client.js";

// An app on the other node of a swarm, as an operator meets it: the built `reposite serve` with
// REPOSITE_RUNTIME=swarm talks to the manager of a throwaway two-node swarm (two extra Engines in
// network namespaces of their own, test-support/src/second-node.ts; the machine's own swarm is not
// touched), pins the app's data volume to the worker (REPOSITE_SWARM_VOLUME_NODE), reads the
// worker's Engine for the app's screen (REPOSITE_SWARM_NODE_ENGINES), and serves /app/ through
// nginx in a container on the manager that joins the app's overlay (REPOSITE_EDGE=nginx). The
// manager's Engine publishes the edge's port inside its namespace; forwardPort makes it this
// machine's, as it is when the manager's Engine runs on the control plane's machine. One server,
// one worker and one app for the whole file, in order.

const engine = await dockerForTests();

const RUN_LABEL = "reposite-test.run";
const run = `reposite-2node-${randomBytes(4).toString("hex")}`;
const LABEL_SITE = "dev.reposite.site";
const lower = (id: string) => id.toLowerCase().replace(/[^a-z0-9_.-]/g, "-");

interface Metrics {
  running: boolean;
  memory: { used_mb: number; limit_mb: number };
  storage: { volume_mb: number; container_mb: number; measured_at: string };
}

describe.skipIf(!engine.available)("an app on the swarm's other node through a real reposite serve (REPOSITE_RUNTIME=swarm)", () => {
  let swarm: TwoNodeSwarm;
  let registry: TestRegistry;
  let github: FakeGitHub;
  let manager: Docker;
  let dataDir = "";
  let port = 0;
  let server: ServerProcess;
  let ada = "";
  let siteId = "";
  let nginxImage = "";
  const slug = `twonode-${run.slice(-8)}`;
  const repo = (version: string) => swarmAppRepo(`${RUN_LABEL}=${run}`, version);
  const client = swarmHostingClient({ server: () => server, edge: true });

  const swarmEnv = () => ({
    REPOSITE_DATA_DIR: dataDir,
    REPOSITE_RUNTIME: "swarm",
    DOCKER_HOST: swarm.manager.dockerHost,
    REPOSITE_REGISTRY: registry.address,
  });
  const env = () => ({
    ...swarmEnv(),
    REPOSITE_GITHUB_API_URL: github.url,
    REPOSITE_BASE_IMAGE_NODE: "reposite-test/node:local",
    REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
    REPOSITE_BUILD_MEMORY_MB: "512",
    // Apps with a data volume are pinned to the node that holds it: the worker.
    REPOSITE_SWARM_VOLUME_NODE: swarm.worker.nodeId,
    // The worker's own Engine, for the app's screen (stats, disk figures).
    REPOSITE_SWARM_NODE_ENGINES: `${swarm.worker.nodeId}=${swarm.worker.dockerHost}`,
    REPOSITE_EDGE: "nginx",
    REPOSITE_EDGE_NGINX_IMAGE: nginxImage,
  });
  /** The app's service on the manager, and its running task (node and container), asked of the swarm. */
  const serviceOf = async () => (await manager.listServices({ filters: { label: [`${LABEL_SITE}=${siteId}`] } })) as Array<{ ID: string }>;
  const runningTasks = async () => {
    const [service] = await serviceOf();
    const tasks = (await manager.listTasks({ filters: { service: [service!.ID], "desired-state": ["running"] } })) as Array<{ NodeID: string; Status: { State: string; ContainerStatus?: { ContainerID?: string } } }>;
    return tasks.filter((task) => task.Status.State === "running").map((task) => ({ node: task.NodeID, container: task.Status.ContainerStatus?.ContainerID ?? "" }));
  };
  /** The one running task is the worker's: its node, and its container on the worker's Engine (none on the manager's). */
  const taskOnWorker = async () => {
    const tasks = await runningTasks();
    expect(tasks.map((task) => task.node)).toEqual([swarm.worker.nodeId]);
    expect(await appContainers(swarm.worker.dockerHost)).toContain(tasks[0]!.container);
    expect(await appContainers(swarm.manager.dockerHost)).toEqual([]);
    return tasks[0]!.container;
  };
  const lines = async (host: string, args: string[]) => (await docker(args, { host })).stdout.split("\n").filter(Boolean);
  const appContainers = (host: string) => lines(host, ["ps", "-q", "--no-trunc", "--filter", `label=${LABEL_SITE}=${siteId}`]);
  const metricsOf = () => client.apiJson<Metrics>(`/app/sites/${siteId}/deployment/metrics`, ada);
  const volume = () => `reposite-data-${lower(siteId)}`;
  const network = () => `reposite-app-${lower(siteId)}`;

  beforeAll(async () => {
    swarm = await startTwoNodeSwarm();
    manager = new Docker({ socketPath: swarm.manager.dockerHost.slice("unix://".length) });
    registry = await startRegistry();
    await swarm.shareLoopbackPort(Number(registry.address.split(":")[1]));
    const { node } = await buildLocalBaseImages();
    nginxImage = await buildLocalNginxImage();
    // Builds and the edge run on the manager's Engine; the worker gets the app's image from the registry alone.
    for (const image of [node, nginxImage]) await swarm.copyImage(image, swarm.manager);
    github = await startFakeGitHub({ repos: [repo("v1")] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-swarm-2node-"));
    port = await freePort();
    await swarm.manager.forwardPort(port);
    ({ ada } = await accountTokens(dataDir, ["ada"]));
    server = await startServerProcess(port, env());
    siteId = await client.publishedProject(ada, repo("v1"), slug, { volume_path: "/data" });
  }, 360_000);

  afterAll(async () => {
    await server?.stop();
    await github?.close();
    await swarm?.stop();
    await registry?.stop();
    if (dataDir) await removeDataDir(dataDir);
  }, 180_000);

  it("starts with the edge on the manager, and refuses gateway reach, which reaches only the node Reposite runs on, while the swarm has another", async () => {
    expect(server.output().stdout).toMatch(/app hosting: swarm \(0 apps running\); images: swarm \(registry 127\.0\.0\.1:\d+\); apps reached on their overlay networks/);
    const gateway = await refusedStart({ ...swarmEnv(), REPOSITE_DATA_DIR: await mkdtemp(join(tmpdir(), "reposite-swarm-2node-gateway-")) });
    expect(gateway.code).not.toBe(0);
    expect(gateway.stderr).toContain("REPOSITE_SWARM_REACH=gateway reaches apps only on the node Reposite runs on, but other nodes of the swarm take tasks (");
  }, 60_000);

  it("deploys the app with a volume onto the worker, and /app/ answers from the worker's task", async () => {
    const first = await client.deploy(ada, siteId);
    expect(first.job.status, first.log).toBe("done");
    const onWorker = await taskOnWorker();
    // The answer crosses the overlay from the edge on the manager to the task on the worker.
    expect(await client.appJson(slug, "/app/hello")).toMatchObject({ version: "v1", path: "/hello", prefix: "/app", host: onWorker.slice(0, 12) });
    // The data volume is on the worker, where the app writes to it.
    expect((await client.site(slug, "/app/files/kept", { method: "PUT", body: "x".repeat(600 * 1024) })).body).toBe("kept");
    expect(await lines(swarm.worker.dockerHost, ["volume", "ls", "-q", "--filter", `name=^${volume()}$`])).toEqual([volume()]);
    expect(await lines(swarm.manager.dockerHost, ["volume", "ls", "-q", "--filter", `name=^${volume()}$`])).toEqual([]);
  }, 300_000);

  it("the app's screen reads the worker: its output, and metrics with memory and the volume's size, also while stopped; a start runs it there again", async () => {
    const logs = await client.api(`/app/sites/${siteId}/deployment/logs?tail=50`, ada);
    expect(logs.status).toBe(200);
    expect(await logs.text()).toContain("starting v1");
    // 600 KB written on the worker's volume, measured there (a measurement is kept up to 5 s).
    await expect.poll(async () => (await metricsOf()).storage, { timeout: 20_000, interval: 1_000 }).toMatchObject({ volume_mb: expect.toSatisfy((mb: number) => mb >= 0.5) });
    const metrics = await metricsOf();
    console.log(`[hosting-swarm-two-node] metrics of the app on the worker: ${JSON.stringify(metrics)}`);
    expect(metrics.running).toBe(true);
    expect(metrics.memory.used_mb).toBeGreaterThan(1);
    expect(metrics.memory.limit_mb).toBe(512);

    // Stopped, the app has no task, and its volume is still measured on the worker; started, it runs there again.
    expect((await client.apiJson<{ status: string }>(`/app/sites/${siteId}/deployment/stop`, ada, { method: "POST" })).status).toBe("stopped");
    // A new measurement.
    let stopped = await metricsOf();
    for (const deadline = Date.now() + 20_000; stopped.storage.measured_at === metrics.storage.measured_at && Date.now() < deadline; stopped = await metricsOf()) await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(stopped).toMatchObject({ running: false, storage: { volume_mb: metrics.storage.volume_mb } });
    expect((await client.apiJson<{ status: string }>(`/app/sites/${siteId}/deployment/start`, ada, { method: "POST" })).status).toBe("running");
    expect((await client.appJson(slug)).host).toBe((await taskOnWorker()).slice(0, 12));
  }, 120_000);

  it("a redeploy rolls over on the worker with every request through /app/ answered, the volume kept", async () => {
    github.addRepo(repo("v2"));
    const { result: rollout, seen, failures } = await client.underRequests(slug, () => client.deploy(ada, siteId));
    console.log(`[hosting-swarm-two-node] rollout to v2 under requests through /app/ every 50 ms: ${seen.length} answered (${seen.filter((each) => each.version === "v2").length} by v2), ${failures.length} failed ${JSON.stringify([...new Set(failures)])}`);
    expect(rollout.job.status, rollout.log).toBe("done");
    expect(rollout.log).toContain("Rolled over");
    expect(failures).toEqual([]);
    expect(await client.appJson(slug)).toMatchObject({ version: "v2", host: (await taskOnWorker()).slice(0, 12) });
    expect((await client.site(slug, "/app/files/kept")).body.length).toBe(600 * 1024);
  }, 300_000);

  it("DELETE …/deployment removes the service, and on the worker its containers, volume and network", async () => {
    expect((await client.api(`/app/sites/${siteId}/deployment`, ada, { method: "DELETE" })).status).toBe(204);
    expect(await serviceOf()).toEqual([]);
    expect(await lines(swarm.worker.dockerHost, ["ps", "-aq", "--filter", `label=${LABEL_SITE}=${siteId}`])).toEqual([]);
    expect(await lines(swarm.worker.dockerHost, ["volume", "ls", "-q", "--filter", `name=^${volume()}$`])).toEqual([]);
    for (const host of [swarm.manager.dockerHost, swarm.worker.dockerHost]) expect(await lines(host, ["network", "ls", "-q", "--filter", `name=^${network()}$`])).toEqual([]);
    expect((await client.site(slug, "/app/")).status).toBe(503);
  }, 180_000);
});
