import type { BaseImages } from "../repo-check.js";
import type { SourceTree } from "../source-tree.js";
import { DockerfileWriter, execArgs } from "./dockerfile-writer.js";
import { hasDependency, hasOwnStartScript, identifyNodeFramework, type NodeApp, type ServerNodeApp } from "./node-frameworks.js";
import { detectPackageManager, type PackageManager } from "./package-manager.js";
import { staticServerFiles, writeStaticStage } from "./static-server.js";
import { firstExisting, hasFolder, readPackageJson, type BuildDraft, type Detector, type PackageJson } from "./types.js";

/** Server frameworks named in the answer, checked in this order. */
const SERVER_FRAMEWORKS: Array<[dependency: string, name: string]> = [
  ["@nestjs/core", "NestJS"],
  ["hono", "Hono"],
  ["fastify", "Fastify"],
  ["koa", "Koa"],
  ["express", "Express"],
];

/** Entry files tried when package.json has neither a start script nor `main`. */
const ENTRY_FILES = ["index.js", "index.mjs", "server.js", "server.mjs", "app.js", "app.mjs", "main.js", "main.mjs"];

/**
 * Node.js (`package.json`): a front-end framework that builds static files (see node-frameworks.ts),
 * a framework with its own server, or a plain server started by the `start` script, `main`, or an
 * entry file (index.js, server.js, app.js, main.js). A package.json with none of these gives way to
 * the static-files detector when the repository has an index.html or public/.
 */
export const nodeDetector: Detector = {
  family: "node",
  detect({ tree, images }) {
    if (!tree.has("package.json")) return null;
    const pkg = readPackageJson(tree);
    if (!pkg) {
      return { reason: "package.json is not valid JSON, so Reposite cannot read how to build this app. Fix package.json, or add a Dockerfile." };
    }
    const pm = detectPackageManager(tree, pkg);
    const framework = identifyNodeFramework({ tree, pkg });
    if (framework && "reason" in framework) return framework;
    // A front end with a start script of its own (an Express server serving the Vite build, say) is a server.
    const app = framework && !(framework.kind === "static" && hasOwnStartScript(pkg)) ? framework : plainServer(tree, pkg);
    if (!app) {
      if (tree.has("index.html") || hasFolder(tree, "public") || tree.has("Staticfile")) return null;
      return {
        reason:
          "package.json has no start script, no main and no index.js or server.js, and no front-end framework Reposite knows, so Reposite cannot tell how to start this app. Add a start script (for example `node server.js`), or add a Dockerfile.",
      };
    }
    return nodePlan(tree, pkg, pm, images, app);
  },
};

