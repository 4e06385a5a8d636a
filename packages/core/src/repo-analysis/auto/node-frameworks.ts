import type { SourceTree } from "../source-tree.js";
import { DEV_SERVER } from "./node-start.js";
import { firstExisting, stripJsComments, type PackageJson } from "./types.js";

/** The address the hosted app is served under; the proxy strips it before a request reaches the app. */
export const APP_BASE_PATH = "/app";

/** A front end whose build writes a folder of static files. */
export interface StaticNodeApp {
  kind: "static";
  name: string;
  /** Folder the build writes. */
  output: string;
  /** Arguments appended to the build script (to set the base path), or null. */
  buildArgs: string | null;
  /** Variables the build needs (base path, telemetry). */
  buildEnv: Record<string, string>;
  /** Steps run just before the build (for example putting a config wrapper in place), each with its reason. */
  beforeBuild: Array<{ comment: string; run: string }>;
  /** The framework's own build command, used when package.json has no build script. */
  fallbackBuild: string | null;
  contextFiles: Record<string, string>;
  warnings: string[];
}

/** A program that listens on `$PORT`. */
export interface ServerNodeApp {
  kind: "server";
  name: string;
  /** The start command as exec-form arguments, or null to use the package manager's `start`. */
  start: string[] | null;
  /** A start command that needs a shell (the Procfile's, a migration before the server); wins over `start`. */
  shell: string | null;
  /** Build steps the start script held (`tsc`), run at build instead. */
  buildSteps: string[];
  /** Dev dependencies the start command runs (`tsx`, `ts-node`): they must not be pruned. */
  devTools: string[];
  /**
   * What the runtime image holds: `full` the whole built app with production dependencies,
   * `next-standalone` Next.js's traced standalone server, `nuxt` Nitro's self-contained `.output`.
   */
  layout: "full" | "next-standalone" | "nuxt";
  /** Variables for the build stage. */
  buildEnv: Record<string, string>;
  /** The framework's own build command, used when package.json has no build script. */
  fallbackBuild: string | null;
  /** Variables for the runtime image. */
  env: Record<string, string>;
  /** Runtime files must belong to the app's user (frameworks that write caches next to their code). */
  ownFiles: boolean;
  warnings: string[];
}

export type NodeApp = StaticNodeApp | ServerNodeApp;

interface FrameworkInput {
  tree: SourceTree;
  pkg: PackageJson;
}

/** Checked in this order; the first that recognizes the package wins. */
const FRAMEWORKS: Array<(input: FrameworkInput) => NodeApp | { reason: string } | null> = [
  nextJs,
  nuxt,
  svelteKit,
  astro,
  angular,
  createReactApp,
  vite,
  nestJs,
];

/** The framework a package.json belongs to, or null for a plain Node program (see node.ts). */
export function identifyNodeFramework(input: FrameworkInput): NodeApp | { reason: string } | null {
  for (const framework of FRAMEWORKS) {
    const found = framework(input);
    if (found) return found;
  }
  return null;
}

// ── helpers ────────────────────────────────────────────────────────────────────────────────

export function hasDependency(pkg: PackageJson, name: string): boolean {
  return Boolean(pkg.dependencies?.[name] ?? pkg.devDependencies?.[name]);
}

function script(pkg: PackageJson, name: string): string {
  return pkg.scripts?.[name] ?? "";
}

function readFirst(tree: SourceTree, paths: string[]): { path: string; text: string } | null {
  const path = firstExisting(tree, paths);
  return path ? { path, text: stripJsComments(tree.read(path) ?? "") } : null;
}

function stringOption(source: string, key: string): string | null {
  return new RegExp(`\\b${key}\\s*:\\s*["'\`]([^"'\`]+)["'\`]`).exec(source)?.[1] ?? null;
}

/**
 * Start scripts that only run a development or preview server do not make a static front end a
 * server: Reposite serves the built files itself.
 */
const DEV_SERVER_SCRIPT =
  /^(?:npx\s+)?(?:vite(?:\s+(?:dev|serve|preview))?|astro\s+(?:dev|preview)|ng\s+serve|react-scripts\s+start|next\s+(?:dev|start)|nuxt\s+(?:dev|preview)|nuxi\s+(?:dev|preview)|serve|http-server|sirv)(?:\s|$)/;

