import type { AppImage, ImageBuilder, ImageBuildRequest } from "@reposite/core";
import { createDockerRuntime, type DockerRuntime, type DockerRuntimeOptions } from "./docker-runtime.js";

export interface DockerImageBuilderOptions extends DockerRuntimeOptions {
  /**
   * The Docker runtime whose builds this uses. Give the one `createDockerAppRuntime` adapts too, so
   * both share one Engine connection and one build cache index; one is made from the other options
   * when absent.
   */
  runtime?: DockerRuntime;
}

/** The ImageBuilder on one Docker Engine, with the runtime it adapts. */
export interface DockerImageBuilder extends ImageBuilder {
  readonly dockerRuntime: DockerRuntime;
}

/**
 * The ImageBuilder port on one Docker Engine: the runtime's own BuildKit build (memory per step,
 * timeout, cancel, decoded log, failing step, build cache per app). The image never leaves the
 * Engine that runs the apps, so there is no registry and no digest: `reference` is the image id,
 * which names exactly these bytes even when a later build takes the same tag.
 */
export function createDockerImageBuilder(options: DockerImageBuilderOptions = {}): DockerImageBuilder {
  const runtime = options.runtime ?? createDockerRuntime(options);
  return {
    specificationVersion: "v1",
    get provider() {
      return runtime.name;
    },
    capabilities: { registry: false, buildCache: true, sizes: true },
    dockerRuntime: runtime,

    ping: () => runtime.ping(),

    async build(request: ImageBuildRequest): Promise<AppImage> {
      const { id } = await runtime.buildImage(request);
      return { id, reference: id, digest: null };
    },

    remove: (image: AppImage) => runtime.removeImage(image.id),

    removeBuildCache: (labels: Record<string, string>) => runtime.removeBuildCache!(labels),

    imageSize: (image: AppImage) => runtime.imageSize(image.id),
  };
}
