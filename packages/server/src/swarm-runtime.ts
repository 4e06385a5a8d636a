import type { AppRuntime, ImageBuilder } from "@reposite/core";
import { createSwarmAppRuntime, createSwarmImageBuilder, type SwarmOptions } from "@reposite/provider-swarm";

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
  const privileges = await appRuntime.noNewPrivileges().catch(() => null);
  const reach = options.reach === "network" ? "apps reached on their overlay networks (an edge attached to them)" : "apps reached at their tasks' docker_gwbridge addresses (on this node)";
  return { appRuntime, imageBuilder, note: [`images: ${imageBuilder.provider}`, reach, ...(privileges ? [privileges.note] : [])].join("; ") };
}
