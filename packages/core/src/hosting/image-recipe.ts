import { RepositeError } from "../errors.js";
import { detectAutoBuild } from "../repo-analysis/auto/detect.js";
import type { BaseImages } from "../repo-analysis/repo-check.js";
import { resolveInside, type ArchiveFacts } from "./build-context.js";
import { withBuildEnv } from "./build-env-file.js";
import type { BareBaseImage, DeploymentSetup } from "./deployment-setup.js";

/** How one run makes its image. */
export interface ImageRecipe {
  /** The Dockerfile's path inside the build context. */
  dockerfile: string;
  /** Files added to the context (they replace the repository's files of the same path). */
  extra: Record<string, string>;
  /** The container's command instead of the image's (the bare box's keep-alive). */
  command?: string[];
}

/** Where an `auto` build's written Dockerfile goes in the context. */
export const AUTO_DOCKERFILE = ".reposite/Dockerfile";

/**
 * Keeps a bare box up with nothing to run: any `sh` does it, and it ends at once on `docker stop`
 * (SIGTERM is trapped; `sleep` runs in the background so the trap fires without waiting).
 */
export const KEEP_ALIVE_COMMAND = ["/bin/sh", "-c", "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"];

/** The repository's Dockerfile at the setup's path; refused when missing or when a link leads out. */
export function repositoryRecipe(setup: DeploymentSetup, facts: ArchiveFacts): ImageRecipe {
  const path = resolveInside(setup.dockerfile_path, facts.links);
  if (path === null) {
    throw new RepositeError(422, `${setup.dockerfile_path} is a link that leads out of the repository; Reposite builds only from files inside it.`, "dockerfile_outside_repo");
  }
  if (!facts.tree.has(path)) {
    throw new RepositeError(
      422,
      `The repository has no Dockerfile at ${setup.dockerfile_path}. Set dockerfile_path, or choose build_mode auto (GET …/repo-check tells what it would build).`,
      "dockerfile_missing",
    );
  }
  return { dockerfile: path, extra: {} };
}

/**
 * The Dockerfile `auto` writes for the repository. The env reaches the build steps that run once
 * the source is copied in (the build command, as front-end builds that bake settings in need)
 * through a context file, never as build arguments: see build-env-file.ts. `rootDir` (the
 * setup's `root_dir`) picks the app's folder; the context stays the whole repository.
 */
export function autoRecipe(facts: ArchiveFacts, images: BaseImages, env: Record<string, string>, rootDir: string | null = null): ImageRecipe {
  const plan = detectAutoBuild(facts.tree, { baseImages: images, rootDir: rootDir ?? undefined });
  if (!plan.auto.found) throw new RepositeError(422, `Reposite cannot tell how to build this repository: ${plan.auto.reason}`, "auto_not_found");
  const { dockerfile, files } = withBuildEnv(plan.auto.dockerfile, env);
  return { dockerfile: AUTO_DOCKERFILE, extra: { ...plan.contextFiles, ...files, [AUTO_DOCKERFILE]: dockerfile } };
}

/** Where a Dockerfile the service holds (a fix attempt, a kept override) goes in the context. */
export const GIVEN_DOCKERFILE = ".reposite/Dockerfile.fixed";

/** A Dockerfile the service holds, built against the repository's files. */
export function givenRecipe(dockerfile: string): ImageRecipe {
  return { dockerfile: GIVEN_DOCKERFILE, extra: { [GIVEN_DOCKERFILE]: dockerfile } };
}

/** A bare box on the chosen base image, mapped to the image this server keeps for it. */
export function bareRecipe(baseImage: BareBaseImage, images: Partial<Record<BareBaseImage, string>>): ImageRecipe {
  return { dockerfile: "Dockerfile", extra: { Dockerfile: `FROM ${images[baseImage] ?? baseImage}\n` }, command: KEEP_ALIVE_COMMAND };
}
