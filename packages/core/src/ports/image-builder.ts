import type { InjectionToken } from "tsyringe";
import type { BuildRequest } from "./container-runtime.js";

/**
 * Builds an app's source into an image and makes it available where apps run: the engine that
 * built it (one machine), or a registry every node pulls from (a cluster). Split from running so a
 * cluster can build on one machine and run on others, and so a Kubernetes provider can bring a
 * builder of its own. Versioned like the AI SDK's provider spec: core checks
 * `specificationVersion` and refuses a builder written for another version of this interface.
 *
 * Implementations: `@reposite/provider-docker` (the engine that runs the apps) and
 * `@reposite/provider-swarm` (BuildKit on the Engine, then a push to the
 * registry). Proved by `imageBuilderContract` in test-support.
 */
export interface ImageBuilder {
  readonly specificationVersion: "v1";
  /** Names the builder in start-up output and errors, for example `swarm (registry 10.0.0.5:5000)`. */
  readonly provider: string;
  readonly capabilities: ImageBuilderCapabilities;

  /** Answers when builds can run now (the Engine, and the registry when there is one); rejects with the reason. */
  ping(): Promise<void>;

  /**
   * Builds the tar context (a Dockerfile at `dockerfile` inside it). Log lines reach `onLog` as
   * they come; each step is held to `memoryMb`, the whole build to `timeoutMs`, and `signal`
   * cancels it. The image carries `labels`. Resolves once the image can be run by every node
   * (pushed, when the builder has a registry); rejects with a `BuildFailure` (reason, exit code,
   * failing step), or a `BuildFailure` with reason `failed` when the push is refused.
   */
  build(request: ImageBuildRequest): Promise<AppImage>;

  /** Removes an image this builder made, here and in the registry; a missing one is fine. */
  remove(image: AppImage): Promise<void>;

  /**
   * Removes what builds whose labels included all of `labels` keep for later builds (a builder's
   * cache), when the app is removed. With `capabilities.buildCache`.
   */
  removeBuildCache?(labels: Record<string, string>): Promise<void>;

  /** Bytes the image takes where apps run (for an app's disk figures), or null when unknown (`capabilities.sizes`). */
  imageSize?(image: AppImage): Promise<number | null>;
}

export interface ImageBuilderCapabilities {
  /** Images leave the building machine through a registry (answered by digest): any node can run them. */
  registry: boolean;
  /** `removeBuildCache()` exists: builds keep a cache per app. */
  buildCache: boolean;
  /** `imageSize()` exists. Optional so a v1 builder written before it stays valid (absent is false). */
  sizes?: boolean;
}

/**
 * What a build needs: the same request the one-engine runtime takes. `tag` is a repository and a
 * tag (`reposite-app/<slug>:<run>`); a builder with a registry puts the registry's address in front.
 */
export type ImageBuildRequest = BuildRequest;

/** A built image, as the runtime is to run it. */
export interface AppImage {
  /** The image's id (`sha256:…`) on the engine that built it. */
  id: string;
  /**
   * What an `AppRuntime` runs: `registry/repository@sha256:…` when pushed (a digest names exactly
   * these bytes, whatever happens to the tag), or the local id when the image never leaves the engine.
   */
  reference: string;
  /** The registry's manifest digest (`sha256:…`), or null without a registry. */
  digest: string | null;
}

/** Registered with the `AppRuntime` whenever hosting is on through the two ports. */
export const IMAGE_BUILDER: InjectionToken<ImageBuilder> = Symbol.for("reposite.ImageBuilder");
