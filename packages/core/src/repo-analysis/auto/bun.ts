import type { SourceTree } from "../source-tree.js";
import { DockerfileWriter } from "./dockerfile-writer.js";
import { identifyNodeFramework } from "./node-frameworks.js";
import { detectPackageManager } from "./package-manager.js";
import { firstExisting, readPackageJson, type Detector, type PackageJson } from "./types.js";

const ENTRY_FILES = ["index.ts", "src/index.ts", "server.ts", "src/server.ts", "app.ts", "src/app.ts", "main.ts", "src/main.ts", "index.js", "src/index.js"];

/**
 * Bun programs without a start script (what `bun init` makes): a package.json using Bun (its
 * lockfile, `packageManager`, `@types/bun`, or a script running `bun`) with no `start` and no
 * front-end framework, run with `bun run <file>`: the file a `dev` script watches, else
 * `module`/`main`, else index.ts or src/index.ts. A start script is the Node detector's (on the Bun image).
 */
export const bunDetector: Detector = {
  family: "bun",
  detect({ tree, images, procfile }) {
    const pkg = readPackageJson(tree);
    if (!pkg || pkg.scripts?.start || !usesBun(tree, pkg)) return null;
    const framework = identifyNodeFramework({ tree, pkg });
    if (framework) return null;
    const entry = procfile ? null : bunEntry(tree, pkg);
    const start = procfile?.start ?? (entry ? `bun run ${entry}` : null);
    if (!start) return null;
    const pm = detectPackageManager(tree, pkg);
    const install = Object.keys(pkg.dependencies ?? {}).length > 0 ? (pm.name === "bun" ? pm.install : "bun install") : null;
    const dockerfile = new DockerfileWriter().from(images.bun).env({ NODE_ENV: "production", PORT: "3000" }).workdir("/app");
    if (install) {
      dockerfile.copy(pm.installFiles.filter((file) => tree.has(file)), "./").run(`${install.replace(/ --frozen-lockfile$/, "")} --production${pm.lockfile ? " --frozen-lockfile" : ""}`);
    }
    dockerfile.copy(".", "./").user("bun").expose(3000).start(start);
    return { name: "Bun", install, build: null, start, dockerfile: dockerfile.toString(), warnings: [] };
  },
};

function usesBun(tree: SourceTree, pkg: PackageJson): boolean {
  const scripts = Object.values(pkg.scripts ?? {}).join("\n");
  return (
    tree.has("bun.lockb") ||
    tree.has("bun.lock") ||
    tree.has("bunfig.toml") ||
    /^bun@/.test(pkg.packageManager ?? "") ||
    Boolean(pkg.devDependencies?.["@types/bun"] ?? pkg.devDependencies?.["bun-types"]) ||
    /(^|\s)bun\s+(?:run\s+)?(?:--\S+\s+)*[\w./-]+\.(?:ts|js)/.test(scripts)
  );
}

function bunEntry(tree: SourceTree, pkg: PackageJson): string | null {
  const watched = /\bbun\s+(?:run\s+)?(?:--\S+\s+)*([\w./-]+\.(?:ts|tsx|js|mjs))/.exec(pkg.scripts?.dev ?? "")?.[1]?.replace(/^\.\//, "");
  if (watched && tree.has(watched)) return watched;
  for (const field of [pkg.module, pkg.main]) {
    const file = field?.replace(/^\.\//, "");
    if (file && tree.has(file)) return file;
  }
  return firstExisting(tree, ENTRY_FILES);
}