/** A start script that runs the app's own server, not a dev/preview server. */
export function hasOwnStartScript(pkg: PackageJson): boolean {
  const start = script(pkg, "start").trim();
  const serving = start.split(/\s*&&\s*/).pop() ?? "";
  return start !== "" && !DEV_SERVER_SCRIPT.test(start) && !DEV_SERVER.test(serving);
}

/** When the script's last `&&` step runs `tool`, arguments appended by the package manager reach it. */
function lastStepRuns(buildScript: string, tool: RegExp): boolean {
  const steps = buildScript.split(/&&|;|\|\|/);
  return tool.test((steps[steps.length - 1] ?? "").trim());
}

function baseArgs(input: FrameworkInput, tool: RegExp, toolName: string, args: string, warnings: string[]): string | null {
  if (!script(input.pkg, "build")) return null; // the framework's fallback build passes them itself
  if (lastStepRuns(script(input.pkg, "build"), tool)) return args;
  warnings.push(
    `The build script does not end with \`${toolName}\`, so Reposite cannot pass \`${args}\` to it; set the base path to ${APP_BASE_PATH}/ in the ${toolName.split(" ")[0]} config, or assets will load from the site root instead of ${APP_BASE_PATH}/.`,
  );
  return null;
}

function ssrWarning(framework: string, addresses: string, setting: string): string {
  return (
    `${framework} writes addresses from the site root (${addresses}), but the app is served under ${APP_BASE_PATH}/ with that prefix removed: ` +
    `set ${setting} so scripts and styles load through ${APP_BASE_PATH}/, and prefix in-app links with ${APP_BASE_PATH} — or serve the app on its own domain.`
  );
}

function staticApp(name: string, output: string, extra: Partial<StaticNodeApp> = {}): StaticNodeApp {
  return { kind: "static", name, output, buildArgs: null, buildEnv: {}, beforeBuild: [], fallbackBuild: null, contextFiles: {}, warnings: [], ...extra };
}

function serverApp(name: string, extra: Partial<ServerNodeApp> = {}): ServerNodeApp {
  return { kind: "server", name, start: null, shell: null, buildSteps: [], devTools: [], layout: "full", buildEnv: {}, fallbackBuild: null, env: {}, ownFiles: false, warnings: [], ...extra };
}

// ── frameworks ─────────────────────────────────────────────────────────────────────────────

const NEXT_CONFIGS = ["next.config.js", "next.config.mjs", "next.config.cjs", "next.config.ts", "next.config.mts"];

/**
 * Next.js (`next`): `output: 'export'` is a static site in `out/` (or `distDir`); otherwise a server,
 * the standalone one when `output: 'standalone'`. The base path of an export can only be set in
 * next.config, so Reposite wraps a JavaScript config with one that adds `basePath: "/app"`.
 */
