import type { DockerfileWriter } from "./dockerfile-writer.js";

/**
 * How built static sites are served.
 *
 * Decision: a small Node program that Reposite adds to the build context (`.reposite/serve.mjs`)
 * and runs on the `node` base image. Busybox httpd was the smaller choice, but it cannot answer a
 * deep link of a single-page app with index.html and status 200 (its `E404:` page keeps status
 * 404), and its content types are few. nginx or Caddy would need a registry image or packages the
 * build cannot download. The program needs nothing but Node's standard library, so it works with
 * any `node` image, including an operator's mirror.
 */

/** Where the server program sits in the build context. */
export const STATIC_SERVER_PATH = ".reposite/serve.mjs";

/** Where it sits in the image, outside the served folder. */
export const STATIC_SERVER_IN_IMAGE = "/opt/reposite/serve.mjs";

/** Where the site's files sit in the image. */
export const STATIC_SITE_ROOT = "/app";

/**
 * Writes the final stage that serves a static folder: `from` names the build stage holding it
 * (omit it to copy straight from the repository), `folder` is the folder in that stage or repository.
 */
export function writeStaticStage(dockerfile: DockerfileWriter, options: { image: string; folder: string; from?: string }): void {
  dockerfile
    .from(options.image)
    .env({ NODE_ENV: "production", PORT: "3000" })
    .workdir(STATIC_SITE_ROOT)
    .copy(STATIC_SERVER_PATH, STATIC_SERVER_IN_IMAGE)
    .copy(options.from ? `/app/${normalizeFolder(options.folder)}` : normalizeFolder(options.folder), "./", options.from ? { from: options.from } : {})
    .user("node")
    .expose(3000)
    .cmd(["node", STATIC_SERVER_IN_IMAGE, STATIC_SITE_ROOT]);
}

function normalizeFolder(folder: string): string {
  const trimmed = folder.replace(/^\.\/+/, "").replace(/\/+$/, "");
  return trimmed === "" ? "." : trimmed;
}

/**
 * The server program. Answers:
 * - `GET /health` → 200 `ok`;
 * - a file → the file, with its content type, `Last-Modified`/`ETag` and 304 on a match;
 * - `/docs` where `docs.html` or `docs/index.html` exists → that page (a folder without the trailing
 *   slash is redirected with a relative `Location`, which stays under `/app/` behind the proxy);
 * - any other address without a file extension → `404.html` with 404 when the site has one
 *   (multi-page sites such as Astro or a Next.js export), else `index.html` with 200 (the fallback
 *   single-page apps need for deep links);
 * - a missing file with an extension → 404, so a missing script never comes back as HTML;
 * - paths with a segment starting with a dot (`.git`, `.env`, `.reposite`) → 404, except `.well-known`.
 * It listens on `0.0.0.0:$PORT` (default 3000) and stops cleanly on SIGTERM.
 */
export const STATIC_SERVER_SOURCE = String.raw`// Reposite's static file server. Usage: node serve.mjs <folder>. Listens on 0.0.0.0:$PORT (default 3000).
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, resolve, sep } from "node:path";

const root = resolve(process.argv[2] ?? ".");
const port = Number(process.env.PORT) || 3000;
const host = process.env.HOST || "0.0.0.0";

const TYPES = {
  ".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8", ".cjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8", ".map": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8", ".txt": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8", ".csv": "text/csv; charset=utf-8", ".xml": "application/xml; charset=utf-8",
  ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
  ".webp": "image/webp", ".avif": "image/avif", ".ico": "image/x-icon", ".bmp": "image/bmp",
  ".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf", ".otf": "font/otf", ".eot": "application/vnd.ms-fontobject",
  ".mp4": "video/mp4", ".webm": "video/webm", ".ogg": "audio/ogg", ".mp3": "audio/mpeg", ".wav": "audio/wav",
  ".pdf": "application/pdf", ".wasm": "application/wasm", ".zip": "application/zip", ".gz": "application/gzip",
};
const IMMUTABLE = /\/(assets|_astro|_next\/static|_app\/immutable|static\/js|static\/css)\//;

async function fileAt(relative) {
  const path = join(root, relative);
  if (path !== root && !path.startsWith(root + sep)) return null;
  try {
    const info = await stat(path);
    return info.isFile() ? { path, info } : null;
  } catch {
    return null;
  }
}

async function isFolder(relative) {
  try {
    return (await stat(join(root, relative))).isDirectory();
  } catch {
    return false;
  }
}

async function resolvePath(pathname) {
  if (pathname.endsWith("/")) {
    const index = await fileAt(pathname + "index.html");
    if (index) return { ...index, status: 200 };
  } else {
    const exact = await fileAt(pathname);
    if (exact) return { ...exact, status: 200 };
    if (!extname(pathname)) {
      if (await fileAt(pathname + "/index.html")) return { redirect: pathname.slice(pathname.lastIndexOf("/") + 1) + "/" };
      const page = await fileAt(pathname + ".html");
      if (page) return { ...page, status: 200 };
    }
  }
  if (extname(pathname) && !/\.html?$/.test(pathname)) return null;
  const notFound = await fileAt("/404.html");
  if (notFound) return { ...notFound, status: 404 };
  const index = await fileAt("/index.html");
  return index ? { ...index, status: 200 } : null;
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": Buffer.byteLength(body), ...headers });
  res.end(res.req.method === "HEAD" ? undefined : body);
}

const server = createServer(async (req, res) => {
  try {
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "Method Not Allowed\n", { Allow: "GET, HEAD" });
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/health") return send(res, 200, "ok\n", { "Cache-Control": "no-store" });
    let pathname;
    try {
      pathname = decodeURIComponent(url.pathname);
    } catch {
      return send(res, 400, "Bad Request\n");
    }
    if (pathname.includes("\0") || pathname.split("/").some((part) => part.startsWith(".") && part !== ".well-known")) {
      return send(res, 404, "Not Found\n");
    }
    if (!(await isFolder("/"))) return send(res, 500, "Site folder missing\n");
    const found = await resolvePath(pathname);
    if (!found) return send(res, 404, "Not Found\n");
    if (found.redirect) return send(res, 301, "Moved Permanently\n", { Location: found.redirect + url.search });
    const { path, info, status } = found;
    const type = TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
    const etag = 'W/"' + info.size.toString(16) + "-" + Math.floor(info.mtimeMs).toString(16) + '"';
    const headers = {
      "Content-Type": type,
      "Last-Modified": info.mtime.toUTCString(),
      ETag: etag,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": type.startsWith("text/html") ? "no-cache" : IMMUTABLE.test(pathname) ? "public, max-age=31536000, immutable" : "public, max-age=3600",
    };
    if (status === 200 && (req.headers["if-none-match"] === etag || (!req.headers["if-none-match"] && req.headers["if-modified-since"] && Date.parse(req.headers["if-modified-since"]) >= Math.floor(info.mtimeMs / 1000) * 1000))) {
      res.writeHead(304, headers);
      return res.end();
    }
    res.writeHead(status, { ...headers, "Content-Length": info.size });
    if (req.method === "HEAD") return res.end();
    createReadStream(path).on("error", () => res.destroy()).pipe(res);
  } catch (error) {
    console.error(error);
    if (!res.headersSent) send(res, 500, "Internal Server Error\n");
    else res.destroy();
  }
});

server.listen(port, host, () => console.log("Serving " + root + " on http://" + host + ":" + port));
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 5000).unref();
  });
}
`;

/** The context files every static-site plan adds. */
export function staticServerFiles(): Record<string, string> {
  return { [STATIC_SERVER_PATH]: STATIC_SERVER_SOURCE };
}
