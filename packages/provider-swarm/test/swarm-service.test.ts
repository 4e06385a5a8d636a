import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { BuildFailure, type AppImage } from "@reposite/core";
import { buildLocalBaseImages, docker, dockerForTests, ensureSwarm, networkVantage, startRegistry, writeTar, type NetworkVantage, type TestRegistry } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSwarmAppRuntime, createSwarmImageBuilder, PROBE_PATH, swarmOptionsFromEnv, type SwarmAppRuntime, type SwarmOptions } from "../src/index.js";
import { removeSwarmRun } from "./run-cleanup.js";
import { buildVersionImage } from "./version-image.js";

const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `reposite-swarmtest-${randomBytes(4).toString("hex")}`;
const labels = { [RUN_LABEL]: run };

/** Keeps files in /data (`PUT|GET /files/<name>`) and answers its version otherwise. */
const SERVER = `
const http = require("node:http"), fs = require("node:fs");
process.on("SIGTERM", () => process.exit(0));
http.createServer((req, res) => {
  const file = /^\\/files\\/(\\w+)$/.exec(req.url);
  if (!file) return res.end(process.env.APP_VERSION);
  if (req.method === "PUT") { const chunks = []; req.on("data", (c) => chunks.push(c)); req.on("end", () => { fs.writeFileSync("/data/" + file[1], Buffer.concat(chunks)); res.end("kept"); }); return; }
  fs.readFile("/data/" + file[1], (error, data) => (error ? res.writeHead(404).end() : res.end(data)));
}).listen(Number(process.env.PORT));
`;

