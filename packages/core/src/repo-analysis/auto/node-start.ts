import type { SourceTree } from "../source-tree.js";
import { execArgs } from "./dockerfile-writer.js";
import { firstExisting, stripJsComments, type PackageJson } from "./types.js";

/**
 * Start commands checked against the build, as a person deploying the app by hand would:
 * - steps of `start` that build (`tsc && node dist/index.js`) belong to the build: after the build
 *   the dev dependencies that run them are pruned, so run at start they crash;
 * - a development server (`vite`, `browser-sync`, `nodemon`…) is no way to serve an app;
 * - `main` is the server only when it is one (a library's `main` starts nothing).
 */

/** Tools that build: a start step running one is moved to the build. */
const BUILD_STEP = /^(?:npx\s+)?(?:tsc|babel|webpack(?!\s+(?:serve|dev))\b|esbuild|rollup|tsup|swc|vite\s+build|prisma\s+generate|next\s+build|nest\s+build|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?build(?::[\w-]+)?)(?:\s|$)/;

/** Development and preview servers: never the way a deployed app is served. */
export const DEV_SERVER =
  /^(?:npx\s+)?(?:vite(?:\s+(?:dev|serve|preview))?|astro\s+(?:dev|preview)|ng\s+serve|react-scripts\s+start|next\s+dev|nuxt\s+(?:dev|preview)|nuxi\s+(?:dev|preview)|browser-sync|live-server|lite-server|webpack-dev-server|webpack\s+(?:serve|dev)|parcel(?!\s+build)|gulp(?:\s+(?:serve|watch|default))?|grunt(?:\s+(?:serve|watch))?|http-server|serve|sirv|five-server|vue-cli-service\s+serve|eleventy\s+--serve|docusaurus\s+start|gatsby\s+develop)(?:\s|$)/;

/** Packages whose use in a start file makes it a development server. */
const DEV_SERVER_PACKAGES = /["'`/](?:browser-sync|live-server|webpack-dev-server|lite-server)["'`/]/;

/** Watchers that restart a program on change: in production the program itself runs. */
const WATCHER = /^(?:npx\s+)?(?:nodemon|node-dev|supervisor)\s+(?:--?\S+\s+)*?([^\s-][^\s]*\.(?:c|m)?js)\s*$/;

/** What the start script asks for, once checked. */
export type StartPlan =
  | { kind: "server"; start: string[] | null; shell: string | null; buildSteps: string[]; devTools: string[] }
  | { kind: "dev-server"; command: string }
  | { kind: "none" };

/**
 * The production start of `pkg`: its `start` script split into build steps and the command that
 * serves; `{ kind: "dev-server" }` when what serves is a development server.
 */
export function checkStartScript(tree: SourceTree, pkg: PackageJson): StartPlan {
  const script = pkg.scripts?.start?.trim();
  if (!script) return { kind: "none" };
  const steps = script.split(/\s*&&\s*/).map(withoutEnvPrefix);
  const serving = steps.pop() ?? "";
  const buildSteps = steps.filter((step) => BUILD_STEP.test(step));
  const resolved = resolveScript(pkg, serving);
  if (DEV_SERVER.test(resolved) || startsDevServerFile(tree, resolved)) return { kind: "dev-server", command: resolved };
  const watched = WATCHER.exec(resolved)?.[1];
  const command = watched ? `node ${watched}` : resolved;
  const args = execArgs(command);
  const devTools = [...steps, command].map(toolOf).filter((tool) => tool && pkg.devDependencies?.[tool] && !pkg.dependencies?.[tool]);
  // Non-build steps before the server (migrations, say) stay at start.
  const otherSteps = steps.filter((step) => !BUILD_STEP.test(step));
  if (otherSteps.length > 0) return { kind: "server", start: null, shell: [...otherSteps, command].join(" && "), buildSteps, devTools };
  if (args?.[0] === "node") return { kind: "server", start: args, shell: null, buildSteps, devTools };
  // Anything else runs through the package manager's `start`, unless build steps had to leave it.
  return buildSteps.length > 0 || watched
    ? { kind: "server", start: args, shell: args ? null : command, buildSteps, devTools }
    : { kind: "server", start: null, shell: null, buildSteps, devTools };
}

/** `npm run serve` → the `serve` script's command (one level), so what it runs is checked. */
function resolveScript(pkg: PackageJson, step: string): string {
  const name = /^(?:npm\s+run|pnpm(?:\s+run)?|yarn(?:\s+run)?|bun\s+run)\s+([\w:-]+)\s*$/.exec(step)?.[1];
  const target = name ? pkg.scripts?.[name]?.trim() : undefined;
  return target && !target.includes("&&") ? withoutEnvPrefix(target) : step;
}

function withoutEnvPrefix(step: string): string {
  return step.trim().replace(/^(?:cross-env\s+)?(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+/, "");
}

function toolOf(step: string): string {
  const [first = "", second = ""] = step.split(/\s+/);
  return first === "npx" ? second : first;
}

/** `node scripts/start.js` where that file runs browser-sync, say. */
function startsDevServerFile(tree: SourceTree, command: string): boolean {
  const file = /^node\s+([^\s]+\.(?:c|m)?js)$/.exec(command)?.[1];
  return file ? DEV_SERVER_PACKAGES.test(tree.read(file.replace(/^\.\//, "")) ?? "") : false;
}

/** Source that starts listening for HTTP (a framework's `listen`, `serve`, `createServer`). */
const LISTENS = /\.listen\s*\(|\bcreateServer\s*\(|\bserve\s*\(\s*\{|\bBun\.serve\s*\(|\bDeno\.serve\s*\(|\bserve\s*\(\s*app\b|\bexport\s+default\s+\{[^}]*\bfetch\b/;

/** Entry files tried when package.json has no start script. */
const ENTRY_FILES = ["index.js", "index.mjs", "server.js", "server.mjs", "app.js", "app.mjs", "main.js", "main.mjs", "src/index.js", "src/server.js", "src/app.js"];

/**
 * The file to run with `node` when there is no start script: `main` when it is the server (it
 * listens), else the first entry file that listens, else `main` or the first entry file that
 * exists (a program that may listen through code Reposite does not follow).
 */
export function serverEntry(tree: SourceTree, pkg: PackageJson): string | null {
  const main = pkg.main?.replace(/^\.\//, "");
  const candidates = [...new Set([...(main && tree.has(main) ? [main] : []), ...ENTRY_FILES.filter((path) => tree.has(path))])];
  return candidates.find((path) => LISTENS.test(stripJsComments(tree.read(path) ?? ""))) ?? candidates[0] ?? null;
}

/** Folders a site's built files are committed in, most specific first. */
const COMMITTED_OUTPUT = ["dist", "build", "out", "_site", "public", "www", "docs"];

/** A folder of built files committed with the source (`dist/index.html`), or null. */
export function committedOutput(tree: SourceTree): string | null {
  const index = firstExisting(tree, COMMITTED_OUTPUT.map((folder) => `${folder}/index.html`));
  return index ? index.slice(0, index.indexOf("/")) : null;
}
