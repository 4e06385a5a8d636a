import { createDockerRuntime, type DockerRuntime } from "@reposite/provider-docker";
import type Docker from "dockerode";

/**
 * The Engine of the node a task runs on, as provider-docker's runtime (exec, terminal, stats and
 * sizes of one container are what it already does): `nodeEngines` by node id or hostname, the
 * manager's own node through `dockerHost`. Null for a node nobody gave an address for.
 */
export function nodeEngines(manager: Docker, dockerHost: string | undefined, addresses: Record<string, string>) {
  const runtimes = new Map<string, DockerRuntime>();
  let managerNode: Promise<string> | null = null;
  const runtimeAt = (address: string | undefined) => {
    const key = address ?? "";
    let runtime = runtimes.get(key);
    if (!runtime) {
      runtime = createDockerRuntime({ ...(address ? { dockerHost: address } : {}), networkHolderImage: null });
      runtimes.set(key, runtime);
    }
    return runtime;
  };
  return {
    /** The manager's own node id. */
    managerNode(): Promise<string> {
      managerNode ??= manager.info().then((info: { Swarm?: { NodeID?: string } }) => {
        if (!info.Swarm?.NodeID) throw new Error("[provider-swarm] the Engine is not part of a swarm (docker swarm init)");
        return info.Swarm.NodeID;
      });
      managerNode.catch(() => (managerNode = null));
      return managerNode;
    },
    /** The node's Engine as a dockerode client (for what provider-docker's runtime does not read), or null. */
    async clientOf(nodeId: string | undefined): Promise<Docker | null> {
      return (await this.of(nodeId))?.docker ?? null;
    },
    async of(nodeId: string | undefined): Promise<DockerRuntime | null> {
      if (!nodeId) return null;
      if (addresses[nodeId]) return runtimeAt(addresses[nodeId]);
      if (nodeId === (await this.managerNode())) return runtimeAt(dockerHost);
      const node = (await manager.getNode(nodeId).inspect().catch(() => null)) as { Description?: { Hostname?: string } } | null;
      const hostname = node?.Description?.Hostname;
      return hostname && addresses[hostname] ? runtimeAt(addresses[hostname]) : null;
    },
  };
}

export type NodeEngines = ReturnType<typeof nodeEngines>;