function nextJs({ tree, pkg }: FrameworkInput): NodeApp | null {
  if (!hasDependency(pkg, "next")) return null;
  const config = readFirst(tree, NEXT_CONFIGS);
  const source = config?.text ?? "";
  const telemetry = { NEXT_TELEMETRY_DISABLED: "1" };
  const exported = /\boutput\s*:\s*["'`]export["'`]/.test(source) || /\bnext\s+export\b/.test(script(pkg, "build"));
  if (exported) {
    const app = staticApp("Next.js (static export)", stringOption(source, "distDir") ?? "out", { buildEnv: telemetry, fallbackBuild: "npx next build" });
    const basePath = stringOption(source, "basePath");
    if (basePath?.replace(/\/+$/, "") === APP_BASE_PATH) return app;
    if (/\bbasePath\s*:/.test(source)) {
      app.warnings.push(`next.config sets basePath, but the app is served under ${APP_BASE_PATH}/: it must be "${APP_BASE_PATH}".`);
    } else if (config && /\.(?:js|mjs|cjs)$/.test(config.path)) {
      const extension = config.path.slice(config.path.lastIndexOf("."));
      const original = `next.config.user${extension}`;
      app.contextFiles[NEXT_CONFIG_WRAPPER_PATH] = nextConfigWrapper(original);
      app.beforeBuild.push({
        comment: `next.config gets basePath "${APP_BASE_PATH}" (the app is served under ${APP_BASE_PATH}/); the original is kept as ${original}.`,
        run: `mv ${config.path} ${original} && cp ${NEXT_CONFIG_WRAPPER_PATH} next.config.mjs`,
      });
    } else {
      app.warnings.push(
        `Next.js takes its base path only from next.config; add \`basePath: "${APP_BASE_PATH}"\` to ${config?.path ?? "next.config.mjs"}, or the exported pages load their scripts from the site root instead of ${APP_BASE_PATH}/.`,
      );
    }
    return app;
  }
  const standalone = /\boutput\s*:\s*["'`]standalone["'`]/.test(source);
  const warnings = [ssrWarning("Next.js", "/_next/…", `\`assetPrefix: "${APP_BASE_PATH}"\` in next.config`)];
  if (standalone) {
    return serverApp("Next.js (standalone)", {
      start: ["node", "server.js"],
      layout: "next-standalone",
      buildEnv: telemetry,
      fallbackBuild: "npx next build",
      env: { ...telemetry, HOSTNAME: "0.0.0.0" },
      ownFiles: true,
      warnings,
    });
  }
  return serverApp("Next.js", {
    // A start script that runs `next dev` is no production server: `next start` serves the build.
    start: script(pkg, "start") && !DEV_SERVER.test(script(pkg, "start").trim()) ? null : ["node_modules/.bin/next", "start"],
    buildEnv: telemetry,
    fallbackBuild: "npx next build",
    env: { ...telemetry, HOSTNAME: "0.0.0.0" },
    ownFiles: true,
    warnings,
  });
}

/** Where the Next.js config wrapper sits in the build context. */
export const NEXT_CONFIG_WRAPPER_PATH = ".reposite/next.config.mjs";

function nextConfigWrapper(original: string): string {
  return [
    `// Written by Reposite: the app is served under ${APP_BASE_PATH}/, so the export needs that base path.`,
    `import userConfig from "./${original}";`,
    "",
    "export default async function config(phase, context) {",
    '  const base = typeof userConfig === "function" ? await userConfig(phase, context) : await userConfig;',
    `  return { ...base, basePath: "${APP_BASE_PATH}" };`,
    "}",
    "",
  ].join("\n");
}

/**
 * Nuxt (`nuxt`): a build script running `nuxt generate` is a static site in `.output/public`, built
 * with `NUXT_APP_BASE_URL=/app/`; otherwise Nitro's server in `.output`.
 */
function nuxt({ pkg }: FrameworkInput): NodeApp | null {
  if (!hasDependency(pkg, "nuxt")) return null;
  if (/\bnux[ti]\s+generate\b/.test(script(pkg, "build"))) {
    return staticApp("Nuxt (static)", ".output/public", { buildEnv: { NUXT_APP_BASE_URL: `${APP_BASE_PATH}/` } });
  }
  return serverApp("Nuxt", {
    start: ["node", ".output/server/index.mjs"],
    layout: "nuxt",
    fallbackBuild: "npx nuxi build",
    env: { HOST: "0.0.0.0" },
    warnings: [ssrWarning("Nuxt", "/_nuxt/…", `\`NUXT_APP_CDN_URL=${APP_BASE_PATH}/\` in the app's settings`)],
  });
}

/**
 * SvelteKit (`@sveltejs/kit`), by adapter: adapter-node is a server (`node build`); adapter-auto is
 * built as adapter-node (its `GCP_BUILDPACKS` signal, as Railpack does); adapter-static is a static
 * site whose base path comes from svelte.config.js (`kit.paths.base`), built with `BASE_PATH=/app`.
 */
function svelteKit({ tree, pkg }: FrameworkInput): NodeApp | { reason: string } | null {
  if (!hasDependency(pkg, "@sveltejs/kit")) return null;
  const config = readFirst(tree, ["svelte.config.js", "svelte.config.mjs", "svelte.config.ts"])?.text ?? "";
  const adapter =
    Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).find((name) => name.startsWith("@sveltejs/adapter-")) ??
    /@sveltejs\/adapter-[a-z-]+/.exec(config)?.[0] ??
    "@sveltejs/adapter-auto";
  if (adapter === "@sveltejs/adapter-static") {
    const output = /\bpages\s*:\s*["'`]([^"'`]+)["'`]/.exec(config)?.[1] ?? "build";
    const app = staticApp("SvelteKit (static)", output, { buildEnv: { BASE_PATH: APP_BASE_PATH }, fallbackBuild: "npx vite build" });
    if (!/BASE_PATH|["'`]\/app["'`]/.test(config)) {
      app.warnings.push(
        `SvelteKit takes its base path from svelte.config.js: set \`kit.paths.base\` to "${APP_BASE_PATH}" (for example \`base: process.env.BASE_PATH ?? ""\`; Reposite builds with BASE_PATH=${APP_BASE_PATH}).`,
      );
    }
    return app;
  }
  if (adapter !== "@sveltejs/adapter-node" && adapter !== "@sveltejs/adapter-auto") {
    return { reason: `This SvelteKit app builds with ${adapter}, for that host only. Use @sveltejs/adapter-node (a server) or @sveltejs/adapter-static (a static site), or add a Dockerfile.` };
  }
  const output = /\bout\s*:\s*["'`]([^"'`]+)["'`]/.exec(config)?.[1] ?? "build";
  return serverApp("SvelteKit", {
    start: ["node", output],
    buildEnv: adapter === "@sveltejs/adapter-auto" ? { GCP_BUILDPACKS: "true" } : {},
    fallbackBuild: "npx vite build",
    env: { HOST: "0.0.0.0" },
  });
}

/**
 * Astro (`astro` with an astro.config or an `astro build` script): static unless `output: 'server'`
 * or the @astrojs/node adapter, in which case `dist/server/entry.mjs` is the server.
 */
function astro(input: FrameworkInput): NodeApp | { reason: string } | null {
  const { tree, pkg } = input;
  const config = readFirst(tree, ["astro.config.mjs", "astro.config.ts", "astro.config.js", "astro.config.mts", "astro.config.cjs"]);
  if (!hasDependency(pkg, "astro") || !(config || /\bastro\s+build\b/.test(script(pkg, "build")))) return null;
  const source = config?.text ?? "";
  const output = stringOption(source, "outDir")?.replace(/^\.\/+/, "") ?? "dist";
  if (hasDependency(pkg, "@astrojs/node")) {
    return serverApp("Astro (server)", {
      start: ["node", `./${output}/server/entry.mjs`],
      fallbackBuild: "npx astro build",
      env: { HOST: "0.0.0.0" },
      warnings: [ssrWarning("Astro", "/_astro/…", `\`build.assetsPrefix: "${APP_BASE_PATH}"\` in astro.config`)],
    });
  }
  const otherAdapter = ["@astrojs/vercel", "@astrojs/netlify", "@astrojs/cloudflare"].find((name) => hasDependency(pkg, name));
  if (otherAdapter || /\boutput\s*:\s*["'`]server["'`]/.test(source)) {
    return { reason: `This Astro site renders on demand with ${otherAdapter ?? "a server adapter"}. Add @astrojs/node to run it as a server, or build it as a static site, or add a Dockerfile.` };
  }
  const warnings: string[] = [];
  const buildArgs = baseArgs(input, /^(?:npx\s+)?astro\s+build\b/, "astro build", `--base ${APP_BASE_PATH}`, warnings);
  return staticApp("Astro", output, { buildArgs: buildArgs ?? null, warnings, fallbackBuild: `npx astro build --base ${APP_BASE_PATH}` });
}

