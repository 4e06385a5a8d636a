import type { BaseImages } from "../repo-check.js";
import type { SourceTree } from "../source-tree.js";
import { DockerfileWriter } from "./dockerfile-writer.js";
import { procfileStart } from "./procfile.js";
import { hasDependency, hasOwnStartScript, identifyNodeFramework, type NodeApp, type ServerNodeApp } from "./node-frameworks.js";
import { checkStartScript, committedOutput, serverEntry } from "./node-start.js";
import { detectPackageManager, type PackageManager } from "./package-manager.js";
import { staticServerFiles, writeStaticStage } from "./static-server.js";
import { hasFolder, readPackageJson, type BuildDraft, type Detector, type PackageJson } from "./types.js";

/** Server frameworks named in the answer, checked in this order. */
const SERVER_FRAMEWORKS: Array<[dependency: string, name: string]> = [
  ["@nestjs/core", "NestJS"],
  ["hono", "Hono"],
  ["fastify", "Fastify"],
  ["koa", "Koa"],
  ["express", "Express"],
];

/**
 * Node.js (`package.json`): a front-end framework that builds static files (see node-frameworks.ts),
 * a framework with its own server, or a plain server started by the Procfile's `web:`, the `start`
 * script (checked against the build: see node-start.ts), `main` when it is the server, or an entry
 * file that listens. A start script that only runs a development server, with the built site
 * committed (`dist/index.html`), is that static site. A package.json with none of these gives way
 * to the static-files detector when the repository has an index.html or public/.
 */
