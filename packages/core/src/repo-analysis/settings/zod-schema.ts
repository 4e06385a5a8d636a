import type { CodeFile } from "./code-files.js";
import type { Mention } from "./mention.js";

const ZOD_ENTRY = /(?:^|[{,])[ \t]*["']?([A-Z][A-Z0-9_]*)["']?\s*:\s*z\s*\./gm;

/**
 * zod env schemas (t3-env's `createEnv`, or a `z.object` parsed from `process.env`/`import.meta.env`)
 * in any code file: entries `KEY: z.…` in upper case; `.optional()`, `.nullish()`, `.default(…)`,
 * `.catch(…)` make them optional, `.default("literal")` gives a default, `.describe("…")` a
 * description. Read with patterns, not a TypeScript parser: only literal defaults are understood.
 */
export function fromZodSchemas(files: CodeFile[]): Mention[] {
  return files.flatMap((file) => fromZodSchema(file.text));
}

function fromZodSchema(text: string): Mention[] {
  if (!/\bz\s*\./.test(text) || !/process\.env|import\.meta\.env|createEnv/.test(text)) return [];
  const mentions: Mention[] = [];
  for (const match of text.matchAll(ZOD_ENTRY)) {
    const start = match.index + match[0].lastIndexOf("z");
    const chain = readExpression(text, start);
    const description = stringArgument(chain, "describe") ?? commentAbove(text, match.index);
    const defaultValue = literalArgument(chain, "default");
    const optional = /\.\s*(optional|nullish|default|catch)\s*\(/.test(chain);
    mentions.push({ name: match[1]!, description, value: defaultValue, required: !optional, source: "schema" });
  }
  return mentions;
}

/** The expression starting at `start`, up to a `,` or closing bracket at its own depth. */
function readExpression(text: string, start: number): string {
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'" || ch === "`") {
      quote = ch;
    } else if ("([{".includes(ch)) {
      depth++;
    } else if (")]}".includes(ch)) {
      if (depth === 0) return text.slice(start, i);
      depth--;
    } else if (ch === "," && depth === 0) {
      return text.slice(start, i);
    }
  }
  return text.slice(start);
}

function stringArgument(chain: string, method: string): string | null {
  const match = new RegExp(
    `\\.\\s*${method}\\(\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|'((?:[^'\\\\]|\\\\.)*)'|\`([^\`$]*)\`)\\s*\\)`
  ).exec(chain);
  return match ? match[1] ?? match[2] ?? match[3] ?? "" : null;
}

function literalArgument(chain: string, method: string): string | null {
  const text = stringArgument(chain, method);
  if (text !== null) return text;
  const match = new RegExp(`\\.\\s*${method}\\(\\s*(-?\\d+(?:\\.\\d+)?|true|false)\\s*\\)`).exec(chain);
  return match ? match[1]! : null;
}

/** `// lines` or a `/* … *\/` block right above the entry. */
function commentAbove(text: string, index: number): string {
  const before = text.slice(0, index).replace(/\s+$/, "");
  const block = /\/\*+([\s\S]*?)\*\/$/.exec(before);
  if (block) {
    return block[1]!
      .split("\n")
      .map((line) => line.replace(/^\s*\*?\s?/, "").trim())
      .filter(Boolean)
      .join(" ");
  }
  const lines: string[] = [];
  for (const line of before.split("\n").reverse()) {
    const comment = /^\s*\/\/\s?(.*)$/.exec(line);
    if (!comment) break;
    lines.unshift(comment[1]!.trim());
  }
  return lines.join(" ");
}

