import { randomBytes } from "node:crypto";
import { buildLocalBaseImages, buildLocalPauseImage, docker, dockerForTests, removeLabelled } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDockerRuntime, type DockerRuntime } from "../src/index.js";

const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `holders-${randomBytes(4).toString("hex")}`;
const labels = { [RUN_LABEL]: run, "dev.reposite.role": "app" };

const ids = async (args: string[]) => (await docker(args)).stdout.split("\n").filter(Boolean);
/** The holders of `network` on the Engine (any state). */
const holdersOf = (network: string) => ids(["ps", "-aq", "--no-trunc", "--filter", "label=dev.reposite.role=network-holder", "--filter", `label=dev.reposite.network=${network}`]);
const networkModeOf = async (id: string) => (await docker(["inspect", "--format", "{{.HostConfig.NetworkMode}}", id])).stdout.trim();
const answer = async (port: number) => (await fetch(`http://127.0.0.1:${port}/`)).text();

// App containers that start in their network's holder (network-holders.ts) on the real Engine.
describe.skipIf(!engine.available)("network holders on the Engine", () => {
  let runtime: DockerRuntime;
  let busybox = "";
  const network = `${run}-net`;
  /** A deploy of the app: busybox httpd answering `mark` on 8080. */
  const deploy = (mark: string, on: DockerRuntime = runtime, net = network) =>
    on.runContainer({
      name: `${run}-${mark}`,
      image: busybox,
      labels,
      env: { MARK: mark },
      command: ["sh", "-c", 'mkdir -p /tmp/www && echo "$MARK" > /tmp/www/index.html && exec httpd -f -p "$PORT" -h /tmp/www'],
      port: 8080,
      memoryMb: 32,
      cpus: 0.25,
      pidsLimit: 20,
      network: net,
    });
  const answered = async (port: number, mark: string) => {
    for (let tries = 0; tries < 50; tries++) {
      const text = await answer(port).catch(() => "");
      if (text === `${mark}\n`) return text;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return answer(port);
  };

  beforeAll(async () => {
    busybox = (await buildLocalBaseImages()).busybox;
    runtime = createDockerRuntime({ networkHolderImage: await buildLocalPauseImage() });
  }, 120_000);
  afterAll(() => removeLabelled(RUN_LABEL, run), 60_000);

  it("a redeploy's container starts in the holder its last-but-one left free: two holders per app, each container answers on its holder's port", async () => {
    const first = await deploy("first");
    expect(await answered(first.hostPort, "first")).toBe("first\n");
    const [firstHolder] = await holdersOf(network);
    expect(await networkModeOf(first.id)).toBe(`container:${firstHolder}`);

    // A redeploy while the first still serves: a second holder, the first keeps answering.
    const second = await deploy("second");
    expect(await answered(second.hostPort, "second")).toBe("second\n");
    expect(await answer(first.hostPort)).toBe("first\n");
    expect(await holdersOf(network)).toHaveLength(2);

    // The first goes; its holder stays, free. The next deploy starts in it: nothing made on the network.
    await runtime.removeContainer(first.id);
    expect(await holdersOf(network)).toHaveLength(2);
    const third = await deploy("third");
    expect(await networkModeOf(third.id)).toBe(`container:${firstHolder}`);
    expect(third.hostPort).toBe(first.hostPort);
    expect(await answered(third.hostPort, "third")).toBe("third\n");
    expect(await holdersOf(network)).toHaveLength(2);

    // What the server reads back: the port, the app containers only (never a holder), the traffic.
    expect(await runtime.inspectContainer(third.id)).toMatchObject({ running: true, hostPort: third.hostPort });
    const listed = await runtime.listContainers(labels);
    expect(listed.map((each) => [each.id, each.hostPort]).sort()).toEqual([[second.id, second.hostPort], [third.id, third.hostPort]].sort());
    expect((await runtime.stats!(third.id)).networkRxBytes).toBeGreaterThan(0);
    await runtime.removeContainer(second.id);
  }, 120_000);

  it("after the Engine stopped both (a restart), starting the container starts its holder first, on the port it publishes now", async () => {
    const [app] = await runtime.listContainers(labels);
    const holder = (await networkModeOf(app!.id)).slice("container:".length);
    await docker(["stop", "-t", "0", app!.id, holder]);
    expect(await runtime.inspectContainer(app!.id)).toMatchObject({ running: false, hostPort: null });

    const state = await runtime.startContainer(app!.id);
    expect(state).toMatchObject({ running: true, hostPort: expect.any(Number) });
    expect(await answered(state.hostPort!, "third")).toBe("third\n");
  }, 60_000);

  it("removing the app's network removes its holders first; without the holder image on the Engine, containers join the network themselves", async () => {
    for (const app of await runtime.listContainers(labels)) await runtime.removeContainer(app.id);
    await runtime.removeNetwork(network);
    expect(await holdersOf(network)).toEqual([]);
    expect(await ids(["network", "ls", "-q", "--filter", `name=^${network}$`])).toEqual([]);

    const withoutImage = createDockerRuntime({ networkHolderImage: `reposite-test/${run}-absent:1` });
    const plain = await deploy("plain", withoutImage, `${run}-plain`);
    expect(await networkModeOf(plain.id)).toBe(`${run}-plain`);
    expect(await answered(plain.hostPort, "plain")).toBe("plain\n");
    expect(await holdersOf(`${run}-plain`)).toEqual([]);
  }, 60_000);
});
