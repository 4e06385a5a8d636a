import type { CachedFile, CachedSite } from "@reposite/core";

/**
 * Answers for a published site's files, independent of h3 and of node:http so the h3 middleware
 * and the node-level fast path answer byte for byte the same. Every header list is made once per
 * file and revision (kept beside the cached file), so a request costs a few map lookups.
 */

/** The parts of a request the answers depend on. */
export interface SiteRequest {
  method: string;
  /** Path without the query. */
  path: string;
  /** The query with its `?`, or "". */
  search: string;
  ifNoneMatch?: string | null | undefined;
  ifModifiedSince?: string | null | undefined;
  acceptEncoding?: string | null | undefined;
}

/** A ready answer: status, headers as a flat `[name, value, …]` list (lower-case names), body (null: none). */
export interface SiteAnswer {
  status: number;
  headers: readonly string[];
  body: Buffer | null;
}

export type ContentEncoding = "br" | "gzip" | "identity";

/** HTML changes show right after publishing: caches must ask every time (a 304 is cheap). */
export const HTML_CACHE_CONTROL = "public, max-age=0, must-revalidate";
/** The link-preview image (and other images) change rarely; crawlers and browsers may keep them a day. */
export const IMAGE_CACHE_CONTROL = "public, max-age=86400";

/**
 * Headers of HTML pages beyond `nosniff`. No script-restricting CSP: publishing may add an
 * analytics tag; framing by other sites, `<base>` and plugins are refused. Every header costs on
 * every response, so none that repeats a browser default or another header: no Referrer-Policy
 * (browsers default to strict-origin-when-cross-origin), no X-Frame-Options (CSP
 * `frame-ancestors` supersedes it in every browser that supports CSP level 2).
 */
const HTML_SECURITY_HEADERS = ["content-security-policy", "frame-ancestors 'self'; base-uri 'self'; object-src 'none'"];

const STATIC_METHODS = "GET, HEAD";

interface Variant {
  body: Buffer;
  etag: string;
  ok: string[];
  notModified: string[];
  notFound: string[];
}

interface PreparedFile {
  identity: Variant;
  gzip: Variant | null;
  br: Variant | null;
  /** Every ETag of the file's variants (a client may hold any of them). */
  etags: string[];
  lastModifiedMs: number | null;
}

const prepared = new WeakMap<CachedFile, PreparedFile>();

const isHtml = (contentType: string) => /^text\/html\b/i.test(contentType);
const isImage = (contentType: string) => /^image\//i.test(contentType) && !/svg/i.test(contentType);

/** `"abc"` -> `"abc-gzip"`: each encoding of a file is its own representation and gets its own strong ETag. */
function variantEtag(etag: string, suffix: string): string {
  const quoted = etag.startsWith('"') || etag.startsWith('W/"') ? etag : `"${etag}"`;
  return suffix ? `${quoted.slice(0, -1)}-${suffix}"` : quoted;
}

