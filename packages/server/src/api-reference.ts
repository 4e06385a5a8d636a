import { readFile } from "node:fs/promises";

/**
 * Where the API reference lies: beside the built server (the build copies it into `dist/`), or in
 * the repository's `docs/` when the server runs from a checkout. This file sits at the package's
 * top level, as `dist/index.js` does, so the same relative addresses hold in both.
 */
const REFERENCE_FILES = [new URL("./http-api.md", import.meta.url), new URL("../../../docs/http-api.md", import.meta.url)];

let reference: Promise<string | null> | undefined;

/** docs/http-api.md as text, read once; null when this copy of the server has none. */
export function apiReference(): Promise<string | null> {
  return (reference ??= (async () => {
    for (const file of REFERENCE_FILES) {
      const text = await readFile(file, "utf8").catch(() => null);
      if (text !== null) return text;
    }
    return null;
  })());
}
