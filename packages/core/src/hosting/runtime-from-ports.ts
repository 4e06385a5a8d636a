import type { AppImage, ImageBuilder } from "../ports/image-builder.js";
import type { AppRuntime } from "../ports/app-runtime.js";
import { LABEL_ROLE } from "./app-names.js";
import type { BuildRequest, BuiltImage, ContainerHandle, ContainerRuntime, ContainerSpec, ContainerState, ContainerSummary, TerminalOptions } from "../ports/container-runtime.js";

/**
 * The container runtime the rest of hosting reads (deploys, logs, stop, start, removal, recovery,
 * metrics, terminal, disk), made of the two ports a provider implements: an `ImageBuilder` and an
 * `AppRuntime`. A container id here is the runtime's app id (a container on one engine, a Swarm
 * service); an image is known by its tag until the builder's reference is learned.
 * - With `rollout: "caller"` (one Docker Engine), `runContainer` is `apps.run()`: the deploy
 *   pipeline starts the new version beside the old one, health-checks it at its address, switches,
 *   drains and removes the old one, as it always has.
 * - With `rollout: "orchestrator"` (Swarm), deploys and restarts do not make containers through
 *   it: `OrchestratedApps` runs and replaces apps with the runtime's own rollouts.
 */
export interface PortsContainerRuntime extends ContainerRuntime {
  readonly builder: ImageBuilder;
  readonly apps: AppRuntime;
  /** The builder's image for a tag built here (or a reference given as it is). */
  imageOf(tagOrReference: string): AppImage;
}

/** Refuses ports written for another version of their interface: their methods could mean other things. */
export function assertSpecification(port: { specificationVersion?: string; provider?: string }, what: string): void {
  if (port.specificationVersion !== "v1") {
    throw new Error(`[reposite] the ${what} ${port.provider ?? ""} implements specification ${JSON.stringify(port.specificationVersion)}; this Reposite needs "v1".`);
  }
}