function prepare(file: CachedFile): PreparedFile {
  let ready = prepared.get(file);
  if (ready) return ready;
  const html = isHtml(file.contentType);
  const compressible = file.gzip !== null || file.br !== null;
  const cacheControl = isImage(file.contentType) ? IMAGE_CACHE_CONTROL : HTML_CACHE_CONTROL;
  const common = ["x-content-type-options", "nosniff", ...(html ? HTML_SECURITY_HEADERS : [])];
  const vary = compressible ? ["vary", "Accept-Encoding"] : [];
  const lastModified = file.lastModified ? ["last-modified", file.lastModified] : [];
  const variant = (body: Buffer, encoding: ContentEncoding): Variant => {
    const etag = variantEtag(file.etag, encoding === "identity" ? "" : encoding);
    const encodingHeader = encoding === "identity" ? [] : ["content-encoding", encoding];
    const entity = ["content-type", file.contentType, "content-length", String(body.length), ...encodingHeader];
    return {
      body,
      etag,
      ok: [...entity, "etag", etag, ...lastModified, "cache-control", cacheControl, ...vary, ...common],
      notModified: ["etag", etag, ...lastModified, "cache-control", cacheControl, ...vary, ...common],
      // A 404 page is not revalidated: it has no validators, and is asked for again each time.
      notFound: [...entity, "cache-control", "no-cache", ...vary, ...common],
    };
  };
  const identity = variant(file.body, "identity");
  const gzip = file.gzip ? variant(file.gzip, "gzip") : null;
  const br = file.br ? variant(file.br, "br") : null;
  const modified = file.lastModified ? Date.parse(file.lastModified) : Number.NaN;
  ready = {
    identity,
    gzip,
    br,
    etags: [identity, gzip, br].filter((v): v is Variant => v !== null).map((v) => v.etag),
    lastModifiedMs: Number.isNaN(modified) ? null : modified,
  };
  prepared.set(file, ready);
  return ready;
}

const encodingMemo = new Map<string, ContentEncoding>();

/**
 * The best encoding the client accepts: br, then gzip, then identity (q-values respected, `*`
 * understood). Browsers send a handful of distinct headers, so answers are remembered.
 */
export function negotiateEncoding(acceptEncoding: string | null | undefined): ContentEncoding {
  if (!acceptEncoding) return "identity";
  let encoding = encodingMemo.get(acceptEncoding);
  if (encoding) return encoding;
  let br = -1;
  let gzip = -1;
  let any = -1;
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name = "", ...params] = part.trim().split(";");
    let q = 1;
    for (const param of params) {
      const [key, value] = param.trim().split("=");
      if (key === "q" && value !== undefined) q = Number.parseFloat(value) || 0;
    }
    const token = name.trim();
    if (token === "br") br = q;
    else if (token === "gzip" || token === "x-gzip") gzip = q;
    else if (token === "*") any = q;
  }
  if (br === -1) br = any;
  if (gzip === -1) gzip = any;
  encoding = br > 0 && br >= gzip ? "br" : gzip > 0 ? "gzip" : "identity";
  if (encodingMemo.size >= 256) encodingMemo.clear();
  encodingMemo.set(acceptEncoding, encoding);
  return encoding;
}

function pickVariant(file: PreparedFile, acceptEncoding: string | null | undefined): Variant {
  if (file.gzip === null && file.br === null) return file.identity;
  const encoding = negotiateEncoding(acceptEncoding);
  if (encoding === "br") return file.br ?? file.gzip ?? file.identity;
  if (encoding === "gzip") return file.gzip ?? file.identity;
  return file.identity;
}

/** `If-None-Match` against a file's ETags (weak comparison, as RFC 9110 asks for this header). */
function noneMatch(header: string, file: PreparedFile, variant: Variant): boolean {
  if (header === variant.etag) return true;
  if (header.trim() === "*") return true;
  for (const candidate of header.split(",")) {
    let tag = candidate.trim();
    if (tag.startsWith("W/")) tag = tag.slice(2);
    if (file.etags.includes(tag)) return true;
  }
  return false;
}

function notModified(request: SiteRequest, file: PreparedFile, variant: Variant): boolean {
  if (request.ifNoneMatch) return noneMatch(request.ifNoneMatch, file, variant);
  if (request.ifModifiedSince && file.lastModifiedMs !== null) {
    const since = Date.parse(request.ifModifiedSince);
    return !Number.isNaN(since) && file.lastModifiedMs <= since;
  }
  return false;
}

/** Whether `path` names a file of the site (the 404 page is not one: it is only served as a 404). */
export function isStaticPath(site: CachedSite, path: string): boolean {
  return path !== "/404" && site.files.has(path);
}

/**
 * A GET or HEAD of one of the site's files: 200, or 304 when the client's copy is current; a path
 * with trailing slashes whose bare form is a file: 301 there. Anything else: undefined (dynamic
 * paths, then the 404 page, are the caller's).
 */
