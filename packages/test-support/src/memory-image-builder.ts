import type { AppImage, ImageBuilder, ImageBuildRequest } from "@reposite/core";
import type { MemoryContainerRuntime } from "./memory-container-runtime.js";

/**
 * An in-memory ImageBuilder for core's fast tests: the memory engine's builds (the Dockerfile read
 * step by step, `RUN echo/sleep/exit`, markers for OOM and the rest: see memory-container-runtime.ts),
 * with no registry, so an image is run by its id on the same engine (`createMemoryAppRuntime`).
 */
export function createMemoryImageBuilder(engine: MemoryContainerRuntime): ImageBuilder {
  return {
    specificationVersion: "v1",
    provider: `${engine.name} builder`,
    capabilities: { registry: false, buildCache: false },

    ping: () => engine.ping(),

    async build(request: ImageBuildRequest): Promise<AppImage> {
      const { id } = await engine.buildImage(request);
      return { id, reference: id, digest: null };
    },

    async remove(image: AppImage) {
      await engine.removeImage(image.id);
    },
  };
}
