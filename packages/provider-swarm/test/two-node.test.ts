import { randomBytes } from "node:crypto";
import type { AppImage } from "@reposite/core";
import {
  buildLocalBaseImages,
  docker,
  dockerForTests,
  networkVantage,
  removeLabelled,
  startRegistry,
  startTwoNodeSwarm,
  writeTar,
  type NetworkVantage,
  type TestRegistry,
  type TwoNodeSwarm,
} from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSwarmAppRuntime, createSwarmImageBuilder, swarmOptionsFromEnv, type SwarmAppRuntime, type SwarmOptions } from "../src/index.js";
import { buildVersionImage } from "./version-image.js";

// A second Swarm node on one machine: a throwaway two-node swarm of two extra Engines, each in a
// network namespace of its own (test-support/src/second-node.ts); the machine's own swarm is not
// touched. Root only, as every engine test here; with REPOSITE_REQUIRE_DOCKER=1 nothing skips.
const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `reposite-2node-${randomBytes(4).toString("hex")}`;
const labels = { [RUN_LABEL]: run };

/** Answers its version, the host it runs on and what it wrote on its volume at start. */
const SERVER = `
const http = require("node:http");
const fs = require("node:fs");
const os = require("node:os");
process.on("SIGTERM", () => process.exit(0));
fs.appendFileSync("/data/starts", process.env.APP_VERSION + "\\n");
console.log("listening as " + process.env.APP_VERSION);
http.createServer((req, res) => res.end(process.env.APP_VERSION + " " + os.hostname())).listen(Number(process.env.PORT));
`;

