import type { SourceTree } from "../source-tree.js";
import { hasFolder, type PackageJson } from "./types.js";

export type PackageManagerName = "npm" | "pnpm" | "yarn" | "bun";

/** How a Node project installs its packages and runs its scripts. */
export interface PackageManager {
  name: PackageManagerName;
  /** Yarn only: `classic` (1.x) or `berry` (2 and later). */
  yarn?: "classic" | "berry";
  /** Version pinned by package.json's `packageManager`, else null. */
  version: string | null;
  /** Where the choice came from. */
  source: "packageManager" | "lockfile" | "default";
  /** This manager's lockfile when the repository has it, else null. */
  lockfile: string | null;
  /** pnpm and yarn are activated through corepack (which reads `packageManager`). */
  corepack: boolean;
  /** The install command: frozen to the lockfile when there is one. */
  install: string;
  /** Removes devDependencies after the build, or null when that is not safe for this manager. */
  prune: string | null;
  /** Files to copy before installing (package.json, the lockfile, config the manager reads). */
  installFiles: string[];
  /** Folders to copy before installing (each needs its own COPY). */
  installFolders: string[];
  /** Runs a package.json script, passing `args` through to it. */
  run(script: string, args?: string): string;
}

const LOCKFILES: Record<PackageManagerName, string[]> = {
  pnpm: ["pnpm-lock.yaml"],
  bun: ["bun.lock", "bun.lockb"],
  yarn: ["yarn.lock"],
  npm: ["package-lock.json", "npm-shrinkwrap.json"],
};

/** Lockfiles in the order they decide the manager when package.json does not name one. */
const LOCKFILE_ORDER: PackageManagerName[] = ["pnpm", "bun", "yarn", "npm"];

const CONFIG_FILES = [".npmrc", ".yarnrc", ".yarnrc.yml", "pnpm-workspace.yaml", ".pnpmfile.cjs", "bunfig.toml"];
const CONFIG_FOLDERS = [".yarn/releases", ".yarn/plugins", ".yarn/patches", "patches"];

/**
 * The package manager: package.json's `packageManager` field first (`pnpm@9.12.0`), then the
 * lockfile (pnpm-lock.yaml, bun.lock/bun.lockb, yarn.lock, package-lock.json/npm-shrinkwrap.json),
 * else npm. Yarn is berry when `packageManager` says 2 or later, when `.yarnrc.yml` exists, or when
 * yarn.lock has berry's `__metadata` header; otherwise classic.
 */
export function detectPackageManager(tree: SourceTree, pkg: PackageJson | null): PackageManager {
  const declared = parsePackageManagerField(pkg?.packageManager);
  let name: PackageManagerName = "npm";
  let source: PackageManager["source"] = "default";
  if (declared) {
    name = declared.name;
    source = "packageManager";
  } else {
    const found = LOCKFILE_ORDER.find((candidate) => LOCKFILES[candidate].some((file) => tree.has(file)));
    if (found) {
      name = found;
      source = "lockfile";
    }
  }
  const version = declared?.version ?? null;
  const lockfile = LOCKFILES[name].find((file) => tree.has(file)) ?? null;
  const yarn = name === "yarn" ? yarnLine(tree, version) : undefined;
  return {
    name,
    ...(yarn ? { yarn } : {}),
    version,
    source,
    lockfile,
    corepack: name === "pnpm" || name === "yarn",
    install: installCommand(name, yarn, lockfile !== null),
    prune: pruneCommand(name, yarn, version, lockfile !== null),
    installFiles: ["package.json", ...(lockfile ? [lockfile] : []), ...CONFIG_FILES.filter((file) => tree.has(file))],
    installFolders: CONFIG_FOLDERS.filter((folder) => hasFolder(tree, folder)),
    run: (script, args) => runCommand(name, script, args),
  };
}

/** `pnpm@9.12.0+sha512.…` → `{ name: "pnpm", version: "9.12.0" }`; null for anything else. */
export function parsePackageManagerField(field: string | undefined): { name: PackageManagerName; version: string | null } | null {
  const match = /^(npm|pnpm|yarn|bun)(?:@([^+\s]+))?/.exec(field?.trim() ?? "");
  if (!match) return null;
  return { name: match[1] as PackageManagerName, version: match[2] ?? null };
}

function yarnLine(tree: SourceTree, version: string | null): "classic" | "berry" {
  if (version) return version.startsWith("1.") ? "classic" : "berry";
  if (tree.has(".yarnrc.yml") || tree.has(".yarnrc.yaml")) return "berry";
  if (/^__metadata:/m.test(tree.read("yarn.lock") ?? "")) return "berry";
  return "classic";
}

function installCommand(name: PackageManagerName, yarn: "classic" | "berry" | undefined, locked: boolean): string {
  switch (name) {
    case "npm":
      return locked ? "npm ci" : "npm install";
    case "pnpm":
      return locked ? "pnpm install --frozen-lockfile" : "pnpm install";
    case "yarn":
      if (!locked) return "yarn install";
      return yarn === "berry" ? "yarn install --immutable" : "yarn install --frozen-lockfile";
    case "bun":
      return locked ? "bun install --frozen-lockfile" : "bun install";
  }
}

function pruneCommand(name: PackageManagerName, yarn: "classic" | "berry" | undefined, version: string | null, locked: boolean): string | null {
  switch (name) {
    case "npm":
      return "npm prune --omit=dev";
    case "pnpm":
      return "pnpm prune --prod";
    case "yarn":
      if (yarn === "classic") return `yarn install --production${locked ? " --frozen-lockfile" : ""} --ignore-scripts --prefer-offline`;
      // `workspaces focus` is built into Yarn 4; Yarn 2 and 3 need a plugin, so their devDependencies stay.
      return version && Number(version.split(".")[0]) >= 4 ? "yarn workspaces focus --all --production" : null;
    case "bun":
      return `rm -rf node_modules && bun install --production${locked ? " --frozen-lockfile" : ""} --ignore-scripts`;
  }
}

function runCommand(name: PackageManagerName, script: string, args?: string): string {
  const extra = args ? ` ${args}` : "";
  // npm needs `--` before arguments meant for the script; the others pass them through.
  if (name === "npm") return `npm run ${script}${args ? ` --${extra}` : ""}`;
  return `${name} run ${script}${extra}`;
}
