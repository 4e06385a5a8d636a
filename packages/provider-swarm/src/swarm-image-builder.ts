import { BuildFailure, type AppImage, type ImageBuilder, type ImageBuildRequest } from "@reposite/core";
import { createDockerRuntime } from "@reposite/provider-docker";
import { connectEngine, engineMessage } from "./engine.js";
import { registryUrl, registryAuth } from "./registry-auth.js";
import { deleteFromRegistry, pushImage } from "./registry-push.js";
import type { SwarmOptions } from "./swarm-options.js";

/**
 * The ImageBuilder for a Swarm: BuildKit on the manager's Engine (provider-docker's build, with
 * its memory limit per step, timeout, cancel, decoded log and failing step), then a push to the
 * registry; the answer is the image's digest reference, which any node can pull. Without a
 * registry the image stays on the building engine: enough for a one-node swarm, said in `provider`.
 */
export function createSwarmImageBuilder(options: SwarmOptions = {}): ImageBuilder {
  const docker = connectEngine(options.dockerHost);
  const engine = createDockerRuntime(options.dockerHost ? { dockerHost: options.dockerHost } : {});
  const registry = options.registry ?? null;

  return {
    specificationVersion: "v1",
    provider: registry ? `swarm (registry ${registry.address})` : "swarm (no registry: images stay on the building node)",
    capabilities: { registry: registry !== null, buildCache: true, sizes: true },

    async ping() {
      await engine.ping();
      if (!registry) return;
      // 200, or 401 with credentials to come: either way a registry answers there.
      const answer = await fetch(`${registryUrl(registry)}/v2/`, { signal: AbortSignal.timeout(5_000) }).catch((error: unknown) => {
        throw new Error(`[provider-swarm] the registry ${registry.address} does not answer: ${error instanceof Error ? error.message : String(error)}`);
      });
      if (answer.status !== 200 && !(answer.status === 401 && registryAuth(registry))) {
        throw new Error(`[provider-swarm] the registry ${registry.address} answered ${answer.status} to /v2/`);
      }
    },

    async build(request: ImageBuildRequest): Promise<AppImage> {
      const built = await engine.buildImage(request);
      if (!registry) return { id: built.id, reference: built.id, digest: null };
      if (request.signal?.aborted) throw new BuildFailure("The build was cancelled.", "cancelled");
      const [repository, tag = "latest"] = splitTag(request.tag);
      try {
        const digest = await pushImage(docker, registry, { id: built.id, repository, tag }, request.onLog);
        return { id: built.id, reference: `${registry.address}/${repository}@${digest}`, digest };
      } catch (error) {
        request.onLog(error instanceof Error ? error.message : String(error));
        throw new BuildFailure(`The image was built but not pushed: ${error instanceof Error ? error.message : String(error)}`, "failed");
      }
    },

    async remove(image: AppImage) {
      if (registry && image.digest && image.reference.startsWith(`${registry.address}/`)) await deleteFromRegistry(registry, image.reference);
      // Known by a name (a caller that kept only the tag or the reference): every tag of that image goes, the push's included.
      const local = image.id.startsWith("sha256:") ? image.id : (((await docker.getImage(image.id).inspect().catch(() => null)) as { Id?: string } | null)?.Id ?? image.id);
      await docker
        .getImage(local)
        .remove({ force: true })
        .catch((error: unknown) => {
          if ((error as { statusCode?: number }).statusCode === 404) return;
          throw new Error(`[provider-swarm] cannot remove the image ${image.id}: ${engineMessage(error)}`);
        });
    },

    async removeBuildCache(labels: Record<string, string>) {
      await engine.removeBuildCache?.(labels);
    },

    // The bytes every node pulls, as the building Engine holds them (null when it no longer does).
    imageSize: (image: AppImage) => engine.imageSize(image.id),
  };
}

/** `reposite-app/site:run` → [`reposite-app/site`, `run`] (a port in a registry host is not a tag). */
function splitTag(reference: string): [string, string | undefined] {
  const colon = reference.lastIndexOf(":");
  return colon > reference.lastIndexOf("/") ? [reference.slice(0, colon), reference.slice(colon + 1)] : [reference, undefined];
}