export function containerRuntimeFromPorts(builder: ImageBuilder, apps: AppRuntime): PortsContainerRuntime {
  assertSpecification(builder, "image builder");
  assertSpecification(apps, "app runtime");
  const orchestrated = apps.capabilities.rollout === "orchestrator";
  // Tags of images built by this process: their references (by digest) and ids for removal.
  const built = new Map<string, AppImage>();

  const imageOf = (tagOrReference: string): AppImage =>
    built.get(tagOrReference) ??
    [...built.values()].find((image) => image.reference === tagOrReference) ?? { id: tagOrReference, reference: tagOrReference, digest: /@(sha256:[0-9a-f]{64})$/.exec(tagOrReference)?.[1] ?? null };

  /** Whether any hosted app is meant to run `reference` now. */
  const runs = async (reference: string) => {
    for (const app of await apps.list({ [LABEL_ROLE]: "app" })) if ((await apps.inspect(app.id))?.image === reference) return true;
    return false;
  };

  const stateOf = async (id: string): Promise<ContainerState | null> => {
    const [state, address] = await Promise.all([apps.inspect(id), apps.address(id)]);
    if (!state) return null;
    return {
      id: state.id,
      running: state.running,
      exitCode: state.running ? null : state.exitCode,
      oomKilled: state.oomKilled,
      startedAt: state.startedAt,
      finishedAt: state.finishedAt,
      hostPort: state.running ? (address?.port ?? null) : null,
    };
  };

  const diskLimitsOn = apps.capabilities.diskLimits === true;
  const diskOn = apps.capabilities.disk;

  return {
    builder,
    apps,
    imageOf,
    name: apps.provider,
    capabilities: { stats: apps.capabilities.stats, exec: apps.capabilities.exec, execTty: apps.capabilities.terminal },

    async ping() {
      await Promise.all([builder.ping(), apps.ping()]);
    },

    async buildImage(request: BuildRequest): Promise<BuiltImage> {
      const image = await builder.build(request);
      built.set(request.tag, image);
      return { id: image.reference };
    },

    ...(builder.capabilities.buildCache && builder.removeBuildCache ? { removeBuildCache: (labels: Record<string, string>) => builder.removeBuildCache!(labels) } : {}),

    async runContainer(spec: ContainerSpec): Promise<ContainerHandle> {
      // Apps on an orchestrator run through OrchestratedApps (with their health path and rollouts), never as loose containers.
      if (orchestrated) throw new Error(`[reposite] ${apps.provider} runs apps through its own rollouts, not as containers (${spec.name}).`);
      const handle = await apps.run({ ...spec, image: imageOf(spec.image).reference });
      return { id: handle.id, host: handle.address.host, hostPort: handle.address.port };
    },

    inspectContainer: stateOf,

    async stopContainer(id: string, graceSeconds?: number) {
      await apps.stop(id, graceSeconds === undefined ? undefined : { graceSeconds });
    },

    async startContainer(id: string) {
      await apps.start(id);
      const state = await stateOf(id);
      if (!state) throw new Error(`[reposite] the app ${id} went while it started`);
      return state;
    },

    async removeContainer(id: string) {
      await apps.remove(id);
    },

    async listContainers(labels: Record<string, string>): Promise<ContainerSummary[]> {
      const found = await apps.list(labels);
      return Promise.all(
        found.map(async (app) => ({ id: app.id, name: app.name, labels: app.labels, running: app.running, hostPort: app.running ? ((await apps.address(app.id))?.port ?? null) : null })),
      );
    },

    logs: (id, tail) => apps.logs(id, tail),

    async removeImage(tagOrReference: string) {
      const image = imageOf(tagOrReference);
      // Identical builds give one digest: an image an app still runs (the old version of a same-code deploy) stays.
      // A caller rollout never removes the image the new version runs (AppContainers checks it).
      if (orchestrated && (await runs(image.reference))) return;
      await builder.remove(image);
      for (const [tag, known] of built) if (known.reference === image.reference) built.delete(tag);
    },

    removeVolume: (name) => apps.removeVolume(name),

    // The runtime's remove() takes the network it made with the app, with its last app.
    async removeNetwork() {},

    ...(diskLimitsOn && apps.resizeVolume ? { resizeVolume: (name: string, limitMb: number) => apps.resizeVolume!(name, limitMb) } : {}),
    ...(diskLimitsOn && apps.diskLimits ? { diskLimits: () => apps.diskLimits!() } : {}),

    async imageSize(tagOrReference: string) {
      if (!builder.capabilities.sizes || !builder.imageSize) return null;
      return builder.imageSize(imageOf(tagOrReference));
    },

    async volumeSize(name: string) {
      if (!diskOn || !apps.volumeSize) return null;
      return apps.volumeSize(name);
    },

    async containerSize(id: string) {
      if (!diskOn || !apps.diskUsage) return null;
      return (await apps.diskUsage(id)).writableBytes;
    },

    ...(apps.capabilities.stats && apps.stats ? { stats: (id: string) => apps.stats!(id) } : {}),
    ...(apps.capabilities.exec && apps.exec ? { exec: (id: string, command: string[], options?: { timeoutMs?: number; maxBytes?: number }) => apps.exec!(id, command, options) } : {}),
    ...(apps.capabilities.terminal && apps.openTerminal ? { openTerminal: (id: string, options: TerminalOptions) => apps.openTerminal!(id, options) } : {}),
  };
}

/** The two ports behind a container runtime, when it is made of them. */
export function asPorts(runtime: ContainerRuntime): PortsContainerRuntime | null {
  return "apps" in runtime && "builder" in runtime && typeof (runtime as PortsContainerRuntime).imageOf === "function" ? (runtime as PortsContainerRuntime) : null;
}

/** The orchestrated runtime behind a container runtime, when it is one (its app runtime rolls out by itself). */
export function asOrchestrated(runtime: ContainerRuntime): PortsContainerRuntime | null {
  const ports = asPorts(runtime);
  return ports?.apps.capabilities.rollout === "orchestrator" ? ports : null;
}
