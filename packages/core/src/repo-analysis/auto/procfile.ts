import type { SourceTree } from "../source-tree.js";

/** The commands of a Procfile that matter to a web app. */
export interface Procfile {
  /** The `web:` command (Railpack's order: `web`, else `worker`, else the first process). */
  start: string;
  /** The process type the start command came from. */
  type: string;
  /** The `release:` command (migrations), run before the app starts, or null. */
  release: string | null;
}

/** `name: command` lines; process names are letters, digits, `_` and `-` (a Procfile is not YAML). */
const LINE = /^([A-Za-z0-9_-]+):\s*(.*)$/;

/**
 * The repository's Procfile (Heroku's, also read by Railpack and Dokku), or null without one or
 * with no process in it. Railpack takes its `web:` command first as the start command, whatever
 * the language; Reposite does the same, and runs `release:` before it at start.
 */
export function readProcfile(tree: SourceTree): Procfile | null {
  const text = tree.read("Procfile");
  if (text === null) return null;
  const entries = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => LINE.exec(line))
    .filter((match): match is RegExpExecArray => match !== null && (match[2] ?? "").trim() !== "")
    .map((match) => ({ type: match[1]!, command: match[2]!.trim() }));
  const chosen = entries.find((entry) => entry.type === "web") ?? entries.find((entry) => entry.type === "worker") ?? entries.find((entry) => entry.type !== "release");
  if (!chosen) return null;
  return { start: chosen.command, type: chosen.type, release: entries.find((entry) => entry.type === "release")?.command ?? null };
}

/** The release command, then the start command, as one shell line. */
export function procfileStart(procfile: Procfile): string {
  return procfile.release ? `${procfile.release} && ${procfile.start}` : procfile.start;
}
