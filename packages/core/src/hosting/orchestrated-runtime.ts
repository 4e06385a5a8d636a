import type { AppImage, ImageBuilder } from "../ports/image-builder.js";
import type { AppRuntime } from "../ports/app-runtime.js";
import { LABEL_ROLE } from "./app-names.js";
import type { BuildRequest, BuiltImage, ContainerRuntime, ContainerSpec, ContainerState, ContainerSummary } from "../ports/container-runtime.js";

/**
 * The container runtime the rest of hosting reads (logs, stop, start, removal, recovery, metrics,
 * terminal, disk), made of an `ImageBuilder` and an orchestrating `AppRuntime`: a container id here
 * is the runtime's app id (a Swarm service), an image is known by its tag until the builder's
 * reference is learned. Deploys and restarts do not make containers through it: `OrchestratedApps`
 * runs and replaces apps with the runtime's own rollouts.
 */
export interface OrchestratedContainerRuntime extends ContainerRuntime {
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

export function orchestratedContainerRuntime(builder: ImageBuilder, apps: AppRuntime): OrchestratedContainerRuntime {
  assertSpecification(builder, "image builder");
  assertSpecification(apps, "app runtime");
  if (apps.capabilities.rollout !== "orchestrator") throw new Error(`[reposite] the app runtime ${apps.provider} does not roll out by itself (rollout: ${apps.capabilities.rollout}).`);
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

    ...(builder.removeBuildCache ? { removeBuildCache: (labels: Record<string, string>) => builder.removeBuildCache!(labels) } : {}),

    runContainer(spec: ContainerSpec): never {
      // Apps are run through OrchestratedApps (with their health path and rollouts), never as loose containers.
      throw new Error(`[reposite] ${apps.provider} runs apps through its own rollouts, not as containers (${spec.name}).`);
    },

    inspectContainer: stateOf,

    async stopContainer(id: string) {
      await apps.stop(id);
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
      if (await runs(image.reference)) return;
      await builder.remove(image);
      for (const [tag, known] of built) if (known.reference === image.reference) built.delete(tag);
    },

    removeVolume: (name) => apps.removeVolume(name),

    // The runtime's remove() takes the network it made with the app.
    async removeNetwork() {},

    async imageSize() {
      return null;
    },

    async volumeSize() {
      return null;
    },

    async containerSize(id: string) {
      if (!apps.capabilities.disk || !apps.diskUsage) return null;
      return (await apps.diskUsage(id)).writableBytes;
    },

    ...(apps.capabilities.stats && apps.stats ? { stats: (id: string) => apps.stats!(id) } : {}),
    ...(apps.capabilities.exec && apps.exec ? { exec: (id: string, command: string[], options?: { timeoutMs?: number; maxBytes?: number }) => apps.exec!(id, command, options) } : {}),
    ...(apps.capabilities.terminal && apps.openTerminal ? { openTerminal: (id: string, options: Parameters<NonNullable<AppRuntime["openTerminal"]>>[1]) => apps.openTerminal!(id, options) } : {}),
  };
}

/** The orchestrated runtime behind a container runtime, when it is one. */
export function asOrchestrated(runtime: ContainerRuntime): OrchestratedContainerRuntime | null {
  return "apps" in runtime && "builder" in runtime && typeof (runtime as OrchestratedContainerRuntime).imageOf === "function" ? (runtime as OrchestratedContainerRuntime) : null;
}
