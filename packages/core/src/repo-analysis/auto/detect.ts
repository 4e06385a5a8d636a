import { DEFAULT_BASE_IMAGES, type AutoBuild, type BaseImages } from "../repo-check.js";
import { subTree, type SourceTree } from "../source-tree.js";
import { bunDetector } from "./bun.js";
import { denoDetector } from "./deno.js";
import { goDetector } from "./go.js";
import { findWorkspace, workspaceApps, workspacePlan } from "./monorepo.js";
import { deployableNodeApp, nodeDetector } from "./node.js";
import { readProcfile } from "./procfile.js";
import { pythonDetector } from "./python.js";
import { rustDetector } from "./rust.js";
import { staticFilesDetector } from "./static-files.js";
import { hasFolder, readPackageJson, type BuildDraft, type Detector } from "./types.js";

/** How Reposite would build a repository that has no Dockerfile. */
export interface AutoBuildPlan {
  auto: AutoBuild;
  /** Extra files to add to the build context, path → content (the static server, config wrappers). */
  contextFiles: Record<string, string>;
}

export interface DetectAutoBuildOptions {
  /** The operator's base images (a private mirror); missing names keep `DEFAULT_BASE_IMAGES`. */
  baseImages?: Partial<BaseImages> | undefined;
  /** The setup's `root_dir`: the folder of the repository holding the app; the root when left out. */
  rootDir?: string | undefined;
}

/**
 * The detectors, in the order they are asked; the first that matches wins. The order follows
 * Railpack (`core/providers/provider.go`: … Go, …, Python, …, Rust, …, Node, …, Deno, static
 * files): a language project beats the static files it may carry, so a Vite app's root index.html
 * is built, not served. Deno and Bun-only projects come before Node, whose package.json they may
 * carry as well.
 */
export const AUTO_DETECTORS: readonly Detector[] = [goDetector, pythonDetector, rustDetector, denoDetector, bunDetector, nodeDetector, staticFilesDetector];

export const NOTHING_FOUND_REASON =
  "No package.json, requirements.txt, pyproject.toml, go.mod, Cargo.toml, deno.json or index.html found, so Reposite cannot tell how to build this repository. Add a Dockerfile, or choose the bare Linux box.";

/**
 * Detects how to build `tree` without a Dockerfile and writes the Dockerfile. When nothing matches,
 * `auto.reason` says why: the first reason a detector of the repository's family gave (its
 * package.json names nothing to start, say), else what was looked for.
 *
 * A JavaScript workspace (npm/yarn/pnpm/bun workspaces, turborepo) whose root is no app itself is
 * built for its one app; with several, the reason names them and `root_dir` chooses. `rootDir`
 * detects in that folder: a package of the workspace is built from the workspace's root, any other
 * folder on its own (the written Dockerfile copies from that folder of the repository).
 */
export function detectAutoBuild(tree: SourceTree, options: DetectAutoBuildOptions = {}): AutoBuildPlan {
  const images = baseImages(options.baseImages);
  const rootDir = options.rootDir?.replace(/^\.?\/+|\/+$/g, "") ?? "";
  const workspace = findWorkspace(tree);
  if (rootDir) {
    if (!hasFolder(tree, rootDir)) return notFound(`root_dir ${rootDir} is not a folder of this repository. Set root_dir to the folder holding the app, or leave it out for the repository's root.`);
    if (workspace?.packages.includes(rootDir)) return planOf(workspacePlan(tree, workspace, rootDir, images));
    const found = detectIn(subTree(tree, rootDir), images);
    return found.auto.found ? { auto: { ...found.auto, dockerfile: rebaseCopies(found.auto.dockerfile, rootDir) }, contextFiles: found.contextFiles } : found;
  }
  const rootPkg = readPackageJson(tree);
  if (workspace && !(rootPkg && deployableNodeApp(tree, rootPkg))) {
    const apps = workspaceApps(tree, workspace);
    if (apps.length === 1) return planOf(workspacePlan(tree, workspace, apps[0]!.dir, images));
    if (apps.length > 1) {
      return notFound(
        `This is a ${workspace.label} with ${apps.length} apps: ${apps.map((app) => `${app.dir} (${app.name})`).join(", ")}. Set root_dir to the one to deploy (PUT …/deployment {"root_dir": "${apps[0]!.dir}"}).`,
      );
    }
  }
  const atRoot = detectIn(tree, images);
  if (atRoot.auto.found) return atRoot;
  // Nothing at the root: the apps may sit in folders of their own (apps/web, frontend/, backend/).
  const folders = appFolders(tree, images);
  if (folders.length === 1) return detectAutoBuild(tree, { ...options, rootDir: folders[0]!.dir });
  if (folders.length > 1) {
    return notFound(
      `Nothing to build at the repository's root, and ${folders.length} apps in folders of their own: ${folders.map((app) => `${app.dir} (${app.name})`).join(", ")}. Set root_dir to the one to deploy (PUT …/deployment {"root_dir": "${folders[0]!.dir}"}).`,
    );
  }
  return atRoot;
}

