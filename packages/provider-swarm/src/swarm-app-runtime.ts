import type { AppAddress, AppChange, AppHandle, AppRuntime, AppSpec, AppState, AppSummary, RolloutOptions, RolloutResult } from "@reposite/core";
import type Docker from "dockerode";
import { connectEngine, engineMessage, ifMissing, waitUntil } from "./engine.js";
import { gatewayAddress } from "./gateway-address.js";
import { nodeEngines } from "./node-engines.js";
import { registryAuth, withoutSecret } from "./registry-auth.js";
import { followUpdate } from "./rollout.js";
import { serviceLogs } from "./service-logs.js";
import { changedSpec, LABEL_NETWORK, LABEL_PORT, serviceSpec, type ServiceSpec } from "./service-spec.js";
import { appState, lastEndedTask, liveTask, runningTask, type SwarmTask } from "./service-state.js";
import { DEFAULT_HEALTH_TIMING, type SwarmOptions } from "./swarm-options.js";

/** The AppRuntime on Swarm, with the dockerode client for what the port does not cover. */
export interface SwarmAppRuntime extends AppRuntime {
  readonly docker: Docker;
  /**
   * Whether the apps' tasks run with `no-new-privileges`, and why, for the start-up output: the
   * service asks for it, but only Engines with API 1.46 or later apply that, and older ones only
   * when their daemon sets it for every container.
   */
  noNewPrivileges(): Promise<{ enforced: boolean; note: string }>;
}

interface ServiceInfo {
  ID: string;
  Version: { Index: number };
  Spec: ServiceSpec;
  UpdateStatus?: { StartedAt?: string };
}

/** How long stop, start and remove wait for Swarm to act on a change. */
const SETTLE_MS = 60_000;

/**
 * The AppRuntime on Docker Swarm (dockerode 5, Engine API on a manager): one service per app, one
 * replica, on an attachable overlay network of its own (service-spec.ts). The edge reaches an app
 * at `<service name>:<port>` from that network (`address()`); with the default `dnsrr` endpoint
 * mode the name resolves to the healthy tasks' own addresses, which needs no IPVS. Rollouts are the
 * orchestrator's: `replace()` is a start-first update gated by the health check, rolled back by
 * Swarm when the new task never becomes healthy. Recovery lists services by labels.
 */