export const nodeDetector: Detector = {
  family: "node",
  detect({ tree, images, procfile }) {
    if (!tree.has("package.json")) return null;
    const pkg = readPackageJson(tree);
    if (!pkg) {
      return { reason: "package.json is not valid JSON, so Reposite cannot read how to build this app. Fix package.json, or add a Dockerfile." };
    }
    const pm = detectPackageManager(tree, pkg);
    const framework = identifyNodeFramework({ tree, pkg });
    if (framework && "reason" in framework) return framework;
    if (procfile) {
      // The Procfile names the server, whatever the framework would start.
      const plain = plainServer(tree, pkg);
      const base = framework?.kind === "server" ? framework : plain && !("devServer" in plain) ? plain : serverApp(tree, pkg, null, [], []);
      return nodePlan(tree, pkg, pm, images, { ...base, start: null, shell: procfileStart(procfile), layout: base.layout === "next-standalone" ? "full" : base.layout });
    }
    // A front end with a start script of its own (an Express server serving the Vite build, say) is a server.
    const app = framework && !(framework.kind === "static" && hasOwnStartScript(pkg)) ? framework : plainServer(tree, pkg);
    if (app && "devServer" in app) {
      const output = committedOutput(tree);
      if (output) return committedSite(tree, images, output, app.devServer);
      return {
        reason: `The start script runs a development server (\`${app.devServer}\`), not a server for production, and no built site is committed (dist/index.html or build/index.html). Add a start script that serves the app, commit the built site, or add a Dockerfile.`,
      };
    }
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

/**
 * What a package is, for choosing the apps of a monorepo: a framework app, a server its start
 * script (or an entry file that listens) starts, or null (a library, a dev-server-only package).
 */
export function deployableNodeApp(tree: SourceTree, pkg: PackageJson): NodeApp | null {
  const framework = identifyNodeFramework({ tree, pkg });
  if (framework && "reason" in framework) return null;
  if (framework && !(framework.kind === "static" && hasOwnStartScript(pkg))) return framework;
  const checked = checkStartScript(tree, pkg);
  if (checked.kind === "server") return serverApp(tree, pkg, checked.start, checked.buildSteps, checked.devTools, checked.shell);
  return null;
}

function plainServer(tree: SourceTree, pkg: PackageJson): ServerNodeApp | { devServer: string } | null {
  const checked = checkStartScript(tree, pkg);
  if (checked.kind === "dev-server") return { devServer: checked.command };
  if (checked.kind === "server") return serverApp(tree, pkg, checked.start, checked.buildSteps, checked.devTools, checked.shell);
  const entry = serverEntry(tree, pkg);
  return entry ? serverApp(tree, pkg, ["node", entry], [], []) : null;
}

function serverApp(tree: SourceTree, pkg: PackageJson, start: string[] | null, buildSteps: string[], devTools: string[], shell: string | null = null): ServerNodeApp {
  const name = SERVER_FRAMEWORKS.find(([dependency]) => hasDependency(pkg, dependency))?.[1] ?? "Node.js";
  const warnings: string[] = [];
  if (name === "Fastify" && !/0\.0\.0\.0|\bhost\b/.test(entrySource(tree, pkg, start))) {
    warnings.push("Fastify listens on 127.0.0.1 unless told otherwise, which a container does not expose: call `listen({ host: \"0.0.0.0\", port: Number(process.env.PORT) })`.");
  }
  return { kind: "server", name, start, shell, layout: "full", buildEnv: {}, fallbackBuild: null, env: { HOST: "0.0.0.0" }, ownFiles: false, warnings, buildSteps, devTools };
}

/** The built site committed with the source, served as it is: nothing to install or build. */
function committedSite(tree: SourceTree, images: BaseImages, output: string, devServer: string): BuildDraft {
  const dockerfile = new DockerfileWriter();
  const note = `The start script runs a development server (${devServer}); the built site committed in ${output}/ is served instead.`;
  dockerfile.comment(note);
  writeStaticStage(dockerfile, { image: images.static, folder: output });
  return { name: "Static site (committed build)", install: null, build: null, output, dockerfile: dockerfile.toString(), contextFiles: staticServerFiles(), warnings: [] };
}

function entrySource(tree: SourceTree, pkg: PackageJson, start: string[] | null): string {
  const file = start?.find((arg, index) => index > 0 && !arg.startsWith("-")) ?? pkg.main ?? "";
  return [file, `${file}.js`, "server.js", "index.js", "app.js", "src/index.ts", "src/server.ts", "src/app.ts"].map((path) => tree.read(path) ?? "").join("\n");
}

/** A package of a JavaScript workspace, built from the workspace's root. */
export interface WorkspaceApp {
  /** The package's folder (`apps/web`). */
  dir: string;
  /** The root's install (every workspace's packages at once). */
  install: string;
  /** Builds the package and the workspace packages it depends on, or null when it has no build. */
  build: string | null;
}

export function nodePlan(tree: SourceTree, pkg: PackageJson, pm: PackageManager, images: BaseImages, app: NodeApp, workspace?: WorkspaceApp): BuildDraft {
  const buildScript = pkg.scripts?.build ? pm.run("build", app.kind === "static" ? (app.buildArgs ?? undefined) : undefined) : app.fallbackBuild;
  const build = workspace ? workspace.build : withStartBuildSteps(buildScript, app.kind === "server" ? app.buildSteps : [], pkg);
  const install = workspace ? workspace.install : needsInstall(pkg, build, app) ? pm.install : null;
  // In a workspace, paths of the image are the package's folder under /app.
  const appDir = workspace ? `/app/${workspace.dir}` : "/app";
  // In a workspace, Next.js runs from the package's folder with its own `next` (the standalone
  // output nests the workspace's paths, and the package's start script may call the workspace's tool).
  if (workspace && app.kind === "server" && app.name.startsWith("Next.js")) app = { ...app, layout: "full", start: ["node_modules/.bin/next", "start"], shell: null };
  const onBun = pm.name === "bun";
  const image = onBun ? images.bun : images.node;
  const user = onBun ? "bun" : "node";
  const prune = !workspace && app.kind === "server" && app.layout === "full" && install && pm.prune && app.devTools.length === 0 && pruneIsSafe(pkg) ? pm.prune : null;
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
      if (workspace || installNeedsSource(tree, pkg)) {
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
    if (app.kind === "static" && !workspace) for (const step of app.beforeBuild) dockerfile.comment(step.comment).run(step.run);
    if (build) dockerfile.run(build);
    if (prune) dockerfile.run(prune);
  }

  if (app.kind === "static") {
    const folder = workspace ? `${workspace.dir}/${app.output}` : app.output;
    writeStaticStage(dockerfile, { image: images.static, folder, from: "build" });
    return {
      name: app.name,
      install,
      build,
      output: folder,
      dockerfile: dockerfile.toString(),
      contextFiles: { ...staticServerFiles(), ...app.contextFiles },
      warnings,
    };
  }

  const start = runtimeCommand(app.start ?? (onBun ? ["bun", "run", "start"] : ["npm", "start"]), onBun);
  const chown = app.ownFiles ? `${user}:${user}` : undefined;
  const fromBuild = { from: "build", ...(chown ? { chown } : {}) };
  dockerfile.from(image).env({ NODE_ENV: "production", PORT: "3000", ...app.env }).workdir(appDir);
  if (workspace) {
    // The whole workspace: the package's dependencies are links to its sibling packages.
    dockerfile.copy("/app", "/app", fromBuild);
  } else if (singleStage) {
    dockerfile.copy(".", "./");
  } else if (app.layout === "next-standalone") {
    if (hasFolder(tree, "public")) dockerfile.copy("/app/public", "./public", fromBuild);
    dockerfile.copy("/app/.next/standalone", "./", fromBuild).copy("/app/.next/static", "./.next/static", fromBuild);
  } else if (app.layout === "nuxt") {
    dockerfile.copy("/app/.output", "./.output", fromBuild);
  } else {
    dockerfile.copy("/app", "./", fromBuild);
  }
  dockerfile.user(user).expose(3000);
  if (app.shell) dockerfile.start(app.shell);
  else dockerfile.cmd(start);
  return { name: app.name, install, build, start: app.shell ?? start.join(" "), dockerfile: dockerfile.toString(), warnings };
}

/**
 * Build steps the start script held (`tsc` of `tsc && node dist/index.js`) join the build, unless
 * the build script already runs them.
 */
function withStartBuildSteps(build: string | null, steps: string[], pkg: PackageJson): string | null {
  const buildScript = pkg.scripts?.build ?? "";
  const missing = steps.filter((step) => !/^(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?build\b/.test(step) && !buildScript.includes(step));
  const all = [build, ...missing.map((step) => (/^(?:tsc|babel|webpack|esbuild|rollup|tsup|swc|prisma|vite|next|nest)\b/.test(step) ? `npx ${step}` : step))].filter(Boolean);
  return all.length > 0 ? all.join(" && ") : null;
}

/**
 * Packages are installed when the app has dependencies, or when a build or the start needs its
 * dev dependencies: a zero-dependency server does not install its linters.
 */
function needsInstall(pkg: PackageJson, build: string | null, app: NodeApp): boolean {
  if (Object.keys(pkg.dependencies ?? {}).length > 0) return true;
  const devDependencies = Object.keys(pkg.devDependencies ?? {}).length > 0;
  if (!devDependencies) return false;
  if (build !== null || app.kind === "static") return true;
  // `npm start` runs a script (it may call a dev dependency); a shell command only the tools it names.
  if (app.start === null && app.shell === null) return true;
  const tools = (app.shell ?? "").split(/\s*(?:&&|;|\|\|)\s*/).map((step) => step.trim().split(/\s+/)[0] ?? "");
  return app.devTools.length > 0 || tools.some((tool) => pkg.devDependencies?.[tool] || tool === "npm" || tool === "npx");
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
