import type { SourceTree } from "../source-tree.js";
import { OPTIONAL_NOTE } from "./env-files.js";

/**
 * What the README says of each setting: optional (false) or required (true). Read from
 * - a line naming the setting that calls it optional (`- STRIPE_SECRET_KEY (optional): …`);
 * - a table with a "Required" column (`yes`/`no`, `✅`/`❌`, `true`/`false`);
 * - a heading that says "optional" (`### Optional settings`, `## Payments (optional)`): every
 *   setting named under it, up to the next heading of the same or a higher level;
 * - a sentence that calls a service optional (`Stripe is optional`): settings whose name starts with
 *   that service's name (`STRIPE_…`).
 */
export function readmeMarks(tree: SourceTree, names: string[]): Map<string, boolean> {
  const marks = new Map<string, boolean>();
  const readme = tree.paths().find((path) => /^readme(\.(md|markdown|rst|txt))?$/i.test(path));
  const text = readme ? tree.read(readme) : null;
  if (!text) return marks;
  const lines = text.split(/\r?\n/);
  const wordOf = (name: string) => new RegExp(`(^|[^A-Za-z0-9_])${name}([^A-Za-z0-9_]|$)`);

  let headings: Array<{ level: number; optional: boolean }> = [];
  let requiredColumn = -1;
  for (const line of lines) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      headings = [...headings.filter((open) => open.level < level), { level, optional: OPTIONAL_NOTE.test(heading[2]!) }];
      requiredColumn = -1;
      continue;
    }
    const cells = /^\s*\|/.test(line) ? line.split("|").slice(1, -1).map((cell) => cell.trim()) : null;
    if (cells && requiredColumn === -1 && cells.some((cell) => /^\**required\**\??$/i.test(cell))) {
      requiredColumn = cells.findIndex((cell) => /^\**required\**\??$/i.test(cell));
      continue;
    }
    if (!cells) requiredColumn = -1;
    const inOptionalSection = headings.some((open) => open.optional);
    for (const name of names) {
      if (!wordOf(name).test(line)) continue;
      const cell = cells && requiredColumn >= 0 ? cells[requiredColumn] ?? "" : null;
      if (cell !== null && /^(yes|y|true|✅|✔️?|x|required)$/i.test(cell.replace(/\*/g, ""))) marks.set(name, true);
      else if (cell !== null && /^(no|n|false|❌|✖️?|-|optional)$/i.test(cell.replace(/\*/g, ""))) marks.set(name, false);
      else if (OPTIONAL_NOTE.test(line) || inOptionalSection) marks.set(name, false);
    }
    // "Stripe is optional": settings named after the service.
    if (!cells && OPTIONAL_NOTE.test(line) && !/^\s*[-*]?\s*`?[A-Z][A-Z0-9_]+`?\s*[=:]/.test(line)) {
      for (const name of names) {
        const service = name.split("_")[0]!;
        if (service.length >= 4 && !marks.has(name) && new RegExp(`\\b${service}\\b`, "i").test(line)) marks.set(name, false);
      }
    }
  }
  return marks;
}
