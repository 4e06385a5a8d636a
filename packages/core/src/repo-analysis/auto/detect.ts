import { DEFAULT_BASE_IMAGES, type AutoBuild, type BaseImages } from "../repo-check.js";
import type { SourceTree } from "../source-tree.js";
import { goDetector } from "./go.js";
import { nodeDetector } from "./node.js";
import { pythonDetector } from "./python.js";
import { staticFilesDetector } from "./static-files.js";
import type { Detector } from "./types.js";

/** How Reposite would build a repository that has no Dockerfile. */
export interface AutoBuildPlan {
  auto: AutoBuild;
  /** Extra files to add to the build context, path → content (the static server, config wrappers). */
  contextFiles: Record<string, string>;
}

export interface DetectAutoBuildOptions {
  /** The operator's base images (a private mirror); missing names keep `DEFAULT_BASE_IMAGES`. */
  baseImages?: Partial<BaseImages>;
}

/**
 * The detectors, in the order they are asked; the first that matches wins. The order follows
 * Railpack (`core/providers/provider.go`: … Go, …, Python, …, Node, …, static files): a language
 * project beats the static files it may carry, so a Vite app's root index.html is built, not served.
 */
export const AUTO_DETECTORS: readonly Detector[] = [goDetector, pythonDetector, nodeDetector, staticFilesDetector];

export const NOTHING_FOUND_REASON =
  "No package.json, requirements.txt, pyproject.toml, go.mod or index.html found, so Reposite cannot tell how to build this repository. Add a Dockerfile, or choose the bare Linux box.";

/**
 * Detects how to build `tree` without a Dockerfile and writes the Dockerfile. When nothing matches,
 * `auto.reason` says why: the first reason a detector of the repository's family gave (its
 * package.json names nothing to start, say), else what was looked for.
 */
export function detectAutoBuild(tree: SourceTree, options: DetectAutoBuildOptions = {}): AutoBuildPlan {
  const images = baseImages(options.baseImages);
  let reason: string | null = null;
  for (const detector of AUTO_DETECTORS) {
    const found = detector.detect({ tree, images });
    if (!found) continue;
    if ("reason" in found) {
      reason ??= found.reason;
      continue;
    }
    const { contextFiles = {}, warnings = [], output, start, ...fields } = found;
    return {
      // Warnings (a base path Reposite could not set, a server on localhost) are also comments atop the Dockerfile.
      auto: { found: true, ...fields, ...(output !== undefined ? { output } : {}), ...(start !== undefined ? { start } : {}), warnings },
      contextFiles,
    };
  }
  return { auto: { found: false, reason: reason ?? NOTHING_FOUND_REASON }, contextFiles: {} };
}

/** The default base images with the operator's overrides (blank overrides are ignored). */
export function baseImages(overrides: Partial<BaseImages> = {}): BaseImages {
  const images = { ...DEFAULT_BASE_IMAGES };
  for (const key of Object.keys(images) as Array<keyof BaseImages>) {
    const image = overrides[key]?.trim();
    if (image) images[key] = image;
  }
  return images;
}
