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
    const dockerfile = new DockerfileWriter()
      .from(images.deno)
      .env({ PORT: "3000" })
      .workdir("/app")
      .copy(".", "./");
    if (build) dockerfile.run(build);
    dockerfile.user("deno").expose(3000).start(start);
    return { name: "Deno", install: null, build, start, dockerfile: dockerfile.toString(), warnings: [] };
  },
};

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