export function createSwarmAppRuntime(options: SwarmOptions = {}): SwarmAppRuntime {
  const docker = connectEngine(options.dockerHost);
  const nodes = nodeEngines(docker, options.dockerHost, options.nodeEngines ?? {});
  const auth = registryAuth(options.registry);
  const reach = options.reach ?? "gateway";
  const settings = async () => ({
    endpointMode: options.endpointMode ?? "dnsrr",
    probeBinary: options.probeBinary ?? "/bin/busybox",
    health: { ...DEFAULT_HEALTH_TIMING, ...options.health },
    logBytes: options.logBytes ?? 20 * 1024 * 1024,
    volumeNode: options.volumeNode ?? (await nodes.managerNode()),
    // A gateway address is reached only on its own node: the manager's, where the control plane and its edge run.
    ...(reach === "gateway" ? { appNode: await nodes.managerNode() } : {}),
  });
  const say = (message: string) => new Error(withoutSecret(`[provider-swarm] ${message}`, options.registry));

  const service = async (id: string): Promise<ServiceInfo | null> => (await docker.getService(id).inspect().catch(ifMissing(null))) as ServiceInfo | null;
  const tasks = async (id: string): Promise<SwarmTask[]> => (await docker.listTasks({ filters: { service: [id] } })) as SwarmTask[];
  const update = async (info: ServiceInfo, spec: ServiceSpec) => {
    await docker
      .getService(info.ID)
      .update({ ...(auth ? { authconfig: auth } : {}), _query: { version: info.Version.Index }, _body: spec } as unknown as Record<string, unknown>)
      .catch((error: unknown) => {
        throw say(`cannot update ${info.Spec.Name}: ${engineMessage(error)}`);
      });
  };
  /**
   * A server-side rollback to the spec before the last update (Engine API `rollback=previous`: the
   * body is ignored), run with the service's RollbackConfig (start-first). Swarm writes the
   * update's status as it goes, which moves the service's version: a write that lost that race is
   * sent again with the version as it is now.
   */
  const rollBack = async (id: string) => {
    for (let attempt = 1; ; attempt++) {
      const info = await service(id);
      if (!info) throw say(`no app ${id} to roll back`);
      try {
        await docker.getService(id).update({ ...(auth ? { authconfig: auth } : {}), _query: { version: info.Version.Index, rollback: "previous" }, _body: info.Spec } as unknown as Record<string, unknown>);
        return;
      } catch (error) {
        if (attempt >= 5 || !/out of sequence/i.test(engineMessage(error))) throw say(`cannot roll ${info.Spec.Name} back: ${engineMessage(error)}`);
      }
    }
  };
  const setReplicas = async (id: string, replicas: number) => {
    const info = await service(id);
    if (!info) return null;
    if (info.Spec.Mode.Replicated.Replicas !== replicas) await update(info, { ...info.Spec, Mode: { Replicated: { Replicas: replicas } } });
    return info;
  };
  const ensureNetwork = async (name: string, labels: Record<string, string>) => {
    const existing = await docker.listNetworks({ filters: { name: [name] } });
    if (existing.some((network) => network.Name === name)) return;
    // Attachable, so the edge (a plain container) can join it and reach the app by name.
    await docker.createNetwork({ Name: name, Driver: "overlay", Attachable: true, CheckDuplicate: true, Labels: labels }).catch((error: unknown) => {
      if ((error as { statusCode?: number }).statusCode === 409) return;
      throw say(`cannot create the overlay network ${name}: ${engineMessage(error)}`);
    });
  };
  /** The task's container on its node, when that node's Engine is known. */
  const containerOf = async (task: SwarmTask | null) => {
    const containerId = task?.Status?.ContainerStatus?.ContainerID;
    const runtime = containerId ? await nodes.of(task?.NodeID) : null;
    return runtime && containerId ? { runtime, containerId } : null;
  };
  const runningContainer = async (id: string) => {
    const found = await containerOf(liveTask(await tasks(id)));
    if (!found) throw say(`the app ${id} runs on no node this runtime can reach (not running, or its node's Engine is not in nodeEngines)`);
    return found;
  };

  return {
    specificationVersion: "v1",
    docker,
    get provider() {
      return "swarm";
    },
    capabilities: { rollout: "orchestrator", exec: true, terminal: true, stats: true, disk: true },

    async noNewPrivileges() {
      const [version, info] = await Promise.all([docker.version() as Promise<{ ApiVersion?: string }>, docker.info() as Promise<{ SecurityOptions?: string[] }>]);
      const api = version.ApiVersion ?? "0";
      if (compareVersions(api, "1.46") >= 0) return { enforced: true, note: `the Engine (API ${api}) applies the services' no-new-privileges` };
      if ((info.SecurityOptions ?? []).some((option) => option.includes("no-new-privileges"))) return { enforced: true, note: "the daemon sets no-new-privileges for every container" };
      return {
        enforced: false,
        note: `the Engine (API ${api}, before 1.46) ignores the services' no-new-privileges: set "no-new-privileges": true in every node's daemon.json (every capability is dropped either way)`,
      };
    },

    async ping() {
      await nodes.managerNode();
      const info = (await docker.info()) as { Swarm?: { ControlAvailable?: boolean } };
      if (!info.Swarm?.ControlAvailable) throw say("the Engine is a swarm worker: give the address of a manager");
    },

    async run(spec: AppSpec): Promise<AppHandle> {
      const [, resolved] = await Promise.all([ensureNetwork(spec.network, spec.labels), settings()]);
      // Two arguments: with one, dockerode sends the whole spec as the X-Registry-Auth header, and nodes cannot pull.
      const created = (await docker.createService(auth as Docker.AuthConfig, serviceSpec(spec, resolved) as unknown as Docker.CreateServiceOptions).catch((error: unknown) => {
        throw say(`cannot create the service ${spec.name}: ${engineMessage(error)}`);
      })) as { id?: string; ID?: string };
      const id = created.ID ?? created.id ?? "";
      return { id, address: { host: spec.name, port: spec.port, network: spec.network } };
    },

    async replace(id: string, change: AppChange, rollout: RolloutOptions = {}): Promise<RolloutResult> {
      const info = await service(id);
      if (!info) throw say(`no app ${id} to replace`);
      if (rollout.signal?.aborted) return { outcome: "cancelled", message: "cancelled before the update started" };
      const since = new Date(Date.now() - 1_000).toISOString();
      await update(info, changedSpec(info.Spec, change, Number(info.Spec.Labels[LABEL_PORT] ?? 0)));
      const result = await followUpdate(docker, id, {
        since,
        timeoutMs: rollout.timeoutMs ?? options.rolloutTimeoutMs ?? 300_000,
        onProgress: rollout.onProgress ?? (() => undefined),
        ...(rollout.signal ? { signal: rollout.signal } : {}),
        rollBack: () => rollBack(id),
      });
      if (result.outcome === "rolled_back") {
        // Why the new task failed: the task's own error says more than "rolled back".
        const failed = (await tasks(id)).find((task) => task.Spec?.ContainerSpec?.Image === change.image && task.Status?.Err);
        if (failed?.Status?.Err) return { ...result, message: `${result.message} (${failed.Status.Err})` };
      }
      return result;
    },

    async stop(id: string) {
      if (!(await setReplicas(id, 0))) return;
      if (!(await waitUntil(async () => liveTask(await tasks(id)) === null, SETTLE_MS))) throw say(`the app ${id} still runs ${SETTLE_MS / 1000} s after it was stopped`);
    },

    async start(id: string): Promise<AppState> {
      if (!(await setReplicas(id, 1))) throw say(`no app ${id} to start`);
      if (!(await waitUntil(async () => runningTask(await tasks(id)) !== null, SETTLE_MS))) throw say(`the app ${id} did not run within ${SETTLE_MS / 1000} s of its start`);
      return (await this.inspect(id))!;
    },

    async remove(id: string) {
      const info = await service(id);
      if (!info) return;
      const ranOn = (await tasks(id)).map((task) => task.NodeID);
      await docker.getService(id).remove().catch(ifMissing(undefined));
      // The tasks' containers go a moment after the service, on every node that ran one; until they
      // have, the network and the volume (on a worker too) are in use.
      const engines = new Set(await Promise.all([await nodes.managerNode(), ...ranOn].map((node) => nodes.of(node))));
      engines.delete(null);
      const left = async () => (await Promise.all([...engines].map((engine) => engine!.listContainers({ "com.docker.swarm.service.id": id })))).flat();
      await waitUntil(async () => (await left()).length === 0, SETTLE_MS);
      const network = info.Spec.Labels[LABEL_NETWORK];
      if (network) await removeNetwork(docker, network);
    },

    async removeVolume(name: string) {
      const runtime = await nodes.of(options.volumeNode ?? (await nodes.managerNode()));
      await runtime?.removeVolume(name);
    },

    async inspect(id: string): Promise<AppState | null> {
      const info = await service(id);
      if (!info) return null;
      const all = await tasks(id);
      const ended = await containerOf(lastEndedTask(all));
      const oom = ended ? ((await ended.runtime.inspectContainer(ended.containerId))?.oomKilled ?? null) : null;
      return appState(info, all, oom);
    },

    async list(labels: Record<string, string>): Promise<AppSummary[]> {
      const services = (await docker.listServices({ filters: { label: Object.entries(labels).map(([key, value]) => `${key}=${value}`) } })) as unknown as ServiceInfo[];
      return Promise.all(
        services.map(async (found) => ({
          id: found.ID,
          name: found.Spec.Name,
          labels: found.Spec.Labels ?? {},
          running: runningTask(await tasks(found.ID)) !== null,
        })),
      );
    },

    logs(id: string, tail: number) {
      return serviceLogs(docker, id, tail);
    },

    async address(id: string): Promise<AppAddress | null> {
      const info = await service(id);
      if (!info || info.Spec.Mode.Replicated.Replicas === 0) return null;
      const port = Number(info.Spec.Labels[LABEL_PORT]);
      // On the network: the service's name, for as long as the app is meant to run (no task IP to chase).
      if (reach === "network") return { host: info.Spec.Name, port, network: info.Spec.Labels[LABEL_NETWORK] ?? null };
      // Through the gateway bridge: the newest running task (Swarm counts a task running once it is healthy).
      const task = runningTask(await tasks(id));
      const containerId = task?.Status?.ContainerStatus?.ContainerID;
      const engine = containerId ? await nodes.clientOf(task?.NodeID) : null;
      const host = engine && containerId ? await gatewayAddress(engine, containerId) : null;
      return host ? { host, port, network: null } : null;
    },

    async exec(id, command, execOptions) {
      const { runtime, containerId } = await runningContainer(id);
      return runtime.exec!(containerId, command, execOptions);
    },

    async openTerminal(id, terminalOptions) {
      const { runtime, containerId } = await runningContainer(id);
      return runtime.openTerminal!(containerId, terminalOptions);
    },

    async stats(id) {
      const { runtime, containerId } = await runningContainer(id);
      return runtime.stats!(containerId);
    },

    async diskUsage(id, volume) {
      const found = await containerOf(liveTask(await tasks(id)));
      // The volume is on the node apps with one are pinned to, also while the app is stopped.
      const volumeNode = volume ? await nodes.of(options.volumeNode ?? (await nodes.managerNode())) : null;
      return {
        writableBytes: found ? await found.runtime.containerSize(found.containerId) : null,
        volumeBytes: volumeNode && volume ? await volumeNode.volumeSize(volume) : null,
      };
    },
  };
}

/** Removes an overlay network, waiting while the Engine still counts the removed tasks' endpoints on it. */
async function removeNetwork(docker: Docker, name: string): Promise<void> {
  const networks = (await docker.listNetworks({ filters: { name: [name] } })).filter((network) => network.Name === name);
  for (const network of networks) {
    let last: unknown = null;
    const gone = await waitUntil(async () => {
      try {
        await docker.getNetwork(network.Id).remove();
        return true;
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode === 404) return true;
        last = error;
        return false;
      }
    }, SETTLE_MS, 500);
    if (!gone) throw new Error(`[provider-swarm] cannot remove the network ${name}: ${engineMessage(last)}`);
  }
}

/** Compares dotted version numbers (`1.41` < `1.46`). */
function compareVersions(a: string, b: string): number {
  const [left, right] = [a.split(".").map(Number), b.split(".").map(Number)];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
