import { randomBytes } from "node:crypto";
import type { AppAddress, AppImage } from "@reposite/core";
import { dockerForTests, ensureSwarm, startRegistry, type TestRegistry } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSwarmAppRuntime, createSwarmImageBuilder, type SwarmAppRuntime, type SwarmOptions } from "../src/index.js";
import type { SwarmTask } from "../src/service-state.js";
import { removeSwarmRun } from "./run-cleanup.js";
import { buildVersionImage } from "./version-image.js";

// A cancelled rollout on the real swarm (the machine's shared single-node swarm, Debian's registry):
// replace() with an AbortSignal rolls the service back to its previous spec, and resolves
// `cancelled` once the old version serves again. Reached through the gateway bridge from this
// machine, where each task has its own address, so a rollback that needs a new task shows it.

const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `reposite-swarmtest-${randomBytes(4).toString("hex")}`;
const labels = { [RUN_LABEL]: run };

/** Answers its version after `APP_DELAY_MS` (listening only then); leaves at SIGTERM at once. */
const server = (delayMs: number) => `
const http = require("node:http");
process.on("SIGTERM", () => process.exit(0));
setTimeout(() => http.createServer((req, res) => res.end(process.env.APP_VERSION)).listen(Number(process.env.PORT)), ${delayMs});
`;

