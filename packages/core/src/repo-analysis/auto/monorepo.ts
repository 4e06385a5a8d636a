import { parse as parseYaml } from "yaml";
import type { BaseImages } from "../repo-check.js";
import { subTree, type SourceTree } from "../source-tree.js";
import { deployableNodeApp, nodePlan } from "./node.js";
import { detectPackageManager, type PackageManager } from "./package-manager.js";
import { readPackageJson, type BuildDraft, type PackageJson } from "./types.js";

/** A JavaScript workspace: npm, yarn, pnpm or bun workspaces, with or without turborepo. */
export interface Workspace {
  /** `turborepo`, `pnpm workspace`, `npm workspaces`… as shown to people. */
  label: string;
  turbo: boolean;
  pm: PackageManager;
  /** The workspace packages' folders, sorted. */
  packages: string[];
}

/** A workspace package that is an app (a server or a site), not a library. */
export interface WorkspaceCandidate {
  dir: string;
  name: string;
}

/**
 * The workspace the repository's root declares (package.json `workspaces`, pnpm-workspace.yaml),
 * or null. Its packages are the folders holding a package.json that match the patterns.
 */
export function findWorkspace(tree: SourceTree): Workspace | null {
  const pkg = readPackageJson(tree);
  const patterns = [...workspacePatterns(pkg?.workspaces), ...pnpmPatterns(tree.read("pnpm-workspace.yaml"))];
  if (patterns.length === 0) return null;
  const included = patterns.filter((pattern) => !pattern.startsWith("!")).map(folderPattern);
  const excluded = patterns.filter((pattern) => pattern.startsWith("!")).map((pattern) => folderPattern(pattern.slice(1)));
  const packages = tree
    .paths()
    .filter((path) => path.endsWith("/package.json") && !path.includes("node_modules/"))
    .map((path) => path.slice(0, -"/package.json".length))
    .filter((dir) => included.some((pattern) => pattern.test(dir)) && !excluded.some((pattern) => pattern.test(dir)))
    .sort();
  const pm = detectPackageManager(tree, pkg);
  const turbo = tree.has("turbo.json");
  const label = turbo ? "turborepo" : `${pm.name} workspace`;
  return { label, turbo, pm, packages };
}

/** The packages of `workspace` that are apps, with what each is. */
export function workspaceApps(tree: SourceTree, workspace: Workspace): WorkspaceCandidate[] {
  return workspace.packages.flatMap((dir) => {
    const sub = subTree(tree, dir);
    const pkg = readPackageJson(sub);
    const app = pkg ? deployableNodeApp(sub, pkg) : null;
    return app ? [{ dir, name: app.name }] : [];
  });
}

/**
 * The Dockerfile for one package of a workspace: the whole repository is copied and installed
 * at its root (the package's dependencies include its siblings), the package built with the
 * workspace's tool (turbo builds the siblings it depends on first), and the app run from its folder.
 */
export function workspacePlan(tree: SourceTree, workspace: Workspace, dir: string, images: BaseImages): BuildDraft | { reason: string } {
  const sub = subTree(tree, dir);
  const pkg = readPackageJson(sub);
  const app = pkg ? deployableNodeApp(sub, pkg) : null;
  if (!pkg || !app) {
    return { reason: `${dir} of this ${workspace.label} is not an app Reposite can start (no framework, no start script that runs a server). Choose another root_dir, or add a Dockerfile.` };
  }
  const name = pkg.name ?? dir;
  const draft = nodePlan(sub, pkg, workspace.pm, images, app, { dir, install: workspace.pm.install, build: buildCommand(workspace, name, dir, pkg, app.fallbackBuild) });
  return { ...draft, name: `${draft.name} (${dir}, ${workspace.label})` };
}

/** Builds one package and what it depends on, with the workspace's own tool. */
function buildCommand(workspace: Workspace, name: string, dir: string, pkg: PackageJson, fallback: string | null): string | null {
  if (!pkg.scripts?.build) return fallback ? `cd ${dir} && ${fallback}` : null;
  if (workspace.turbo) return `npx turbo run build --filter=${name}...`;
  switch (workspace.pm.name) {
    case "pnpm":
      return `pnpm --filter "${name}..." run build`;
    case "yarn":
      return workspace.pm.yarn === "berry" ? `yarn workspaces foreach -Rt --from ${name} run build` : `yarn workspace ${name} run build`;
    case "bun":
      return `bun run --filter ${name} build`;
    case "npm":
      return `npm run build --workspace ${dir}`;
  }
}

function workspacePatterns(field: unknown): string[] {
  if (Array.isArray(field)) return field.filter((item): item is string => typeof item === "string");
  if (field && typeof field === "object" && Array.isArray((field as { packages?: unknown }).packages)) {
    return workspacePatterns((field as { packages: unknown }).packages);
  }
  return [];
}

function pnpmPatterns(text: string | null): string[] {
  if (!text) return [];
  try {
    const parsed = parseYaml(text) as { packages?: unknown } | null;
    return workspacePatterns(parsed?.packages);
  } catch {
    return [];
  }
}

/** `apps/*` → a folder one level under apps/; `packages/**` → any folder under packages/. */
function folderPattern(pattern: string): RegExp {
  const clean = pattern.replace(/^\.\/+/, "").replace(/\/+$/, "");
  const source = clean
    .split("/")
    .map((part) => (part === "**" ? ".*" : part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")))
    .join("/");
  return new RegExp(`^${source}$`);
}
