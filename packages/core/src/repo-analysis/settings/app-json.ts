import type { SourceTree } from "../source-tree.js";
import type { Mention } from "./mention.js";

/** Heroku's `app.json`: `env` entries with `description`, `required`, `value`, `generator: "secret"`. */
export function fromAppJson(tree: SourceTree): Mention[] {
  const text = tree.read("app.json");
  if (text === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const env = (parsed as { env?: unknown } | null)?.env;
  if (env === null || typeof env !== "object" || Array.isArray(env)) return [];
  return Object.entries(env as Record<string, unknown>).map(([name, entry]): Mention => {
    if (typeof entry === "string") return { name, description: "", value: entry, source: "app.json" };
    const spec = (entry ?? {}) as { description?: unknown; required?: unknown; value?: unknown; generator?: unknown };
    const generate = spec.generator === "secret";
    const value = typeof spec.value === "string" ? spec.value : typeof spec.value === "number" ? String(spec.value) : null;
    // Heroku's default is required; a plain default or a generator fills it.
    const required = spec.required === false ? false : spec.required === true || generate ? true : undefined;
    return {
      name,
      description: typeof spec.description === "string" ? spec.description.trim() : "",
      value,
      required,
      generate,
      source: "app.json",
    };
  });
}

