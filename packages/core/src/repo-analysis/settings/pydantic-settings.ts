import type { CodeFile } from "./code-files.js";
import type { Mention } from "./mention.js";

/**
 * pydantic `BaseSettings` classes: each field is a setting named after the field in upper case (names
 * are matched without regard to case), with the class's `env_prefix` (`model_config =
 * SettingsConfigDict(env_prefix="APP_")` or `class Config: env_prefix = "APP_"`) and a field's
 * `alias`/`validation_alias`/`env` taking the name's place. A field without a default is required;
 * `= value`, `Field(default…)`, `Field(value, …)` and `Optional[…] = None` make it optional.
 */
export function fromPydanticSettings(files: CodeFile[]): Mention[] {
  return files.filter((file) => /\.py$/.test(file.path) && /\bBaseSettings\b/.test(file.text)).flatMap((file) => settingsIn(file.text));
}

function settingsIn(text: string): Mention[] {
  const mentions: Mention[] = [];
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    if (!/^class\s+\w+\s*\([^)]*\bBaseSettings\b[^)]*\)\s*:/.test(lines[index]!)) continue;
    const body: string[] = [];
    for (index++; index < lines.length && (/^\s/.test(lines[index]!) || lines[index]!.trim() === ""); index++) body.push(lines[index]!);
    index--;
    const prefix = /env_prefix\s*=\s*["']([^"']*)["']/.exec(body.join("\n"))?.[1] ?? "";
    for (let at = 0; at < body.length; at++) {
      // A type or default over several lines (`Annotated[\n …\n] = []`) is read as one line.
      let line = withoutComment(body[at]!);
      while (depth(line) > 0 && at + 1 < body.length) line += ` ${withoutComment(body[++at]!).trim()}`;
      const field = /^ {4}([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^=#]+?)\s*(?:=\s*(.+?))?\s*(?:#.*)?$/.exec(line);
      if (!field || field[1] === "model_config") continue;
      const [, fieldName, type, assigned] = field;
      const alias = /\b(?:validation_alias|alias|env)\s*=\s*["']([^"']+)["']/.exec(assigned ?? "")?.[1];
      const name = (alias ?? `${prefix}${fieldName}`).toUpperCase();
      let required = assigned === undefined;
      let value: string | null = null;
      const fieldCall = /^Field\(\s*(.*)\)$/.exec(assigned ?? "");
      if (fieldCall) {
        const first = fieldCall[1]!.split(",")[0]!.trim();
        const hasDefault = /\bdefault(_factory)?\s*=/.test(fieldCall[1]!) || (first !== "" && first !== "..." && !/=/.test(first));
        required = !hasDefault;
        value = hasDefault ? literal(/\bdefault\s*=\s*([^,)]+)/.exec(fieldCall[1]!)?.[1] ?? first) : null;
      } else if (assigned !== undefined) {
        value = literal(assigned);
      }
      if (/^Optional\[|\|\s*None$/.test(type!.trim()) && assigned === undefined) required = true; // pydantic v2: Optional without default is still required
      const description = /\bdescription\s*=\s*["']([^"']*)["']/.exec(assigned ?? "")?.[1] ?? "";
      mentions.push({ name, description, value, required, source: "schema" });
    }
  }
  return mentions;
}

/** Open brackets not yet closed on the line. */
function depth(line: string): number {
  return (line.match(/[[({]/g)?.length ?? 0) - (line.match(/[\])}]/g)?.length ?? 0);
}

/** The line without a trailing `# comment` (a `#` inside quotes stays). */
function withoutComment(line: string): string {
  return line.replace(/\s+#(?=(?:[^"']|"[^"]*"|'[^']*')*$).*$/, "").replace(/^\s*#.*$/, "");
}

function literal(text: string): string | null {
  const trimmed = text.trim();
  const quoted = /^["'](.*)["']$/.exec(trimmed);
  if (quoted) return quoted[1]!;
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) return trimmed;
  if (trimmed === "True" || trimmed === "False") return trimmed.toLowerCase();
  return null;
}
