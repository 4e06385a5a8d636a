import { COMPOSE_FILES, composeAppServices, readComposeServices } from "../find-dockerfile.js";
import type { SourceTree } from "../source-tree.js";
import type { Mention } from "./mention.js";

/**
 * `environment:` of the compose services that are the app, in `- KEY=value` and `KEY: value` forms:
 * `KEY` alone, `${VAR}` and `${VAR:?err}` mean required, `${VAR:-default}` gives a default.
 */
export function fromCompose(tree: SourceTree): Mention[] {
  return COMPOSE_FILES.flatMap((file) => {
    const text = tree.read(file);
    if (text === null) return [];
    return composeAppServices(readComposeServices(text)).flatMap((service) => service.environment.map(composeMention));
  });
}

/** Compose interpolation: `${VAR}`, `$VAR`, `${VAR:-d}`, `${VAR-d}`, `${VAR:?e}`, `${VAR?e}`, `${VAR:+x}`; `$$` is a `$`. */
const INTERPOLATION = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

function composeMention(entry: { name: string; value: string | null }): Mention {
  if (entry.value === null) return { name: entry.name, description: "", value: null, source: "compose" };
  let fromOutside = false;
  let demanded = false;
  const value = entry.value.replace(INTERPOLATION, (whole, _name?: string, _colon?: string, op?: string, word?: string) => {
    if (whole === "$$") return "$";
    if (op === "-") return word ?? "";
    if (op === "+") return "";
    fromOutside = true; // `${VAR}`, `$VAR`, `${VAR:?err}`: the value comes from outside, with no default
    if (op === "?") demanded = true;
    return "";
  });
  if (demanded) return { name: entry.name, description: "", value: null, required: true, source: "compose" };
  return fromOutside
    ? { name: entry.name, description: "", value: null, source: "compose" }
    : { name: entry.name, description: "", value, source: "compose" };
}
