import type { AppImage } from "@reposite/core";
import { docker, removeLabelled, type TestRegistry } from "@reposite/test-support";
import { createSwarmImageBuilder, type SwarmOptions } from "../src/index.js";

/**
 * Removes what one test run made on the shared swarm, found by its label: its services (then waits
 * until their task containers are gone), its images here and in the registry, anything else that
 * carries the label; and stops the run's registry.
 */
export async function removeSwarmRun(label: string, run: string, images: AppImage[], options: SwarmOptions | undefined, registry: TestRegistry | undefined): Promise<void> {
  const services = (await docker(["service", "ls", "-q", "--filter", `label=${label}=${run}`])).stdout.split("\n").filter(Boolean);
  if (services.length) await docker(["service", "rm", ...services]).catch(() => undefined);
  for (let tries = 0; tries < 60 && (await docker(["ps", "-aq", "--filter", `label=${label}=${run}`])).stdout.trim(); tries++) await new Promise((resolve) => setTimeout(resolve, 500));
  if (options) for (const image of images) await createSwarmImageBuilder(options).remove(image).catch(() => undefined);
  await removeLabelled(label, run).catch(() => undefined);
  await registry?.stop();
}
