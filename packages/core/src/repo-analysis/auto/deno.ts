import { DockerfileWriter } from "./dockerfile-writer.js";
import { firstExisting, type Detector } from "./types.js";

const MAIN_FILES = ["main.ts", "main.js", "main.mjs", "main.mts", "server.ts", "server.js", "mod.ts", "src/main.ts", "src/server.ts", "src/index.ts", "index.ts"];

/**
 * Deno (`deno.json` or `deno.jsonc`, as Railpack): its `start` task when it has one
 * (`deno task start`), else `deno run --allow-all` of main.ts (or main.js, server.ts…), its
 * dependencies cached at build (`deno cache`), run as the image's `deno` user.
 */
export const denoDetector: Detector = {
  family: "deno",
  detect({ tree, images, procfile }) {
    const configPath = firstExisting(tree, ["deno.json", "deno.jsonc"]);
    if (!configPath) return null;
    const tasks = readTasks(tree.read(configPath) ?? "");
    const main = firstExisting(tree, MAIN_FILES);
    const start = procfile?.start ?? (tasks.start ? "deno task start" : main ? `deno run --allow-all ${main}` : null);
    if (!start) {
      return { reason: `${configPath} has no start task and the repository no main.ts, so Reposite cannot tell what to run. Add a "start" task, or add a Dockerfile.` };
    }
    const cached = main ?? /\b([\w./-]+\.(?:ts|tsx|js|mjs))\b/.exec(tasks.start ?? "")?.[1] ?? null;
    const build = cached ? `deno cache ${cached}` : null;
    const port = denoPort(tree.paths().filter((path) => /\.(?:ts|tsx|js|mjs)$/.test(path) && !path.includes("/")).map((path) => tree.read(path) ?? ""));
    const warnings = port === 3000 ? [] : [`Deno.serve listens on ${port} here (it does not read PORT): set the setup's port to ${port}.`];
    const dockerfile = new DockerfileWriter()
      .from(images.deno)
      .env({ PORT: "3000" })
      .workdir("/app")
      .copy(".", "./");
    if (build) dockerfile.run(build);
    dockerfile.user("deno").expose(port).start(start);
    return { name: "Deno", install: null, build, start, dockerfile: dockerfile.toString(), warnings };
  },
};

/**
 * The port: PORT when the code reads it, the `port` passed to Deno.serve, else Deno.serve's
 * default, 8000.
 */
function denoPort(sources: string[]): number {
  const text = sources.join("\n");
  if (/Deno\.env\.get\(\s*["'`]PORT["'`]\s*\)/.test(text)) return 3000;
  const fixed = /\bport\s*:\s*(\d{2,5})\b/.exec(text)?.[1];
  if (fixed) return Number(fixed);
  return /\bDeno\.serve\s*\(/.test(text) ? 8000 : 3000;
}

/** The `tasks` of deno.json(c), comments and trailing commas allowed. */
function readTasks(text: string): Record<string, string> {
  const json = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'])\/\/.*$/gm, "$1").replace(/,(\s*[}\]])/g, "$1");
  try {
    const tasks = (JSON.parse(json) as { tasks?: Record<string, unknown> }).tasks ?? {};
    return Object.fromEntries(Object.entries(tasks).flatMap(([name, value]) => (typeof value === "string" ? [[name, value]] : value && typeof value === "object" && typeof (value as { command?: unknown }).command === "string" ? [[name, (value as { command: string }).command]] : [])));
  } catch {
    return {};
  }
}
