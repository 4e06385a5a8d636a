import { randomBytes } from "node:crypto";
import {
  appRuntimeContract,
  buildLocalBaseImages,
  docker,
  dockerForTests,
  ensureSwarm,
  imageBuilderContract,
  networkVantage,
  removeLabelled,
  startRegistry,
  type TestRegistry,
} from "@reposite/test-support";
import { afterAll, beforeAll, describe } from "vitest";
import { createSwarmAppRuntime, createSwarmImageBuilder, type SwarmOptions } from "../src/index.js";

const engine = await dockerForTests();
/** Everything this file makes carries this label and a `reposite-swarmtest-` name, and is removed at the end. */
const RUN_LABEL = "reposite-test.run";
const run = `reposite-swarmtest-${randomBytes(4).toString("hex")}`;
const labels = { [RUN_LABEL]: run };

/** Removes this run's services first (their tasks hold the networks), then everything else labelled. */
async function removeEverything(): Promise<void> {
  const services = (await docker(["service", "ls", "-q", "--filter", `label=${RUN_LABEL}=${run}`])).stdout.split("\n").filter(Boolean);
  if (services.length) await docker(["service", "rm", ...services]).catch(() => undefined);
  for (let tries = 0; tries < 60; tries++) {
    const left = (await docker(["ps", "-aq", "--filter", `label=${RUN_LABEL}=${run}`, "--filter", "label=com.docker.swarm.service.id"])).stdout.trim();
    if (!left) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await removeLabelled(RUN_LABEL, run).catch(() => undefined);
}

/** What a node that never built the image finds: the local copy removed, then pulled from the registry. */
async function fetchAsNode(reference: string): Promise<Record<string, string> | null> {
  const id = await docker(["image", "inspect", "--format", "{{.Id}}", reference]).then(({ stdout }) => stdout.trim(), () => null);
  if (id) await docker(["rmi", "-f", id]).catch(() => undefined);
  const pulled = await docker(["pull", "-q", reference], { timeoutMs: 120_000 }).then(() => true, () => false);
  if (!pulled) return null;
  const { stdout } = await docker(["image", "inspect", "--format", "{{json .Config.Labels}}", reference]);
  return JSON.parse(stdout) as Record<string, string>;
}

describe.skipIf(!engine.available)("provider-swarm on a single-node swarm with a loopback registry", () => {
  let registry: TestRegistry;
  let options: SwarmOptions;

  beforeAll(async () => {
    await ensureSwarm();
    registry = await startRegistry();
    // Short health timing: a task is found unhealthy in a few seconds, so a bad rollout rolls back soon.
    // Reached on the apps' overlay networks (from a vantage there), as an edge attached to them does.
    options = { registry: { address: registry.address }, reach: "network", health: { intervalSeconds: 1, timeoutSeconds: 2, retries: 3, startPeriodSeconds: 3 } };
  }, 180_000);
  afterAll(async () => {
    await removeEverything();
    await registry?.stop();
  }, 180_000);

  imageBuilderContract(
    "swarm",
    async () => {
      const images = await buildLocalBaseImages();
      return {
        builder: createSwarmImageBuilder(options),
        baseImages: { node: images.node, busybox: images.busybox },
        labels,
        fetchAsNode,
        async stored(image) {
          const [repository, digest] = image.reference.slice(registry.address.length + 1).split("@");
          const local = await docker(["image", "inspect", image.id]).then(() => true, () => false);
          return local || (await registry.has(repository!, digest!));
        },
        teardown: async () => undefined,
      };
    },
    { namePrefix: "reposite-swarmtest-ibc" },
  );

  appRuntimeContract(
    "swarm",
    async () => {
      const images = await buildLocalBaseImages();
      const runtime = createSwarmAppRuntime(options);
      let vantages = 0;
      return {
        runtime,
        builder: createSwarmImageBuilder(options),
        baseImages: { node: images.node, busybox: images.busybox },
        labels,
        vantage: (network) => {
          if (!network) throw new Error("swarm apps are reached from their overlay network");
          return networkVantage(network, { name: `${run}-vantage-${vantages++}`, image: images.node, labels });
        },
        async internalAddresses(id) {
          const tasks = (await runtime.docker.listTasks({ filters: { service: [id], "desired-state": ["running"] } })) as { NetworksAttachments?: { Addresses?: string[] }[] }[];
          return tasks.flatMap((task) => (task.NetworksAttachments ?? []).flatMap((attachment) => (attachment.Addresses ?? []).map((address) => address.split("/")[0]!)));
        },
        async networks() {
          return (await docker(["network", "ls", "--format", "{{.Name}}"])).stdout.split("\n").filter(Boolean);
        },
        teardown: async () => undefined,
      };
    },
    { namePrefix: "reposite-swarmtest-arc" },
  );
});