describe.skipIf(!engine.available)("provider-swarm: a cancelled rollout", () => {
  let registry: TestRegistry;
  let options: SwarmOptions;
  let runtime: SwarmAppRuntime;
  const images: AppImage[] = [];
  const versions: Record<"v1" | "fast" | "slow", AppImage> = {} as never;

  const get = async (address: AppAddress): Promise<string> => {
    try {
      const answer = await fetch(`http://${address.host}:${address.port}/`, { signal: AbortSignal.timeout(2_000) });
      return answer.status === 200 ? await answer.text() : `status ${answer.status}`;
    } catch (error) {
      return `error ${String((error as Error).cause ?? error)}`;
    }
  };
  const specImage = async (id: string) => (await runtime.docker.getService(id).inspect()).Spec.TaskTemplate.ContainerSpec.Image as string;
  const updateState = async (id: string) => ((await runtime.docker.getService(id).inspect()) as { UpdateStatus?: { State?: string; Message?: string } }).UpdateStatus;
  const tasksOf = async (id: string) => (await runtime.docker.listTasks({ filters: { service: [id] } })) as SwarmTask[];
  const until = async <T>(read: () => Promise<T | null | undefined>, what: string, ms = 120_000): Promise<T> => {
    for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const value = await read();
      if (value) return value;
    }
    throw new Error(`${what} did not happen within ${ms / 1000} s`);
  };

  /** Runs v1 and waits until it answers here; answers its id and address. */
  const runV1 = async (name: string) => {
    const app = await runtime.run({ name: `${run}-${name}`, image: versions.v1.reference, labels, env: {}, port: 8080, memoryMb: 96, cpus: 0.5, pidsLimit: 64, network: `${run}-${name}-net` });
    const address = await until(async () => {
      const found = await runtime.address(app.id);
      return found && (await get(found)) === "v1" ? found : null;
    }, "v1 answering");
    return { id: app.id, address };
  };

  /** Requests every 20 ms to where the runtime says the app answers now (as core's route follows it): what each answered. */
  const requestsTo = (id: string, first: AppAddress) => {
    const answers: string[] = [];
    let target = first;
    let going = true;
    const follower = (async () => {
      while (going) {
        target = (await runtime.address(id)) ?? target;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const poller = (async () => {
      while (going) {
        answers.push(await get(target));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    return {
      async stop() {
        going = false;
        await Promise.all([follower, poller]);
        return answers;
      },
    };
  };

  beforeAll(async () => {
    await ensureSwarm();
    registry = await startRegistry();
    // A long start period: the slow version is never counted unhealthy here, so only the cancel ends its rollout.
    options = { registry: { address: registry.address }, reach: "gateway", health: { intervalSeconds: 1, timeoutSeconds: 2, retries: 3, startPeriodSeconds: 120 } };
    runtime = createSwarmAppRuntime(options);
    const builder = createSwarmImageBuilder(options);
    for (const [version, delayMs] of [["v1", 0], ["fast", 0], ["slow", 600_000]] as const) {
      versions[version] = await buildVersionImage(builder, { server: server(delayMs), version, tag: `${run}/app:${version}`, labels });
      images.push(versions[version]);
    }
  }, 240_000);
  afterAll(async () => {
    await removeSwarmRun(RUN_LABEL, run, images, options, registry);
  }, 180_000);

  it("cancelled while the new version starts: the service's spec is the old digest again, the old version answered throughout, and nothing is left half-rolled", async () => {
    const app = await runV1("starting");
    const requests = requestsTo(app.id, app.address);
    const cancel = new AbortController();
    const progress: string[] = [];
    // Cancelled once the new task's container has started beside the old one (waiting for its health check).
    const started = until(async () => (await tasksOf(app.id)).some((task) => task.Spec?.ContainerSpec?.Image === versions.slow.reference && task.Status?.State === "starting"), "the new task starting");
    void started.then(() => cancel.abort(), () => undefined);
    const result = await runtime.replace!(app.id, { image: versions.slow.reference }, { timeoutMs: 90_000, onProgress: (line) => progress.push(line), signal: cancel.signal });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const answers = await requests.stop();
    console.log(`[swarm-rollout-cancel] cancelled while starting: ${answers.length} requests, not v1: ${JSON.stringify(answers.filter((answer) => answer !== "v1"))}; progress ${JSON.stringify(progress)}`);

    expect(cancel.signal.aborted).toBe(true);
    expect(result.outcome, JSON.stringify(result)).toBe("cancelled");
    expect(progress).toContain("Cancelled: asking Swarm to roll back to the previous version …");
    expect(await specImage(app.id)).toBe(versions.v1.reference);
    expect(await updateState(app.id)).toMatchObject({ State: "rollback_completed" });
    // One task meant to run, the old version's; the new one is shut down.
    const wanted = (await tasksOf(app.id)).filter((task) => task.DesiredState === "running");
    expect(wanted.map((task) => task.Spec?.ContainerSpec?.Image)).toEqual([versions.v1.reference]);
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((answer) => answer !== "v1")).toEqual([]);
    expect(await get((await runtime.address(app.id))!)).toBe("v1");
    // The old task never stopped: it answers where it always did.
    expect(await runtime.address(app.id)).toEqual(app.address);
  }, 240_000);

  it("cancelled after Swarm stopped the old task (in the update's monitor window): the old version runs again in a new task and answers there", async () => {
    const app = await runV1("late");
    const cancel = new AbortController();
    const progress: string[] = [];
    // The new version is healthy and the old task was told to stop: the update only watches the new one now.
    const oldStopped = until(async () => {
      const tasks = await tasksOf(app.id);
      const fresh = tasks.some((task) => task.Spec?.ContainerSpec?.Image === versions.fast.reference && task.Status?.State === "running");
      const old = tasks.find((task) => task.Spec?.ContainerSpec?.Image === versions.v1.reference);
      return fresh && old?.DesiredState === "shutdown";
    }, "the old task stopping");
    void oldStopped.then(() => cancel.abort(), () => undefined);
    const result = await runtime.replace!(app.id, { image: versions.fast.reference }, { timeoutMs: 90_000, onProgress: (line) => progress.push(line), signal: cancel.signal });
    console.log(`[swarm-rollout-cancel] cancelled late: progress ${JSON.stringify(progress)}`);

    expect(result.outcome, JSON.stringify(result)).toBe("cancelled");
    expect(await specImage(app.id)).toBe(versions.v1.reference);
    expect(await updateState(app.id)).toMatchObject({ State: "rollback_completed" });
    const wanted = (await tasksOf(app.id)).filter((task) => task.DesiredState === "running");
    expect(wanted.map((task) => task.Spec?.ContainerSpec?.Image)).toEqual([versions.v1.reference]);
    const now = (await runtime.address(app.id))!;
    expect(now.host).not.toBe(app.address.host);
    expect(await get(now)).toBe("v1");
  }, 240_000);
});