function plainServer(tree: SourceTree, pkg: PackageJson): ServerNodeApp | null {
  const name = SERVER_FRAMEWORKS.find(([dependency]) => hasDependency(pkg, dependency))?.[1] ?? "Node.js";
  const startScript = pkg.scripts?.start?.trim();
  let start: string[] | null;
  if (startScript) {
    const args = execArgs(startScript);
    start = args?.[0] === "node" ? args : null;
  } else if (pkg.main && tree.has(pkg.main.replace(/^\.\//, ""))) {
    start = ["node", pkg.main.replace(/^\.\//, "")];
  } else {
    const entry = firstExisting(tree, ENTRY_FILES);
    if (!entry) return null;
    start = ["node", entry];
  }
  const warnings: string[] = [];
  if (name === "Fastify" && !/0\.0\.0\.0|\bhost\b/.test(entrySource(tree, pkg, start))) {
    warnings.push("Fastify listens on 127.0.0.1 unless told otherwise, which a container does not expose: call `listen({ host: \"0.0.0.0\", port: Number(process.env.PORT) })`.");
  }
  return { kind: "server", name, start, layout: "full", buildEnv: {}, fallbackBuild: null, env: { HOST: "0.0.0.0" }, ownFiles: false, warnings };
}

function entrySource(tree: SourceTree, pkg: PackageJson, start: string[] | null): string {
  const file = start?.find((arg, index) => index > 0 && !arg.startsWith("-")) ?? pkg.main ?? "";
  return [file, `${file}.js`, "server.js", "index.js", "app.js", "src/index.ts", "src/server.ts", "src/app.ts"].map((path) => tree.read(path) ?? "").join("\n");
}

function nodePlan(tree: SourceTree, pkg: PackageJson, pm: PackageManager, images: BaseImages, app: NodeApp): BuildDraft {
  const hasPackages = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).length > 0;
  const install = hasPackages ? pm.install : null;
  const build = pkg.scripts?.build ? pm.run("build", app.kind === "static" ? (app.buildArgs ?? undefined) : undefined) : app.fallbackBuild;
  const onBun = pm.name === "bun";
  const image = onBun ? images.bun : images.node;
  const user = onBun ? "bun" : "node";
  const prune = app.kind === "server" && app.layout === "full" && install && pm.prune && pruneIsSafe(pkg) ? pm.prune : null;
  const warnings = [...app.warnings];

  const dockerfile = new DockerfileWriter();
  for (const warning of warnings) dockerfile.comment(`Warning: ${warning}`);
  const engine = pkg.engines?.node;
  if (engine) dockerfile.comment(`package.json asks for Node ${engine}; the image is ${onBun ? images.bun : images.node}.`);

  const singleStage = app.kind === "server" && app.layout === "full" && !install && !build;
  if (!singleStage) {
    dockerfile.from(image, "build").workdir("/app");
    if (pm.corepack && (install || build)) {
      dockerfile.env({ COREPACK_ENABLE_DOWNLOAD_PROMPT: "0" }).run("corepack enable");
    }
    // Plug'n'Play leaves no node_modules to copy into the runtime image.
    if (pm.yarn === "berry" && install) dockerfile.env({ YARN_NODE_LINKER: "node-modules" });
    if (install) {
      if (installNeedsSource(tree, pkg)) {
        dockerfile.copy(".", ".").run(install);
      } else {
        dockerfile.copy(pm.installFiles, "./");
        for (const folder of pm.installFolders) dockerfile.copy(folder, `./${folder}`);
        dockerfile.run(install).copy(".", ".");
      }
    } else {
      dockerfile.copy(".", ".");
    }
    if (Object.keys(app.buildEnv).length > 0) dockerfile.env(app.buildEnv);
    if (app.kind === "static") for (const step of app.beforeBuild) dockerfile.comment(step.comment).run(step.run);
    if (build) dockerfile.run(build);
    if (prune) dockerfile.run(prune);
  }

  if (app.kind === "static") {
    writeStaticStage(dockerfile, { image: images.static, folder: app.output, from: "build" });
    return {
      name: app.name,
      install,
      build,
      output: app.output,
      dockerfile: dockerfile.toString(),
      contextFiles: { ...staticServerFiles(), ...app.contextFiles },
      warnings,
    };
  }

  const start = runtimeCommand(app.start ?? (onBun ? ["bun", "run", "start"] : ["npm", "start"]), onBun);
  const chown = app.ownFiles ? `${user}:${user}` : undefined;
  const fromBuild = { from: "build", ...(chown ? { chown } : {}) };
  dockerfile.from(image).env({ NODE_ENV: "production", PORT: "3000", ...app.env }).workdir("/app");
  if (singleStage) {
    dockerfile.copy(".", "./");
  } else if (app.layout === "next-standalone") {
    if (hasFolder(tree, "public")) dockerfile.copy("/app/public", "./public", fromBuild);
    dockerfile.copy("/app/.next/standalone", "./", fromBuild).copy("/app/.next/static", "./.next/static", fromBuild);
  } else if (app.layout === "nuxt") {
    dockerfile.copy("/app/.output", "./.output", fromBuild);
  } else {
    dockerfile.copy("/app", "./", fromBuild);
  }
  dockerfile.user(user).expose(3000).cmd(start);
  return { name: app.name, install, build, start: start.join(" "), dockerfile: dockerfile.toString(), warnings };
}

/** On the Bun image, `node` programs run with `bun`. */
function runtimeCommand(args: string[], onBun: boolean): string[] {
  return onBun && args[0] === "node" ? ["bun", ...args.slice(1)] : args;
}

/** Install scripts, workspaces and local packages need the whole repository before installing. */
function installNeedsSource(tree: SourceTree, pkg: PackageJson): boolean {
  const scripts = pkg.scripts ?? {};
  if (["preinstall", "install", "postinstall", "prepare"].some((name) => scripts[name])) return true;
  if (pkg.workspaces || tree.has("pnpm-workspace.yaml")) return true;
  return Object.values({ ...pkg.dependencies, ...pkg.devDependencies }).some((version) => /^(?:file|link|workspace|portal):/.test(version));
}

/**
 * Dropping devDependencies is safe unless the start script runs a tool that is one (tsx, ts-node,
 * nodemon…).
 */
function pruneIsSafe(pkg: PackageJson): boolean {
  const start = (pkg.scripts?.start ?? "").trim();
  const first = start.split(/\s+/)[0] ?? "";
  const tool = start.replace(/^(?:cross-env\s+)?(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*/, "").split(/\s+/)[0] ?? "";
  return ![first, tool].some((name) => name && pkg.devDependencies?.[name]);
}
