import type { BaseImages } from "../repo-check.js";
import type { SourceTree } from "../source-tree.js";
import type { Procfile } from "./procfile.js";

/** What every detector reads. */
export interface DetectContext {
  tree: SourceTree;
  /** The operator's base images, defaults filled in. */
  images: BaseImages;
  /** The repository's Procfile: its `web:` command starts the app, whatever the language. */
  procfile: Procfile | null;
}

/** A detector's answer when it knows how to build the repository. */
export interface BuildDraft {
  name: string;
  install: string | null;
  build: string | null;
  /** Static sites: the folder served. */
  output?: string;
  /** Servers: the command that starts them. */
  start?: string;
  dockerfile: string;
  /** Files Reposite adds to the build context, path → content. */
  contextFiles?: Record<string, string>;
  /** Things a person should know (also written as comments at the top of the Dockerfile). */
  warnings?: string[];
}

/**
 * A detector answers a draft when it matched, `{ reason }` when the repository is of its family but
 * cannot be built (the reason is shown if no later detector matches either), or null when the
 * repository is not of its family.
 */
export type Detection = BuildDraft | { reason: string } | null;

export interface Detector {
  /** Family name, as listed in docs/auto-builds.md. */
  family: string;
  detect(context: DetectContext): Detection;
}

/** The fields of package.json the detectors read. */
export interface PackageJson {
  name?: string;
  main?: string;
  module?: string;
  type?: string;
  packageManager?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  engines?: Record<string, string>;
  workspaces?: unknown;
}

/** package.json at the root, or null when missing or not a JSON object. */
export function readPackageJson(tree: SourceTree): PackageJson | null {
  const text = tree.read("package.json");
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as PackageJson) : null;
  } catch {
    return null;
  }
}

/** True when any path lies under `folder/`. */
export function hasFolder(tree: SourceTree, folder: string): boolean {
  const prefix = `${folder.replace(/\/+$/, "")}/`;
  return tree.paths().some((path) => path.startsWith(prefix));
}

/** The first of `paths` that exists, or null. */
export function firstExisting(tree: SourceTree, paths: readonly string[]): string | null {
  return paths.find((path) => tree.has(path)) ?? null;
}

/** JavaScript/TypeScript source without comments, so a commented-out option is not mistaken for a set one. */
export function stripJsComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}