describe.skipIf(!engine.available)("provider-swarm with an app on the other node", () => {
  let swarm: TwoNodeSwarm;
  let registry: TestRegistry;
  let options: SwarmOptions;
  let runtime: SwarmAppRuntime;
  let vantage: NetworkVantage;
  let appId = "";
  const images: AppImage[] = [];
  const network = `${run}-net`;
  const volume = `${run}-data`;

  /** Built on this machine's Engine, pushed to the registry: the nodes pull it by digest. */
  const build = async (version: string) => {
    const image = await buildVersionImage(createSwarmImageBuilder({ registry: options.registry }), { server: SERVER, version, tag: `${run}/app:${version}`, labels });
    images.push(image);
    return image;
  };
  /** The task's container on the node that runs it, asked of each node's own Engine. */
  const containersOn = async (host: string) => (await docker(["ps", "-q", "--no-trunc", "--filter", `label=${RUN_LABEL}=${run}`], { host })).stdout.split("\n").filter(Boolean);
  const answerFromManagerSide = async (want: RegExp) => {
    const address = await runtime.address(appId);
    let last: unknown = null;
    for (let tries = 0; tries < 120; tries++) {
      last = await vantage.get(`http://${address!.host}:${address!.port}/`);
      if ("body" in (last as object) && want.test((last as { body: string }).body)) return (last as { body: string }).body;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error(`no answer matching ${want} from the manager's side: ${JSON.stringify(last)}`);
  };

  beforeAll(async () => {
    swarm = await startTwoNodeSwarm();
    registry = await startRegistry();
    await swarm.shareLoopbackPort(Number(registry.address.split(":")[1]));
    const { node } = await buildLocalBaseImages();
    // For the edge's seat on the manager only: the worker gets the app's image from the registry alone.
    await swarm.copyImage(node, swarm.manager);
    options = {
      dockerHost: swarm.manager.dockerHost,
      registry: { address: registry.address },
      // The app has a volume, so it is pinned to the node that holds it: here, the worker.
      volumeNode: swarm.worker.nodeId,
      // Exec, stats and disk figures through the worker's own Engine, set as an operator would.
      nodeEngines: swarmOptionsFromEnv({ REPOSITE_SWARM_NODE_ENGINES: `${swarm.worker.nodeId}=${swarm.worker.dockerHost}` }).nodeEngines!,
      reach: "network",
      health: { intervalSeconds: 1, timeoutSeconds: 2, retries: 3, startPeriodSeconds: 3 },
    };
    runtime = createSwarmAppRuntime(options);
  }, 300_000);

  afterAll(async () => {
    await vantage?.close();
    for (const image of images) await createSwarmImageBuilder({ registry: options.registry }).remove(image).catch(() => undefined);
    await removeLabelled(RUN_LABEL, run).catch(() => undefined);
    await swarm?.stop();
    await registry?.stop();
  }, 180_000);

  it("runs an app pinned to the worker from the registry by digest, and serves it through its overlay from the manager's side", async () => {
    const v1 = await build("v1");
    expect(v1.reference).toMatch(new RegExp(`^${registry.address.replace(/\./g, "\\.")}/.+@sha256:[0-9a-f]{64}$`));
    const app = await runtime.run({ name: `${run}-app`, image: v1.reference, labels, env: {}, port: 8080, memoryMb: 96, cpus: 0.5, pidsLimit: 64, network, volume: { name: volume, path: "/data" } });
    appId = app.id;
    for (let tries = 0; tries < 240 && !(await runtime.inspect(appId))?.running; tries++) await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await runtime.inspect(appId))?.running).toBe(true);

    // Scheduled on the worker: its task says so, and only the worker's Engine has the container and the pulled image.
    const tasks = (await runtime.docker.listTasks({ filters: { service: [appId], "desired-state": ["running"] } })) as Array<{ NodeID: string }>;
    expect(tasks.map((task) => task.NodeID)).toEqual([swarm.worker.nodeId]);
    const [onWorker] = await containersOn(swarm.worker.dockerHost);
    expect(onWorker).toBeTruthy();
    expect(await containersOn(swarm.manager.dockerHost)).toEqual([]);
    const digests = (await docker(["image", "ls", "--digests", "--format", "{{.Digest}}"], { host: swarm.worker.dockerHost })).stdout;
    expect(digests).toContain(v1.digest);
    expect((await docker(["image", "ls", "--digests", "--format", "{{.Digest}}"], { host: swarm.manager.dockerHost })).stdout).not.toContain(v1.digest);

    // Served: the edge's seat is on the manager, attached to the app's overlay; the answer crosses to the worker.
    const address = await runtime.address(appId);
    expect(address).toEqual({ host: `${run}-app`, port: 8080, network });
    vantage = await networkVantage(network, { name: `${run}-vantage`, image: (await buildLocalBaseImages()).node, labels, engine: swarm.manager });
    expect(await answerFromManagerSide(/^v1 /)).toBe(`v1 ${onWorker!.slice(0, 12)}`);
  }, 300_000);

  it("reaches the task's container through the worker's Engine for exec, stats and disk figures, and logs through the service", async () => {
    expect(await runtime.exec!(appId, ["cat", "/data/starts"])).toEqual({ exitCode: 0, output: "v1\n" });
    const stats = await runtime.stats!(appId);
    expect(stats.memoryBytes).toBeGreaterThan(1024 * 1024);
    expect(stats.memoryLimitBytes).toBe(96 * 1024 * 1024);
    const disk = await runtime.diskUsage!(appId, volume);
    expect(disk.volumeBytes).toBeGreaterThan(0);
    expect(disk.writableBytes).not.toBeNull();
    expect((await runtime.logs(appId, 20)).join("\n")).toContain("listening as v1");

    // Without the worker's Engine the runtime cannot reach the container: it says so rather than ask the manager's.
    const managerOnly = createSwarmAppRuntime({ ...options, nodeEngines: {} });
    await expect(managerOnly.exec!(appId, ["true"])).rejects.toThrow(/runs on no node this runtime can reach/);
    expect(await managerOnly.diskUsage!(appId, volume)).toEqual({ writableBytes: null, volumeBytes: null });
  }, 120_000);

  it("in gateway reach, gives the task's docker_gwbridge address read from the worker's Engine, which answers on the worker", async () => {
    const gateway = createSwarmAppRuntime({ ...options, reach: "gateway" });
    const address = await gateway.address(appId);
    expect(address).toMatchObject({ port: 8080, network: null });
    expect(address!.host).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const [onWorker] = await containersOn(swarm.worker.dockerHost);
    const local = await swarm.worker.reachPort(address!.port, address!.host);
    const answer = await fetch(`http://127.0.0.1:${local}/`, { signal: AbortSignal.timeout(5_000) });
    expect(await answer.text()).toBe(`v1 ${onWorker!.slice(0, 12)}`);
    // Only the node's own Engine knows that address: without it there is none to give.
    expect(await createSwarmAppRuntime({ ...options, reach: "gateway", nodeEngines: {} }).address(appId)).toBeNull();
  }, 60_000);

  it("in gateway reach, places an app without a volume on the manager's node, the one node whose gateway addresses the control plane reaches", async () => {
    const gateway = createSwarmAppRuntime({ ...options, reach: "gateway" });
    // Without a volume (the test app writes to /data at start): a plain answer.
    const command = ["node", "-e", 'process.on("SIGTERM", () => process.exit(0)); require("node:http").createServer((q, r) => r.end("gateway")).listen(8080)'];
    const app = await gateway.run({ name: `${run}-gw`, image: images[0]!.reference, command, labels, env: {}, port: 8080, memoryMb: 96, cpus: 0.5, pidsLimit: 64, network: `${run}-gw-net` });
    try {
      const spec = (await gateway.docker.getService(app.id).inspect()).Spec as { TaskTemplate: { Placement: { Constraints?: string[] } } };
      expect(spec.TaskTemplate.Placement.Constraints).toEqual([`node.id==${swarm.manager.nodeId}`]);
      for (let tries = 0; tries < 240 && !(await gateway.inspect(app.id))?.running; tries++) await new Promise((resolve) => setTimeout(resolve, 250));
      const tasks = (await gateway.docker.listTasks({ filters: { service: [app.id] } })) as Array<{ NodeID: string; DesiredState: string; Status: unknown }>;
      expect(tasks.filter((task) => task.DesiredState === "running").map((task) => task.NodeID), JSON.stringify(tasks)).toEqual([swarm.manager.nodeId]);
      const address = await gateway.address(app.id);
      const local = await swarm.manager.reachPort(address!.port, address!.host);
      expect(await (await fetch(`http://127.0.0.1:${local}/`, { signal: AbortSignal.timeout(5_000) })).text()).toBe("gateway");
    } finally {
      await gateway.remove(app.id);
    }
  }, 120_000);

  it("rolls out a new version on the worker, keeping the volume, still served from the manager's side", async () => {
    const v2 = await build("v2");
    const result = await runtime.replace!(appId, { image: v2.reference });
    expect(result.outcome).toBe("updated");
    const [onWorker] = await containersOn(swarm.worker.dockerHost);
    expect(await answerFromManagerSide(/^v2 /)).toBe(`v2 ${onWorker!.slice(0, 12)}`);
    expect(await runtime.exec!(appId, ["cat", "/data/starts"])).toEqual({ exitCode: 0, output: "v1\nv2\n" });
  }, 300_000);

  it("removes the app, its network and (on the worker) its volume", async () => {
    await vantage.close();
    await runtime.remove(appId);
    expect(await runtime.inspect(appId)).toBeNull();
    for (let tries = 0; tries < 60 && (await containersOn(swarm.worker.dockerHost)).length; tries++) await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await containersOn(swarm.worker.dockerHost)).toEqual([]);
    expect((await docker(["network", "ls", "-q", "--filter", `name=${network}`], { host: swarm.manager.dockerHost })).stdout.trim()).toBe("");
    await runtime.removeVolume(volume);
    expect((await docker(["volume", "ls", "-q", "--filter", `name=${volume}`], { host: swarm.worker.dockerHost })).stdout.trim()).toBe("");
  }, 180_000);
});
