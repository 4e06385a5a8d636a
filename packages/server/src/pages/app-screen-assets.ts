import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { RepositeError } from "@reposite/core";
import { APP_SCREEN_SCRIPT, APP_SCREEN_STYLESHEET } from "./app-screen-script.js";

const require = createRequire(import.meta.url);

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/** What /account/assets serves: the installed xterm.js (never a CDN) and the screen's own script and styles. */
const ASSETS: Record<string, { type: string; read: () => Promise<string> }> = {
  "xterm.mjs": { type: JS, read: () => readFile(require.resolve("@xterm/xterm/lib/xterm.mjs"), "utf8") },
  "xterm.css": { type: CSS, read: () => readFile(require.resolve("@xterm/xterm/css/xterm.css"), "utf8") },
  "addon-fit.mjs": { type: JS, read: () => readFile(require.resolve("@xterm/addon-fit/lib/addon-fit.mjs"), "utf8") },
  "app-screen.js": { type: JS, read: async () => APP_SCREEN_SCRIPT },
  "app-screen.css": { type: CSS, read: async () => APP_SCREEN_STYLESHEET },
};

/** Read once, then kept: they change only with the installed packages. */
const cache = new Map<string, Promise<string>>();

/** One asset as a response, or `404` for a name not in the list (no path is ever read from the request). */
export async function appScreenAsset(name: string): Promise<Response> {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name]! : null;
  if (!asset) throw new RepositeError(404, "There is nothing at this address.", "not_found");
  let text = cache.get(name);
  if (!text) {
    text = asset.read();
    cache.set(name, text);
    text.catch(() => cache.delete(name));
  }
  // The bundles name source maps that are not served; without the comment devtools do not ask.
  const body = (await text).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
  return new Response(body, {
    headers: { "content-type": asset.type, "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" },
  });
}
