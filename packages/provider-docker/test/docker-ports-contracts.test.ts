import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  appRuntimeContract,
  buildLocalBaseImages,
  buildLocalPauseImage,
  docker,
  dockerForTests,
  imageBuilderContract,
  removeLabelled,
} from "@reposite/test-support";
import { afterAll, beforeAll, describe } from "vitest";
import { createAppFirewall, createDockerAppRuntime, createDockerImageBuilder, createDockerRuntime, type AppFirewallOptions, type DockerRuntime } from "../src/index.js";

const engine = await dockerForTests();
const root = process.getuid?.() === 0;
/** Everything this file makes carries this label and a `reposite-portstest-` name, and is removed at the end. */
const RUN_LABEL = "reposite-test.run";
const run = `reposite-portstest-${randomBytes(4).toString("hex")}`;
const labels = { [RUN_LABEL]: run };
// The app firewall on this run's networks only, as the server turns it on for its apps (needs root).
const firewall: AppFirewallOptions = { networkLabels: labels };

const ids = async (args: string[]) => (await docker(args)).stdout.split("\n").filter(Boolean);

/** The image's labels on the Engine (the one node that runs what it builds), or null when it has none. */
async function labelsOnEngine(reference: string): Promise<Record<string, string> | null> {
  const found = await docker(["image", "inspect", "--format", "{{json .Config.Labels}}", reference]).catch(() => null);
  return found ? (JSON.parse(found.stdout) as Record<string, string>) : null;
}

/** A container's addresses on its app network: its network holder's when it started in one. */
async function addressesOf(id: string): Promise<string[]> {
  const [mode] = await ids(["inspect", "--format", "{{.HostConfig.NetworkMode}}", id]);
  const holder = mode?.startsWith("container:") ? mode.slice("container:".length) : id;
  const { stdout } = await docker(["inspect", "--format", "{{json .NetworkSettings.Networks}}", holder]);
  return Object.values(JSON.parse(stdout) as Record<string, { IPAddress: string }>)
    .map((network) => network.IPAddress)
    .filter(Boolean);
}

// The split ports' contract suites on provider-docker's adapters, as a server runs them: network
// holders, loop-mounted volumes, and the app firewall when this process may change iptables.
describe.skipIf(!engine.available)("provider-docker's ImageBuilder and AppRuntime on the Engine", () => {
  let runtime: DockerRuntime;
  let images: { node: string; busybox: string };
  let dataDir = "";
  const shared = async () => ({ runtime, baseImages: { node: images.node, busybox: images.busybox }, labels });

  beforeAll(async () => {
    images = await buildLocalBaseImages();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-portstest-"));
    // One runtime behind both adapters: one Engine connection, one build cache index.
    runtime = createDockerRuntime({
      networkHolderImage: await buildLocalPauseImage(),
      volumesDir: join(dataDir, "volumes"),
      buildCacheIndex: join(dataDir, "build-cache.json"),
      ...(root ? { appFirewall: firewall } : {}),
    });
    if (root) await runtime.appFirewall!.start();
  }, 120_000);
  afterAll(async () => {
    await removeLabelled(RUN_LABEL, run);
    const volumes = await runtime.loopVolumes();
    for (const name of (await volumes?.names()) ?? []) await volumes!.remove(name);
    await rm(dataDir, { recursive: true, force: true });
    // Rules of networks that went with the run's leftovers go at the next start.
    if (root) await createAppFirewall(runtime.docker, firewall).start();
  }, 120_000);

  imageBuilderContract(
    "docker",
    async () => {
      const { runtime: engineRuntime, ...rest } = await shared();
      return {
        ...rest,
        builder: createDockerImageBuilder({ runtime: engineRuntime }),
        fetchAsNode: labelsOnEngine,
        stored: async (image) => (await labelsOnEngine(image.id)) !== null,
        teardown: async () => undefined, // removeLabelled, at the end of the file
      };
    },
    { namePrefix: `${run}-ibc` },
  );

  appRuntimeContract(
    "docker",
    async () => {
      const { runtime: engineRuntime, ...rest } = await shared();
      return {
        ...rest,
        runtime: createDockerAppRuntime({ runtime: engineRuntime }),
        builder: createDockerImageBuilder({ runtime: engineRuntime }),
        internalAddresses: addressesOf,
        networks: () => ids(["network", "ls", "--format", "{{.Name}}"]),
        teardown: async () => undefined,
      };
    },
    { namePrefix: `${run}-arc` },
  );
});
