import { parse } from "dotenv";

/**
 * Env files (`.env.example`, `.env.schema`…). Values are read by `dotenv` itself (quotes, multi-line
 * double-quoted values, `export`, inline comments), so a value means what it means to the app. What
 * `dotenv` drops and the settings readers need is kept here: the comment lines right above a key,
 * its inline comment, and commented-out assignments (`# KEY=value`, an optional setting).
 */

export interface DotenvEntry {
  name: string;
  /** The value as `dotenv` reads it. */
  value: string;
  /** Comment lines right above the key (no blank line between), without their `#`. */
  comments: string[];
  /** The ` # comment` after the value on the same line. */
  inlineComment: string;
  /** Written as a comment (`# KEY=value`): shown as an example, not set. */
  commented: boolean;
}

const ASSIGNMENT = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]/;
const COMMENTED_ASSIGNMENT = /^#+\s*(?:export\s+)?([A-Z][A-Z0-9_]*)=(.*)$/;

export function readDotenv(text: string): DotenvEntry[] {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const entries: DotenvEntry[] = [];
  let comments: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === "") {
      comments = [];
      continue;
    }
    if (line.startsWith("#")) {
      const commented = COMMENTED_ASSIGNMENT.exec(line);
      if (commented) {
        const source = `${commented[1]}=${commented[2]}`;
        entries.push({ ...entryOf(commented[1]!, source), comments, commented: true });
        comments = [];
      } else {
        comments.push(line.replace(/^#+\s?/, "").trim());
      }
      continue;
    }
    const match = ASSIGNMENT.exec(line);
    if (!match) {
      comments = [];
      continue;
    }
    const last = lastLineOf(lines, index, line.slice(match[0].length).trimStart());
    const source = lines.slice(index, last + 1).join("\n");
    index = last;
    entries.push({ ...entryOf(match[1]!, source), comments, commented: false });
    comments = [];
  }
  return entries;
}

/** The line a value ends on: a double-quoted value may run over several lines. */
function lastLineOf(lines: string[], index: number, value: string): number {
  if (!value.startsWith('"') || /^"(?:[^"\\]|\\.)*"/.test(value)) return index;
  for (let next = index + 1; next < lines.length; next++) if (/(^|[^\\])"/.test(lines[next]!)) return next;
  return index;
}

function entryOf(name: string, source: string): Pick<DotenvEntry, "name" | "value" | "inlineComment"> {
  const value = parse(source)[name] ?? "";
  return { name, value, inlineComment: inlineComment(source) };
}

/** What follows ` #` after the value (after the closing quote of a quoted one). */
function inlineComment(source: string): string {
  const rest = source.slice(source.search(/[=:]/) + 1).trimStart();
  const quote = rest[0];
  let after = rest;
  if (quote === '"' || quote === "'" || quote === "`") {
    const end = rest.indexOf(quote, 1);
    after = end === -1 ? "" : rest.slice(end + 1);
  } else {
    const hash = /(^|\s)#/.exec(rest);
    after = hash ? rest.slice(hash.index) : "";
  }
  return /^\s*#\s?(.*)$/s.exec(after)?.[1]?.trim() ?? "";
}
