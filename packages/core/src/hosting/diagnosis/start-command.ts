import type { SourceTree } from "../../repo-analysis/source-tree.js";

/** A start command the repository itself names, and where it was found. */
export interface RepositoryStartCommand {
  command: string[];
  /** For the person reading the diagnosis: `package.json's "start" script`, `the Procfile's web line`. */
  source: string;
}

/**
 * How the repository says it starts, for an image that has no start command: a Procfile's `web`
 * line, a package.json `start` script (run by `npm start`), or a package.json `main` file (run
 * by `node`). Null when it says nothing Reposite can use.
 */
export function repositoryStartCommand(tree: SourceTree | null): RepositoryStartCommand | null {
  if (!tree) return null;
  const procfile = tree.read("Procfile");
  const web = procfile ? /^web:\s*(.+)$/m.exec(procfile)?.[1]?.trim() : undefined;
  if (web) return { command: ["sh", "-c", web], source: "the Procfile's web line" };
  const manifest = readJson(tree.read("package.json"));
  const start = manifest?.scripts?.start;
  if (typeof start === "string" && start.trim() !== "") return { command: ["npm", "start"], source: `package.json's "start" script (${start.trim()})` };
  if (typeof manifest?.main === "string" && manifest.main.trim() !== "") return { command: ["node", manifest.main.trim()], source: `package.json's "main" file` };
  return null;
}

function readJson(text: string | null): { scripts?: Record<string, unknown>; main?: unknown } | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as { scripts?: Record<string, unknown>; main?: unknown }) : null;
  } catch {
    return null;
  }
}
