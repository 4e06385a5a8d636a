import { detectAutoBuild } from "./auto/detect.js";
import { analyzeDockerfile } from "./dockerfile-analysis.js";
import { findDockerfile } from "./find-dockerfile.js";
import type { BaseImages, RepoCheckResult } from "./repo-check.js";
import { findSetupNotes } from "./setup-notes.js";
import { findSetupVars } from "./setup-vars.js";
import type { SourceTree } from "./source-tree.js";

export interface CheckRepositoryOptions {
  /** The Dockerfile path asked for (`Dockerfile` by default). */
  askedPath: string;
  /** The app's own address, for settings that name it. */
  appUrl: string;
  /** The operator's base images. */
  baseImages?: Partial<BaseImages>;
  /** The folder of the repository holding the app (`root_dir`); the root when left out. */
  rootDir?: string;
}

/**
 * What `GET …/repo-check` answers for a tree already read: the Dockerfile that would be built and
 * its facts, what `auto` would build, and the settings the app asks for. Pure, so the real-repository
 * corpus runs exactly what the route runs.
 */
export function checkRepository(tree: SourceTree, options: CheckRepositoryOptions): RepoCheckResult {
  const located = findDockerfile(tree, options.askedPath);
  const dockerfilePath = located.dockerfile ? options.askedPath : located.found?.path;
  const dockerfile = dockerfilePath ? tree.read(dockerfilePath) : null;
  const { auto } = detectAutoBuild(tree, { baseImages: options.baseImages, rootDir: options.rootDir });
  return {
    dockerfile: located.dockerfile,
    ...(located.found ? { dockerfile_found: located.found } : {}),
    analysis: dockerfile ? analyzeDockerfile(dockerfile, { tree }) : null,
    auto,
    setup: {
      vars: findSetupVars(tree, { appUrl: options.appUrl }),
      notes: findSetupNotes(tree, { detected: auto.found ? auto.name : undefined, dockerfile }),
    },
  };
}
