import type { AppAddress, AppDiskUsage, AppHandle, AppRuntime, AppSpec, AppState, AppSummary, ContainerState, StopOptions } from "@reposite/core";
import type Docker from "dockerode";
import { createDockerRuntime, type DockerRuntime, type DockerRuntimeOptions } from "./docker-runtime.js";
import { appNetworkOf, networkInUse } from "./app-network-use.js";

export interface DockerAppRuntimeOptions extends DockerRuntimeOptions {
  /**
   * The Docker runtime this adapts (network holders, app firewall, loop volumes and limits come
   * with it). Give the one `createDockerImageBuilder` uses too; one is made from the other options
   * when absent.
   */
  runtime?: DockerRuntime;
}

/** An app as provider-docker runs it: the port's spec (`writableRoot` included). */
export type DockerAppSpec = AppSpec;

/** The AppRuntime on one Docker Engine, with the runtime it adapts (disk limits, the firewall, holder image pulls). */
export interface DockerAppRuntime extends AppRuntime {
  readonly dockerRuntime: DockerRuntime;
  run(spec: DockerAppSpec): Promise<AppHandle>;
}

/**
 * The AppRuntime port on one Docker Engine: each app is a container run by the DockerRuntime
 * (limits, lock-down, its own bridge network, its network holder, the app firewall, a loop-mounted
 * volume), published on 127.0.0.1, so `address()` has no network. Core rolls out (`caller`): a new
 * version is a second app on the same network, and removing the old one leaves the network to it.
 * No orchestrator restarts an ended container here, so an app is `wanted` exactly while it runs;
 * reservations are for a scheduler and have none to tell on one engine.
 */
export function createDockerAppRuntime(options: DockerAppRuntimeOptions = {}): DockerAppRuntime {
  const runtime = options.runtime ?? createDockerRuntime(options);
  const docker = runtime.docker;
  const engineInspect = (id: string): Promise<Docker.ContainerInspectInfo | null> =>
    docker
      .getContainer(id)
      .inspect()
      .catch((error: { statusCode?: number }) => {
        if (error?.statusCode === 404) return null;
        throw error;
      });
  const addressOf = (state: ContainerState | null): AppAddress | null =>
    state?.running && state.hostPort ? { host: "127.0.0.1", port: state.hostPort, network: null } : null;

  return {
    specificationVersion: "v1",
    get provider() {
      return runtime.name;
    },
    capabilities: { rollout: "caller", exec: true, terminal: true, stats: true, disk: true, diskLimits: true },
    dockerRuntime: runtime,

    ping: () => runtime.ping(),

    async run(spec: DockerAppSpec): Promise<AppHandle> {
      const { name, image, labels, env, command, port, memoryMb, cpus, pidsLimit, volume, network, writableRoot } = spec;
      const handle = await runtime
        .runContainer({ name, image, labels, env, ...(command ? { command } : {}), port, memoryMb, cpus, pidsLimit, ...(volume ? { volume } : {}), ...(writableRoot ? { writableRoot } : {}), network })
        .catch(async (error: unknown) => {
          // An app that never started made its network (and holders) all the same: as with remove(), they go with the app's last container.
          if (!(await networkInUse(docker, network).catch(() => true))) await runtime.removeNetwork(network).catch(() => undefined);
          throw error;
        });
      return { id: handle.id, address: { host: handle.host, port: handle.hostPort, network: null } };
    },

    stop: (id: string, stopOptions?: StopOptions) => runtime.stopContainer(id, stopOptions?.graceSeconds),

    async start(id: string): Promise<AppState> {
      await runtime.startContainer(id);
      const state = await this.inspect(id);
      if (!state) throw new Error(`[provider-docker] ${id} is gone`);
      return state;
    },

    async remove(id: string) {
      const network = appNetworkOf(await engineInspect(id));
      await runtime.removeContainer(id);
      // A caller rollout's new version runs on the same network: it goes with the app's last container.
      if (network && !(await networkInUse(docker, network))) await runtime.removeNetwork(network);
    },

    removeVolume: (name: string) => runtime.removeVolume(name),

    async inspect(id: string): Promise<AppState | null> {
      const [state, info] = await Promise.all([runtime.inspectContainer(id), engineInspect(id)]);
      if (!state || !info) return null;
      const ended = !state.running && state.finishedAt !== null;
      return {
        id: state.id,
        wanted: state.running,
        running: state.running,
        exitCode: state.exitCode,
        oomKilled: state.oomKilled,
        startedAt: state.startedAt,
        finishedAt: state.finishedAt,
        image: info.Config.Image,
        message: info.State.Error || (ended ? `exited with code ${state.exitCode}${state.oomKilled ? " (out of memory)" : ""}` : null),
      };
    },

    async list(labels: Record<string, string>): Promise<AppSummary[]> {
      return (await runtime.listContainers(labels)).map(({ id, name, labels: found, running }) => ({ id, name, labels: found, running }));
    },

    logs: (id: string, tail: number) => runtime.logs(id, tail),

    async address(id: string) {
      return addressOf(await runtime.inspectContainer(id));
    },

    exec: (id, command, execOptions) => runtime.exec!(id, command, execOptions),
    openTerminal: (id, terminalOptions) => runtime.openTerminal!(id, terminalOptions),
    stats: (id) => runtime.stats!(id),

    async diskUsage(id: string, volume?: string): Promise<AppDiskUsage> {
      const [writableBytes, volumeBytes] = await Promise.all([runtime.containerSize(id), volume ? runtime.volumeSize(volume) : null]);
      return { writableBytes, volumeBytes };
    },

    volumeSize: (name: string) => runtime.volumeSize(name),

    // Loop-mounted volumes (loop-volumes.ts) hold an app's disk limit at write time, where this process may mount them.
    resizeVolume: (name: string, limitMb: number) => runtime.resizeVolume!(name, limitMb),
    diskLimits: () => runtime.diskLimits!(),
  };
}
