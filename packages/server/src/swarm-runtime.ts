import type { AppRuntime, ImageBuilder } from "@reposite/core";
import { createSwarmAppRuntime, createSwarmImageBuilder, type SwarmAppRuntime, type SwarmOptions } from "@reposite/provider-swarm";
import type { NginxPlacement } from "./edge/nginx-container.js";

/** Apps on Docker Swarm (REPOSITE_RUNTIME=swarm): the two ports, and what the start-up output says of them. */
export interface SwarmHosting {
  appRuntime: AppRuntime;
  imageBuilder: ImageBuilder;
  /** For the start-up line: where images go, how apps are reached, whether no-new-privileges holds. */
  note: string;
}

/**
 * Connects to the swarm's manager and the registry, or fails the start with why: an operator who
 * asked for Swarm gets an error, never a server that quietly hosts nothing.
 */
export async function startSwarmHosting(options: SwarmOptions): Promise<SwarmHosting> {
  const appRuntime = createSwarmAppRuntime(options);
  const imageBuilder = createSwarmImageBuilder(options);
  try {
    await Promise.all([appRuntime.ping(), imageBuilder.ping()]);
  } catch (error) {
    const where = options.dockerHost ?? process.env.DOCKER_HOST ?? "/var/run/docker.sock";
    throw new Error(`[reposite] REPOSITE_RUNTIME=swarm, but the swarm at ${where} cannot host apps: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (options.reach !== "network") await gatewayOnOneNode(appRuntime);
  const privileges = await appRuntime.noNewPrivileges().catch(() => null);
  const reach = options.reach === "network" ? "apps reached on their overlay networks (an edge attached to them)" : "apps reached at their tasks' docker_gwbridge addresses (on this node)";
  return { appRuntime, imageBuilder, note: [`images: ${imageBuilder.provider}`, reach, ...(privileges ? [privileges.note] : [])].join("; ") };
}

/**
 * Gateway reach is node-local: a task on another node has its docker_gwbridge address there, which
 * this machine cannot reach, so its app would deploy and never answer. While any other node takes
 * tasks the start is refused (a node joining later is not seen: docs/deploy/swarm.md).
 */
async function gatewayOnOneNode(appRuntime: SwarmAppRuntime): Promise<void> {
  const [info, nodes] = await Promise.all([
    appRuntime.docker.info() as Promise<{ Swarm?: { NodeID?: string } }>,
    appRuntime.docker.listNodes() as Promise<Array<{ ID: string; Spec?: { Availability?: string }; Description?: { Hostname?: string } }>>,
  ]);
  const others = nodes.filter((node) => node.ID !== info.Swarm?.NodeID && node.Spec?.Availability === "active");
  if (others.length === 0) return;
  const names = others.map((node) => node.Description?.Hostname ?? node.ID).join(", ");
  throw new Error(
    `[reposite] REPOSITE_SWARM_REACH=gateway reaches apps only on the node Reposite runs on, but other nodes of the swarm take tasks (${names}): set REPOSITE_EDGE=nginx (nginx in a container joins the apps' overlay networks, which reach every node), or drain the other nodes (docker node update --availability drain <node>).`,
  );
}

/**
 * How visitors reach Swarm apps, from REPOSITE_EDGE, REPOSITE_EDGE_NGINX and REPOSITE_SWARM_REACH
 * (docs/deploy/swarm.md has the matrix). Only two shapes work: this process or the host's nginx at
 * the tasks' docker_gwbridge addresses (`gateway`, node-local), or nginx in a container that joins
 * the apps' overlays (`network`, the default with the edge). A process on the host cannot join an
 * overlay, and a container cannot reach another bridge: any other pair is refused at start.
 */
export function swarmReach(options: SwarmOptions, edge: NginxPlacement | undefined): SwarmOptions {
  const inContainer = edge?.kind === "container";
  const reach = options.reach ?? (inContainer ? "network" : "gateway");
  if (inContainer && reach === "gateway") {
    throw new Error("[reposite] REPOSITE_SWARM_REACH=gateway reaches apps at their tasks' docker_gwbridge addresses, which nginx in a container (REPOSITE_EDGE_NGINX=container, the default with REPOSITE_RUNTIME=swarm) cannot reach: leave REPOSITE_SWARM_REACH out (network: the edge joins the apps' networks), or set REPOSITE_EDGE_NGINX=host.");
  }
  if (!inContainer && reach === "network") {
    const who = edge ? "the host's nginx (REPOSITE_EDGE_NGINX=host)" : "Reposite's own /app/ proxy (no REPOSITE_EDGE)";
    throw new Error(`[reposite] REPOSITE_SWARM_REACH=network reaches apps on their overlay networks, which ${who} cannot join: set REPOSITE_EDGE=nginx with the container edge (REPOSITE_EDGE_NGINX=container), or REPOSITE_SWARM_REACH=gateway.`);
  }
  return { ...options, reach };
}
