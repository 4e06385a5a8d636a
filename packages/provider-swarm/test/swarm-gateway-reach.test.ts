import { randomBytes } from "node:crypto";
import type { AppImage } from "@reposite/core";
import { dockerForTests, ensureSwarm, startRegistry, type TestRegistry } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSwarmAppRuntime, createSwarmImageBuilder, swarmOptionsFromEnv, type SwarmOptions } from "../src/index.js";
import { removeSwarmRun } from "./run-cleanup.js";
import { buildVersionImage } from "./version-image.js";

const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `reposite-swarmtest-${randomBytes(4).toString("hex")}`;
const labels = { [RUN_LABEL]: run };

/** Answers its version; leaves at SIGTERM at once, as most apps do. */
const SERVER = `
const http = require("node:http");
process.on("SIGTERM", () => process.exit(0));
http.createServer((req, res) => res.end(process.env.APP_VERSION)).listen(Number(process.env.PORT));
`;

it("reads REPOSITE_SWARM_REACH and refuses anything but gateway or network", () => {
  expect(swarmOptionsFromEnv({ REPOSITE_SWARM_REACH: "network" }).reach).toBe("network");
  expect(swarmOptionsFromEnv({}).reach).toBeUndefined();
  expect(() => swarmOptionsFromEnv({ REPOSITE_SWARM_REACH: "mesh" })).toThrow(/REPOSITE_SWARM_REACH must be gateway or network, not "mesh"/);
});

// The host (the Node runtime's /app/ proxy, an nginx on the host) cannot join an overlay network:
// in gateway mode it reaches the running task at its docker_gwbridge address on this node.
describe.skipIf(!engine.available)("provider-swarm reached through the gateway bridge", () => {
  let registry: TestRegistry;
  let options: SwarmOptions;
  const images: AppImage[] = [];

  const build = async (version: string) => {
    const image = await buildVersionImage(createSwarmImageBuilder(options), { server: SERVER, version, tag: `${run}/app:${version}`, labels });
    images.push(image);
    return image;
  };
  const get = async (url: string): Promise<{ status: number; body: string } | { error: string }> => {
    try {
      const answer = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      return { status: answer.status, body: await answer.text() };
    } catch (error) {
      return { error: String((error as Error).cause ?? error) };
    }
  };

  beforeAll(async () => {
    await ensureSwarm();
    registry = await startRegistry();
    options = { registry: { address: registry.address }, health: { intervalSeconds: 1, timeoutSeconds: 2, retries: 3, startPeriodSeconds: 3 } };
  }, 180_000);
  afterAll(async () => {
    await removeSwarmRun(RUN_LABEL, run, images, options, registry);
  }, 180_000);

  it("answers from this machine at the task's gateway address, and a rollout's new task at a new one, reported once it is healthy", async () => {
    const [v1, v2] = [await build("v1"), await build("v2")];
    const runtime = createSwarmAppRuntime(options);
    const app = await runtime.run({ name: `${run}-app`, image: v1.reference, labels, env: {}, port: 8080, memoryMb: 96, cpus: 0.5, pidsLimit: 64, network: `${run}-net` });
    let first = null as Awaited<ReturnType<typeof runtime.address>>;
    for (let tries = 0; tries < 240 && !first; tries++) {
      first = await runtime.address(app.id);
      if (!first) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(first).toMatchObject({ port: 8080, network: null });
    expect(first!.host).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(await get(`http://${first!.host}:8080/`)).toEqual({ status: 200, body: "v1" });

    // Steady requests from this machine, each to the address the runtime gives now (as core's route follows it).
    let target = first!;
    let following = true;
    const failures: string[] = [];
    const versions: string[] = [];
    const follower = (async () => {
      while (following) {
        target = (await runtime.address(app.id)) ?? target;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const poller = (async () => {
      while (following) {
        const answer = await get(`http://${target.host}:${target.port}/`);
        if ("status" in answer && answer.status === 200) versions.push(answer.body);
        else failures.push("error" in answer ? answer.error : `${answer.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const result = await runtime.replace!(app.id, { image: v2.reference });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    following = false;
    await Promise.all([follower, poller]);
    expect(result.outcome).toBe("updated");
    const next = (await runtime.address(app.id))!;
    expect(next.host).not.toBe(first!.host);
    expect(await get(`http://${next.host}:8080/`)).toEqual({ status: 200, body: "v2" });
    expect(versions).toContain("v1");
    expect(versions.at(-1)).toBe("v2");
    // Measured, not hidden: requests sent to the old task between Swarm stopping it and the next address read.
    console.log(`[swarm-gateway-reach] one rollout under requests every 20 ms: ${versions.length} answered, ${failures.length} failed (${[...new Set(failures)].join("; ")})`);
    await runtime.remove(app.id);
    expect(await runtime.address(app.id)).toBeNull();
  }, 300_000);
});
