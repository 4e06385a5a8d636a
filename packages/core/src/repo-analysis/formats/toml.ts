import { parse } from "smol-toml";

/**
 * TOML 1.0, read by `smol-toml` (`pyproject.toml`, `Pipfile`, `fly.toml`, `Cargo.toml`, `netlify.toml`).
 */

export type TomlTable = { [key: string]: unknown };

/** The document's top table; null when the text is not TOML. */
export function readToml(text: string): TomlTable | null {
  try {
    return parse(text) as TomlTable;
  } catch {
    return null;
  }
}

/** `table.a.b` as a table; null when a step is missing or not a table. */
export function tomlTable(table: TomlTable | null, ...path: string[]): TomlTable | null {
  let current: unknown = table;
  for (const key of path) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return null;
    current = Object.hasOwn(current, key) ? (current as TomlTable)[key] : null;
  }
  return current !== null && typeof current === "object" && !Array.isArray(current) && !(current instanceof Date)
    ? (current as TomlTable)
    : null;
}

/** The strings of an array value (others left out); empty when it is not an array. */
export function tomlStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
