import { parseDocument, type ScalarTag } from "yaml";

/**
 * YAML, read by the `yaml` library (YAML 1.2 core schema, one document). Compose files use merge keys
 * (`<<: *defaults`), which are on, and Compose's own `!reset`/`!override` tags, which are read as the
 * value they mark. Anchors may be used at most 100 times, so a "billion laughs" file cannot blow up.
 */

export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

/** Compose's merge tags on scalars: `!reset null` is null, other values stay as written (on collections the tag is left aside). */
const composeTags: ScalarTag[] = ["!reset", "!override"].map((tag) => ({
  tag,
  identify: () => false,
  resolve: (value: string) => (value === "" || value === "~" || /^null$/i.test(value) ? null : value),
}));

/** The first document's value; null when the text is not YAML (an error, not a warning). */
export function readYaml(text: string): YamlValue | null {
  const document = parseDocument(text, { merge: true, uniqueKeys: false, customTags: composeTags, logLevel: "silent" });
  if (document.errors.length > 0) return null;
  try {
    return document.toJS({ maxAliasCount: 100 }) as YamlValue;
  } catch {
    return null; // too many aliases
  }
}

/** The value as a mapping; null when it is not one. */
export function asMap(value: YamlValue | undefined): { [key: string]: YamlValue } | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
}

/** A scalar as the text it stands for (`8080`, `true`); null for null, mappings and sequences. */
export function asText(value: YamlValue | undefined): string | null {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : null;
}