/** Folders not an app's: documentation, examples, tests, dependencies. */
const NOT_APP_FOLDERS = /^(?:docs?|examples?|samples?|tests?|e2e|scripts|tools|tooling|vendor|node_modules|third_party|fixtures|\..*)$/i;

/** Apps in top-level folders or under apps/ (the repository's root builds nothing itself). */
function appFolders(tree: SourceTree, images: BaseImages): Array<{ dir: string; name: string }> {
  const folders = new Set<string>();
  for (const path of tree.paths()) {
    const parts = path.split("/");
    if (parts.length >= 2 && !NOT_APP_FOLDERS.test(parts[0]!)) folders.add(parts[0]!);
    if (parts.length >= 3 && parts[0] === "apps") folders.add(`apps/${parts[1]}`);
  }
  folders.delete("apps");
  return [...folders]
    .sort()
    .slice(0, 40)
    .flatMap((dir) => {
      const found = detectIn(subTree(tree, dir), images).auto;
      // A folder of static files alone (public/, assets/) is part of something else, not an app.
      return found.found && found.name !== "Static site" ? [{ dir, name: found.name }] : [];
    });
}

function detectIn(tree: SourceTree, images: BaseImages): AutoBuildPlan {
  const procfile = readProcfile(tree);
  let reason: string | null = null;
  for (const detector of AUTO_DETECTORS) {
    const found = detector.detect({ tree, images, procfile });
    if (!found) continue;
    if ("reason" in found) {
      reason ??= found.reason;
      continue;
    }
    return planOf(found);
  }
  return notFound(reason ?? NOTHING_FOUND_REASON);
}

function planOf(found: BuildDraft | { reason: string }): AutoBuildPlan {
  if ("reason" in found) return notFound(found.reason);
  const { contextFiles = {}, warnings = [], output, start, ...fields } = found;
  return {
    // Warnings (a base path Reposite could not set, a server on localhost) are also comments atop the Dockerfile.
    auto: { found: true, ...fields, ...(output !== undefined ? { output } : {}), ...(start !== undefined ? { start } : {}), warnings },
    contextFiles,
  };
}

function notFound(reason: string): AutoBuildPlan {
  return { auto: { found: false, reason }, contextFiles: {} };
}

/**
 * A Dockerfile written for a folder, built with the repository as its context: what it copies
 * from the context comes from that folder (Reposite's own `.reposite/` files excepted).
 */
function rebaseCopies(dockerfile: string, dir: string): string {
  return dockerfile
    .split("\n")
    .map((line) => {
      if (!line.startsWith("COPY ") || /\s--from=/.test(line)) return line;
      const words = line.split(" ");
      const flags = words.slice(1).filter((word) => word.startsWith("--"));
      const rest = words.slice(1).filter((word) => !word.startsWith("--"));
      const destination = rest.pop();
      const sources = rest.map((source) => (source.startsWith(".reposite/") ? source : source === "." ? dir : `${dir}/${source.replace(/^\.\//, "")}`));
      return ["COPY", ...flags, ...sources, destination].join(" ");
    })
    .join("\n");
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
