import type Docker from "dockerode";

/** The bridge every swarm task with an overlay network is also on: its node reaches the task there. */
export const GATEWAY_BRIDGE = "docker_gwbridge";

/**
 * A task container's address on its node's `docker_gwbridge`, read from that node's Engine, or
 * null when the container is not on it (gone, or no overlay). Without IPVS, neither the ingress
 * mesh nor a service's VIP answers; this address does, from the node itself (checked on Docker
 * 20.10: 192.168.0.x:<port>). It is node-local: only a process on the task's node reaches it.
 */
export async function gatewayAddress(engine: Docker, containerId: string): Promise<string | null> {
  const bridge = (await engine
    .getNetwork(GATEWAY_BRIDGE)
    .inspect()
    .catch(() => null)) as { Containers?: Record<string, { IPv4Address?: string }> } | null;
  const address = bridge?.Containers?.[containerId]?.IPv4Address;
  return address ? (address.split("/")[0] ?? null) : null;
}