/**
 * Angular (`@angular/core` and angular.json): a static site in the build's outputPath (its
 * `browser/` folder with the application builder), built with `--base-href /app/`; with
 * `@angular/ssr` and a `serve:ssr:<project>` script, that script's server.
 */
function angular(input: FrameworkInput): NodeApp | null {
  const { tree, pkg } = input;
  if (!hasDependency(pkg, "@angular/core") || !tree.has("angular.json")) return null;
  const ssrScript = Object.keys(pkg.scripts ?? {}).find((name) => name.startsWith("serve:ssr"));
  if (hasDependency(pkg, "@angular/ssr") && ssrScript) {
    const command = script(pkg, ssrScript).trim();
    return serverApp("Angular (SSR)", {
      start: /^node\s+[^\s&|;]+$/.test(command) ? command.split(/\s+/) : ["npm", "run", ssrScript],
      warnings: [ssrWarning("Angular", "<base href=\"/\">", "the base href")],
    });
  }
  const warnings: string[] = [];
  const buildArgs = baseArgs(input, /^(?:npx\s+)?ng\s+build\b/, "ng build", `--base-href ${APP_BASE_PATH}/`, warnings);
  return staticApp("Angular", angularOutput(tree.read("angular.json") ?? ""), { buildArgs, warnings, fallbackBuild: `npx ng build --base-href ${APP_BASE_PATH}/` });
}

