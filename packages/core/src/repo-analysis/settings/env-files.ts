import { readDotenv } from "../formats/dotenv.js";
import type { SourceTree } from "../source-tree.js";
import type { Mention } from "./mention.js";

export const EXAMPLE_ENV_FILES = [
  ".env.example",
  ".env.sample",
  ".env.template",
  ".env.dist",
  "example.env",
  ".env.local.example",
  ".env.production.example",
];

/** Words that make a setting optional, in a comment or in the README. */
export const OPTIONAL_NOTE =
  /\boptional(ly)?\b|\bnot required\b|\bif (you )?(want|need|use|using|wish)\b|\bleave (it )?(empty|blank)\b|\bcan be (left )?(empty|blank)\b/i;
const REQUIRED_NOTE = /\brequired\b/i;

/**
 * Example env files and `.env.schema`. The comment lines right above a key describe it (else its
 * inline ` # comment`); a group of keys with no blank line between shares the marks of the comment
 * above the group (`# Optional: Stripe` over two Stripe keys); a comment block followed by a blank line
 * heads a section, optional when it says so (`# --- Optional ---`), until the next such heading; a
 * commented-out `# KEY=value` is an optional setting. `.env.schema` adds varlock-style `@required`,
 * `@optional` and `@sensitive` marks.
 */
export function fromEnvFiles(tree: SourceTree): Mention[] {
  return [...EXAMPLE_ENV_FILES.flatMap((file) => fromEnvFile(tree, file, false)), ...fromEnvFile(tree, ".env.schema", true)];
}

function fromEnvFile(tree: SourceTree, file: string, schema: boolean): Mention[] {
  const text = tree.read(file);
  if (text === null) return [];
  const entries = readDotenv(text);
  const sections = sectionHeadings(text);
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const mentions: Mention[] = [];
  let groupMark: boolean | undefined;
  let previousLine = -2;
  for (const entry of entries) {
    const line = lineOf(lines, entry.name, entry.commented, previousLine + 1);
    // Keys on consecutive lines (or under one comment) form a group: its first comment's mark holds for all.
    if (entry.comments.length > 0 || line !== previousLine + 1) groupMark = noteMark(entry.comments.join(" "), schema);
    previousLine = line;
    const section = sections.filter((heading) => heading.line < line).at(-1);
    const own = noteMark(entry.comments.join(" ") || entry.inlineComment, schema);
    const required = entry.commented ? false : own ?? groupMark ?? (section?.optional ? false : undefined);
    mentions.push(mentionFrom(entry.name, entry.value, entry.comments, entry.inlineComment, schema, required));
  }
  return mentions;
}

/** Comment blocks followed by a blank line: headings of what follows. */
function sectionHeadings(text: string): Array<{ line: number; optional: boolean }> {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const headings: Array<{ line: number; optional: boolean }> = [];
  let block: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line.startsWith("#") && !/^#+\s*(export\s+)?[A-Z][A-Z0-9_]*=/.test(line)) {
      block.push(line);
      continue;
    }
    if (line === "" && block.length > 0) {
      const words = block.join(" ");
      headings.push({ line: index, optional: OPTIONAL_NOTE.test(words) && !/\brequired\b/i.test(words.replace(/not required/gi, "")) });
    }
    block = [];
  }
  return headings;
}

function lineOf(lines: string[], name: string, commented: boolean, from: number): number {
  const pattern = commented
    ? new RegExp(`^\\s*#+\\s*(export\\s+)?${name}=`)
    : new RegExp(`^\\s*(export\\s+)?${name}\\s*[=:]`);
  for (let index = Math.max(0, from); index < lines.length; index++) if (pattern.test(lines[index]!)) return index;
  return from;
}

/** false when the note calls the setting optional, true when it calls it required, else undefined. */
function noteMark(text: string, schema: boolean): boolean | undefined {
  const marks = new Set([...text.matchAll(/@([a-zA-Z]+)/g)].map((match) => match[1]!.toLowerCase()));
  if (schema && marks.has("optional")) return false;
  if (schema && marks.has("required")) return true;
  if (OPTIONAL_NOTE.test(text)) return false;
  if (REQUIRED_NOTE.test(text) && !/\bnot\b/i.test(text)) return true;
  return undefined;
}

function mentionFrom(
  name: string,
  value: string,
  comments: string[],
  inlineComment: string,
  schema: boolean,
  required: boolean | undefined
): Mention {
  const text = comments.filter((line) => /[A-Za-z0-9]/.test(line)).join(" ") || inlineComment;
  const marks = new Set([...text.matchAll(/@([a-zA-Z]+)/g)].map((match) => match[1]!.toLowerCase()));
  const description = schema
    ? text
        .replace(/@[a-zA-Z]+(=\S+)?/g, "")
        .replace(/\s+/g, " ")
        .trim()
    : text;
  return {
    name,
    description,
    value,
    required,
    sensitive: schema && marks.has("sensitive"),
    source: schema ? "env-schema" : "env-file",
  };
}
