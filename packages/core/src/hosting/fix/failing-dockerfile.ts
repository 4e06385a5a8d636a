import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { BaseImages } from "../../repo-analysis/repo-check.js";
import type { RepoAccessService } from "../../repo-access/repo-access-service.js";
import { readArchiveFacts, spoolArchive, type ArchiveFacts } from "../build-context.js";
import type { DeployRunRecord } from "../deploy-run.js";
import type { DeploymentSetup } from "../deployment-setup.js";
import { autoRecipe, repositoryRecipe } from "../image-recipe.js";

/** The Dockerfile a failed run built, and where it came from in words. */
export interface FailingDockerfile {
  /** Null when there was none (the repository has no Dockerfile at the path, `auto` found nothing). */
  text: string | null;
  origin: string;
  /**
   * A plain deploy now would build exactly this Dockerfile (the repository's, `auto`'s, or the kept
   * override): a fix that only changes the setup deploys plainly, and keeps no override.
   */
  plain: boolean;
}

/**
 * Reads the repository at `ref` through its access (the owner's grant included) into a temporary
 * file, as the pipeline does, and answers its small files and links; the file goes afterwards.
 */
export async function readSourceFacts(
  repoAccess: RepoAccessService,
  ownerId: string,
  repositoryUrl: string,
  ref: string,
  workDir: string,
  name: string,
): Promise<ArchiveFacts> {
  await mkdir(workDir, { recursive: true, mode: 0o700 });
  const archive = join(workDir, `${name}.tar.gz`);
  try {
    await spoolArchive(await repoAccess.sourceArchive(ownerId, repositoryUrl, ref === "HEAD" ? undefined : ref), archive);
    return await readArchiveFacts(archive);
  } finally {
    await rm(archive, { force: true });
  }
}

/**
 * What `run` built: the Dockerfile it was given (a kept override or a fix attempt), else the one the
 * setup makes from the repository (its own at `dockerfile_path`, or the one `auto` writes, with
 * the env's names only: values never leave the pipeline).
 */
export function failingDockerfile(
  run: Pick<DeployRunRecord, "dockerfile" | "dockerfile_source">,
  setup: DeploymentSetup,
  facts: ArchiveFacts,
  override: string | null,
  baseImages: BaseImages,
  envNames: string[],
): FailingDockerfile {
  if (run.dockerfile !== null) {
    const kept = run.dockerfile_source === "override";
    return {
      text: run.dockerfile,
      origin: kept ? "the fixed Dockerfile the service kept from an earlier fix" : "the Dockerfile an earlier fix attempt wrote",
      plain: kept && override === run.dockerfile,
    };
  }
  const plain = override === null;
  if (setup.build_mode === "auto") {
    try {
      const recipe = autoRecipe(facts, baseImages, Object.fromEntries(envNames.map((name) => [name, ""])), setup.root_dir ?? null);
      return { text: recipe.extra[recipe.dockerfile] ?? null, origin: "the Dockerfile Reposite wrote for build_mode auto", plain };
    } catch {
      return { text: null, origin: "none: build_mode auto found no way to build this repository", plain };
    }
  }
  try {
    const recipe = repositoryRecipe(setup, facts);
    return { text: facts.tree.read(recipe.dockerfile), origin: `the repository's ${setup.dockerfile_path}`, plain };
  } catch {
    return { text: null, origin: `none: the repository has no Dockerfile at ${setup.dockerfile_path}`, plain };
  }
}
