import type Docker from "dockerode";
import { LABEL_ROLE } from "@reposite/core";
import { HOLDER_ROLE, holderOf, LABEL_NETWORK } from "./network-holders.js";

/** Docker's own networks: never an app's. */
const ENGINE_NETWORKS = new Set(["bridge", "host", "none", "default"]);

/**
 * The app network a container was run on: its network holder's (the label the runtime puts on a
 * container it starts in a holder), or the network it joined itself. Null for a missing container.
 */
export function appNetworkOf(info: Docker.ContainerInspectInfo | null): string | null {
  if (!info) return null;
  const labelled = info.Config.Labels?.[LABEL_NETWORK];
  if (labelled) return labelled;
  const mode = info.HostConfig.NetworkMode;
  return mode && !holderOf(mode) && !ENGINE_NETWORKS.has(mode) ? mode : null;
}

/**
 * Whether an app container (running or not) is still on `network`, on it or in one of its holders:
 * holders alone do not count, the network and they go together.
 */
export async function networkInUse(docker: Docker, network: string): Promise<boolean> {
  const [onIt, inHolders] = await Promise.all([
    docker.listContainers({ all: true, filters: { network: [network] } }),
    docker.listContainers({ all: true, filters: { label: [`${LABEL_NETWORK}=${network}`] } }),
  ]);
  return [...onIt, ...inHolders].some((container) => container.Labels[LABEL_ROLE] !== HOLDER_ROLE);
}