describe.skipIf(!engine.available)("provider-swarm services", () => {
  let registry: TestRegistry;
  let options: SwarmOptions;
  let nodeId = "";
  const images: AppImage[] = [];
  const vantages: NetworkVantage[] = [];

  const build = async (version: string) => {
    const image = await buildVersionImage(createSwarmImageBuilder(options), { server: SERVER, version, tag: `${run}/app:${version}`, labels });
    images.push(image);
    return image;
  };

  beforeAll(async () => {
    nodeId = (await ensureSwarm()).nodeId;
    registry = await startRegistry();
    // Reached on the apps' overlay networks (from a vantage there), as an edge attached to them does.
    options = { registry: { address: registry.address }, reach: "network", health: { intervalSeconds: 1, timeoutSeconds: 2, retries: 3, startPeriodSeconds: 3 } };
  }, 180_000);
  afterAll(async () => {
    for (const vantage of vantages) await vantage.close();
    await removeSwarmRun(RUN_LABEL, run, images, options, registry);
  }, 180_000);

  it("runs an app with a volume pinned to its node, locked down, keeping its data across a rollout, found again by labels", async () => {
    const [v1, v2] = [await build("v1"), await build("v2")];
    const runtime: SwarmAppRuntime = createSwarmAppRuntime(options);
    const network = `${run}-net`;
    const volume = `${run}-data`;
    const app = await runtime.run({
      name: `${run}-app`, image: v1.reference, labels, env: {}, port: 8080, memoryMb: 96, memoryReservationMb: 32, cpus: 0.5, cpuReservation: 0.1,
      pidsLimit: 64, network, volume: { name: volume, path: "/data" },
    });
    const spec = (await runtime.docker.getService(app.id).inspect()).Spec;
    expect(spec.TaskTemplate.Placement.Constraints).toEqual([`node.id==${nodeId}`]);
    expect(spec.TaskTemplate.ContainerSpec).toMatchObject({ Image: v1.reference, Init: true, CapabilityDrop: ["ALL"] });
    expect(spec.TaskTemplate.ContainerSpec.Mounts).toEqual([
      expect.objectContaining({ Type: "bind", Source: "/bin/busybox", Target: PROBE_PATH, ReadOnly: true }),
      expect.objectContaining({ Type: "volume", Source: volume, Target: "/data" }),
    ]);
    expect(spec.TaskTemplate.Resources).toEqual({ Limits: { MemoryBytes: 96 * 1024 * 1024, NanoCPUs: 5e8, Pids: 64 }, Reservations: { MemoryBytes: 32 * 1024 * 1024, NanoCPUs: 1e8 } });
    expect(spec.EndpointSpec).toEqual({ Mode: "dnsrr" });
    expect(spec.UpdateConfig).toMatchObject({ Order: "start-first", FailureAction: "rollback" });

    const from = await networkVantage(network, { name: `${run}-vantage`, image: (await buildLocalBaseImages()).node, labels });
    vantages.push(from);
    const url = (path: string) => `http://${app.address.host}:${app.address.port}${path}`;
    for (let tries = 0; tries < 120; tries++) {
      const answer = await from.get(url("/"));
      if ("status" in answer && answer.body === "v1") break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // PUT through the vantage is not offered: write the file from inside, as the app's own writes would be.
    const wrote = await runtime.exec!(app.id, ["node", "-e", "require('fs').writeFileSync('/data/kept', 'still here')"]);
    expect(wrote.exitCode).toBe(0);
    // What the runtime says of no-new-privileges is what the task's kernel status shows.
    const status = await runtime.exec!(app.id, ["node", "-e", "process.stdout.write(require('fs').readFileSync('/proc/1/status', 'utf8'))"]);
    const { enforced } = await runtime.noNewPrivileges();
    expect(status.output).toMatch(new RegExp(`^NoNewPrivs:\\s+${enforced ? 1 : 0}$`, "m"));
    expect(await runtime.replace!(app.id, { image: v2.reference })).toMatchObject({ outcome: "updated" });
    expect(await from.get(url("/"))).toEqual({ status: 200, body: "v2" });
    expect(await from.get(url("/files/kept"))).toEqual({ status: 200, body: "still here" });

    // A control plane started afresh finds the app by its labels, and where to reach it.
    const restarted = createSwarmAppRuntime(options);
    const found = await restarted.list(labels);
    expect(found).toEqual([expect.objectContaining({ id: app.id, name: `${run}-app`, running: true })]);
    expect(await restarted.address(app.id)).toEqual({ host: `${run}-app`, port: 8080, network });

    // Whatever joined the app's network (the vantage here, the edge in production) leaves before the network can go.
    await from.close();
    await runtime.remove(app.id);
    expect((await docker(["network", "ls", "-q", "--filter", `name=${network}`])).stdout.trim()).toBe("");
    await runtime.removeVolume(volume);
    expect((await docker(["volume", "ls", "-q", "--filter", `name=${volume}`])).stdout.trim()).toBe("");
  }, 300_000);

  it("pushes with the registry's credentials, and a node that never had the image pulls it with them", async () => {
    const credentials = { username: "reposite", password: `pw-${randomBytes(8).toString("hex")}` };
    const guarded = await startRegistry({ credentials });
    try {
      const withCredentials: SwarmOptions = { ...options, registry: { address: guarded.address, ...credentials } };
      const { busybox } = await buildLocalBaseImages();
      const lines: string[] = [];
      const tar = writeTar([{ path: "Dockerfile", type: "file", content: Buffer.from(`FROM ${busybox}\nRUN mkdir /www && echo ${run}-guarded > /www/index.html\nCMD ["httpd", "-f", "-p", "8080", "-h", "/www"]\n`) }]);
      const builder = createSwarmImageBuilder(withCredentials);
      const image = await builder.build({ context: Readable.from([tar]), dockerfile: "Dockerfile", tag: `${run}/guarded:1`, labels, memoryMb: 64, timeoutMs: 60_000, onLog: (line) => lines.push(line) });
      expect(lines.join("\n")).not.toContain(credentials.password);
      // The registry refuses anyone without them.
      const [repository, digest] = image.reference.slice(guarded.address.length + 1).split("@");
      expect((await fetch(`${guarded.url}/v2/${repository}/manifests/${digest}`)).status).toBe(401);
      expect(await guarded.has(repository!, digest!)).toBe(true);
      // As a node that never built it: the task can only start once the Engine pulled it with the credentials.
      await docker(["rmi", "-f", image.id]);
      const runtime = createSwarmAppRuntime(withCredentials);
      const app = await runtime.run({ name: `${run}-guarded`, image: image.reference, labels, env: {}, port: 8080, memoryMb: 32, cpus: 0.25, pidsLimit: 32, network: `${run}-guarded-net` });
      for (let tries = 0; tries < 120 && !(await runtime.inspect(app.id))?.running; tries++) await new Promise((resolve) => setTimeout(resolve, 500));
      const state = await runtime.inspect(app.id);
      // What the Engine keeps of the service shows no credentials to whoever inspects it.
      const kept = JSON.stringify(await runtime.docker.getService(app.id).inspect());
      expect(kept).not.toContain(credentials.password);
      expect(kept).not.toContain("RegistryAuth");
      expect(state).toMatchObject({ running: true, image: image.reference });
      await runtime.remove(app.id);
      await builder.remove(image);
      expect(await guarded.has(repository!, digest!)).toBe(false);
    } finally {
      await guarded.stop();
    }
  }, 240_000);

  it("never shows the registry password, in errors or in the build log", async () => {
    const password = `pw-${randomBytes(8).toString("hex")}`;
    // A registry that refuses every push: a closed loopback port.
    const builder = createSwarmImageBuilder({ registry: { address: "127.0.0.1:9", username: "reposite", password } });
    const { busybox } = await buildLocalBaseImages();
    const lines: string[] = [];
    const tar = writeTar([{ path: "Dockerfile", type: "file", content: Buffer.from(`FROM ${busybox}\nLABEL ${RUN_LABEL}=${run}\n`) }]);
    const failure = await builder
      .build({ context: Readable.from([tar]), dockerfile: "Dockerfile", tag: `${run}/refused:1`, labels, memoryMb: 64, timeoutMs: 60_000, onLog: (line) => lines.push(line) })
      .then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(BuildFailure);
    expect((failure as BuildFailure).message).toContain("127.0.0.1:9");
    expect(`${(failure as BuildFailure).message}\n${lines.join("\n")}`).not.toContain(password);
    await expect(builder.ping()).rejects.toThrow(/127\.0\.0\.1:9/);
  }, 120_000);

  it("reads its settings from the environment and refuses a bad endpoint mode", () => {
    expect(swarmOptionsFromEnv({ REPOSITE_REGISTRY: "10.0.0.5:5000", REPOSITE_REGISTRY_USERNAME: "ci", REPOSITE_REGISTRY_PASSWORD: "x", REPOSITE_SWARM_NODE_ENGINES: "node-b=tcp://10.0.0.6:2375" })).toEqual({
      registry: { address: "10.0.0.5:5000", username: "ci", password: "x" },
      nodeEngines: { "node-b": "tcp://10.0.0.6:2375" },
    });
    expect(() => swarmOptionsFromEnv({ REPOSITE_SWARM_ENDPOINT_MODE: "ipvs" })).toThrow(/dnsrr or vip/);
  });
});
