import { isCompressible } from "../sites/cached-file.js";

/**
 * How a published site's files lie on disk for the edge, so nginx serves them by name with the
 * content type the snapshot gives. nginx chooses a content type by file extension only, so:
 *
 * - the home page (`/`) is `index.html` (nginx reaches it through its own `location = /`);
 * - a page (HTML at a path without an extension) is `pages<path>.html` (`/about` ->
 *   `pages/about.html`): `/about.html` is not a page;
 * - a file whose extension already means its content type is `files<path>` (`/sitemap.xml`), or
 *   `plain<path>` when it is text brotli does not make smaller (it then does not vary by encoding);
 * - any other file of a known type is `typed<path>.<ext>` (`/favicon.ico` as PNG -> `typed/favicon.ico.png`);
 * - the 404 page is `404.html`, outside all three, so it is only ever served as a 404.
 *
 * A file of a type not listed here is not written; Reposite serves it (see `edgeFileName`).
 */

/** The edge's file extensions and the exact `Content-Type` nginx sends for each (its `types` block). */
export const EDGE_FILE_TYPES: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  xml: "application/xml; charset=utf-8",
  json: "application/json; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
};

/** The home page's name in a site version's folder. */
export const EDGE_ROOT_PAGE_FILE = "index.html";

/** The 404 page's name in a site version's folder. */
export const EDGE_NOT_FOUND_FILE = "404.html";

const extensionOfType = new Map(Object.entries(EDGE_FILE_TYPES).map(([ext, type]) => [type.toLowerCase(), ext]));

/** `text/html;charset=UTF-8` and `text/html; charset=utf-8` are the same type. */
const normalType = (contentType: string) => contentType.toLowerCase().replace(/\s*;\s*/g, "; ").trim();

/** A path nginx reaches as it is: no dot segment, no backslash or NUL, no trailing slash. */
const SAFE_PATH = /^\/(?:[^/\\\0]+\/)*[^/\\\0]*$/;

/**
 * The file name (relative to a site version's folder) of the published file at `path`, or null
 * when the edge leaves it to Reposite (a type nginx would send differently, an odd path).
 */
export function edgeFileName(path: string, contentType: string, compressible = true): string | null {
  const ext = extensionOfType.get(normalType(contentType));
  if (!ext || !SAFE_PATH.test(path) || path.split("/").some((segment) => segment === "." || segment === "..")) return null;
  if (path === "/404") return ext === "html" ? EDGE_NOT_FOUND_FILE : null;
  if (path === "/") return ext === "html" ? EDGE_ROOT_PAGE_FILE : null;
  const last = path.slice(path.lastIndexOf("/") + 1);
  const dot = last.lastIndexOf(".");
  const own = dot > 0 ? last.slice(dot + 1).toLowerCase() : "";
  if (ext === "html" && !own) return `pages${path}.html`;
  if (own && EDGE_FILE_TYPES[own] && normalType(EDGE_FILE_TYPES[own]) === normalType(contentType) && path.endsWith(`.${own}`)) {
    return isCompressible(contentType) && !compressible ? `plain${path}` : `files${path}`;
  }
  return `typed${path}.${ext}`;
}