function angularOutput(angularJson: string): string {
  try {
    const config = JSON.parse(angularJson) as {
      defaultProject?: string;
      projects?: Record<string, { projectType?: string; architect?: { build?: { builder?: string; options?: { outputPath?: unknown } } } }>;
    };
    const projects = Object.entries(config.projects ?? {});
    const [name, project] =
      projects.find(([projectName]) => projectName === config.defaultProject) ??
      projects.find(([, candidate]) => candidate.projectType === "application") ??
      projects[0] ??
      ["app", {}];
    const build = project.architect?.build;
    const outputPath = build?.options?.outputPath;
    const applicationBuilder = /:application$/.test(build?.builder ?? "");
    if (outputPath && typeof outputPath === "object") {
      const { base, browser } = outputPath as { base?: string; browser?: string };
      return [base ?? `dist/${name}`, browser ?? "browser"].filter(Boolean).join("/");
    }
    const base = typeof outputPath === "string" ? outputPath : `dist/${name}`;
    return applicationBuilder ? `${base.replace(/\/+$/, "")}/browser` : base.replace(/\/+$/, "");
  } catch {
    return "dist";
  }
}

/** Create React App (`react-scripts build`): `build/`, built with `PUBLIC_URL=/app`. */
function createReactApp({ pkg }: FrameworkInput): NodeApp | null {
  if (!hasDependency(pkg, "react-scripts") || !/\breact-scripts\s+build\b/.test(script(pkg, "build"))) return null;
  return staticApp("Create React App", "build", { buildEnv: { PUBLIC_URL: APP_BASE_PATH } });
}

const VITE_CONFIGS = ["vite.config.ts", "vite.config.js", "vite.config.mjs", "vite.config.mts", "vite.config.cjs", "vite.config.cts"];
const VITE_FLAVOURS: Array<[dependency: string, label: string]> = [
  ["react", "React"],
  ["vue", "Vue"],
  ["svelte", "Svelte"],
  ["preact", "Preact"],
  ["solid-js", "Solid"],
  ["lit", "Lit"],
];

/**
 * Vite (`vite`, a build script, and `vite build` in it or a vite.config): `dist/` (or `outDir`),
 * built with `--base=/app/`.
 */
function vite(input: FrameworkInput): NodeApp | null {
  const { tree, pkg } = input;
  const build = script(pkg, "build");
  const config = readFirst(tree, VITE_CONFIGS);
  if (!hasDependency(pkg, "vite") || !build || !(/\bvite\s+build\b/.test(build) || config)) return null;
  const flavour = VITE_FLAVOURS.find(([dependency]) => hasDependency(pkg, dependency))?.[1];
  const output =
    stringOption(config?.text ?? "", "outDir") ?? /\bvite\s+build\b[^&|;]*--outDir[\s=]+([^\s&|;]+)/.exec(build)?.[1] ?? "dist";
  const warnings: string[] = [];
  const buildArgs = baseArgs(input, /^(?:npx\s+)?vite\s+build\b/, "vite build", `--base=${APP_BASE_PATH}/`, warnings);
  return staticApp(flavour ? `Vite (${flavour})` : "Vite", output.replace(/^\.\/+/, "").replace(/\/+$/, ""), { buildArgs, warnings });
}

/** NestJS (`@nestjs/core`): built with its build script, started with `start:prod` or `node dist/main`. */
function nestJs({ pkg }: FrameworkInput): NodeApp | null {
  if (!hasDependency(pkg, "@nestjs/core")) return null;
  const production = script(pkg, "start:prod").trim();
  return serverApp("NestJS", {
    start: /^node\s+[^\s&|;]+$/.test(production) ? production.split(/\s+/) : ["node", "dist/main"],
    fallbackBuild: "npx nest build",
  });
}