export function serveFile(site: CachedSite, request: SiteRequest): SiteAnswer | undefined {
  const path = request.path;
  const file = path === "/404" ? undefined : site.files.get(path);
  if (!file) return trailingSlashRedirect(site, request);
  const ready = prepare(file);
  const variant = pickVariant(ready, request.acceptEncoding);
  if (notModified(request, ready, variant)) return { status: 304, headers: variant.notModified, body: null };
  return { status: 200, headers: variant.ok, body: request.method === "HEAD" ? null : variant.body };
}

/** `/about/` -> 301 `/about` (query kept), only when `/about` is a file: never a redirect to `//host`. */
function trailingSlashRedirect(site: CachedSite, request: SiteRequest): SiteAnswer | undefined {
  const path = request.path;
  if (path.length < 2 || !path.endsWith("/")) return undefined;
  let bare = path;
  while (bare.length > 1 && bare.endsWith("/")) bare = bare.slice(0, -1);
  if (!isStaticPath(site, bare)) return undefined;
  return redirectAnswer(bare + request.search);
}

export function redirectAnswer(location: string): SiteAnswer {
  return {
    status: 301,
    headers: ["location", location, "cache-control", "public, max-age=3600", "content-length", "0", "x-content-type-options", "nosniff"],
    body: null,
  };
}

/** The site's 404 page in its design, with status 404; a plain one when the snapshot has none. */
export function notFoundAnswer(site: CachedSite, request: SiteRequest): SiteAnswer {
  if (!site.notFound) return plainPage(404, "Page not found", "There is no page at this address.", request.method);
  const variant = pickVariant(prepare(site.notFound), request.acceptEncoding);
  return { status: 404, headers: variant.notFound, body: request.method === "HEAD" ? null : variant.body };
}

/** Another method than GET or HEAD on one of the site's files. */
export function methodNotAllowedAnswer(request: SiteRequest): SiteAnswer {
  const answer = plainPage(405, "Method not allowed", "This address can only be read (GET or HEAD).", request.method);
  return { ...answer, headers: [...answer.headers, "allow", STATIC_METHODS] };
}

/** No published site answers to this host: a plain Reposite page, not the API's JSON. */
export function unknownSiteAnswer(request: SiteRequest, serviceUrl: string): SiteAnswer {
  return plainPage(404, "No site here", "Nothing is published at this address (yet).", request.method, serviceUrl);
}

/** A site-host request that failed on our side: a plain page, never the API's JSON. */
export function errorAnswer(status: number, message: string, request: SiteRequest): SiteAnswer {
  return plainPage(status, status >= 500 ? "Something went wrong" : "This did not work", message, request.method);
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c] ?? c));

/** A small self-contained page in Reposite's own plain look (no design, no links to this host's paths). */
export function plainPage(status: number, title: string, message: string, method: string, serviceUrl?: string): SiteAnswer {
  const link = serviceUrl ? `\n<p><a href="${escape(serviceUrl)}">Reposite</a> turns repositories into product sites.</p>` : "";
  const body = Buffer.from(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escape(title)}</title>
<style>body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#16191d;background:#fff}main{max-width:36rem;margin:15vh auto;padding:0 1rem}h1{font-size:1.6rem;margin:0 0 1rem}a{color:#1d4ed8}p{color:#4a5361}</style>
</head>
<body>
<main>
<h1>${escape(title)}</h1>
<p>${escape(message)}</p>${link}
</main>
</body>
</html>
`);
  return {
    status,
    headers: [
      "content-type",
      "text/html; charset=utf-8",
      "content-length",
      String(body.length),
      "cache-control",
      "no-cache",
      "x-content-type-options",
      "nosniff",
      ...HTML_SECURITY_HEADERS,
    ],
    body: method === "HEAD" ? null : body,
  };
}
