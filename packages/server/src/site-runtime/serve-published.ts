import { isSiteImagePath, type BodyEncoding, type CachedFile, type CachedSite } from "@reposite/core";

/**
 * Answers for a published site's files, independent of h3 and of node:http so the h3 middleware
 * and the node-level fast path answer byte for byte the same. Header lists are made once per file
 * and encoding (kept beside the cached file), so a request costs a few map lookups. A body memory
 * does not hold (another encoding made on first use, the preview image read from storage) makes
 * the answer a promise; the fast path leaves those to the h3 middleware.
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

export type ContentEncoding = BodyEncoding;

/** HTML changes show right after publishing: caches must ask every time (a 304 is cheap). */
export const HTML_CACHE_CONTROL = "public, max-age=0, must-revalidate";
/** The link-preview image (and other images) change rarely; crawlers and browsers may keep them a day. */
export const IMAGE_CACHE_CONTROL = "public, max-age=86400";
/** Pictures copied for a site (`/_images/<hash>.<ext>`) are named by their content: a new picture is a new address. */
export const CONTENT_ADDRESSED_CACHE_CONTROL = "public, max-age=31536000, immutable";

/**
 * Headers of HTML pages beyond `nosniff`. No script-restricting CSP: publishing may add an
 * analytics tag; framing by other sites, `<base>` and plugins are refused. Every header costs on
 * every response, so none that repeats a browser default or another header: no Referrer-Policy
 * (browsers default to strict-origin-when-cross-origin), no X-Frame-Options (CSP
 * `frame-ancestors` supersedes it in every browser that supports CSP level 2).
 */
const HTML_SECURITY_HEADERS = ["content-security-policy", "frame-ancestors 'self'; base-uri 'self'; object-src 'none'"];

/**
 * An SVG opened on its own is a document of the site's origin and could run scripts there: its
 * policy forbids scripts and everything else it could load (as an `<img>` it runs none anyway).
 */
const SVG_SECURITY_HEADERS = ["content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox"];

const STATIC_METHODS = "GET, HEAD";

/**
 * Header lists of one encoding of a file, each made the first time it is needed (most files are
 * only ever answered 200 in br): memory holds a list per answer given, not every possible one.
 */
interface Variant {
  etag: string;
  ok?: string[];
  notModified?: string[];
  notFound?: string[];
}

/** Per file: its encodings' header lists and its date in ms. */
interface PreparedFile {
  lastModifiedMs: number | null;
  variants: Partial<Record<BodyEncoding, Variant>>;
}

const prepared = new WeakMap<CachedFile, PreparedFile>();

const isHtml = (contentType: string) => /^text\/html\b/i.test(contentType);
const isImage = (contentType: string) => /^image\//i.test(contentType) && !/svg/i.test(contentType);
const isSvg = (contentType: string) => /^image\/svg\+xml\b/i.test(contentType);

/** `"abc"` -> `"abc-gzip"`: each encoding of a file is its own representation and gets its own strong ETag. */
function variantEtag(etag: string, encoding: BodyEncoding): string {
  const quoted = etag.startsWith('"') || etag.startsWith('W/"') ? etag : `"${etag}"`;
  return encoding === "identity" ? quoted : `${quoted.slice(0, -1)}-${encoding}"`;
}

function prepare(file: CachedFile): PreparedFile {
  let ready = prepared.get(file);
  if (ready) return ready;
  const modified = file.lastModified ? Date.parse(file.lastModified) : Number.NaN;
  ready = { lastModifiedMs: Number.isNaN(modified) ? null : modified, variants: {} };
  prepared.set(file, ready);
  return ready;
}

function variantOf(ready: PreparedFile, file: CachedFile, encoding: BodyEncoding): Variant {
  return (ready.variants[encoding] ??= { etag: variantEtag(file.etag, encoding) });
}

/** Caching, Vary and security headers of a file; `validators` adds Last-Modified (not on 404 answers). */
function tail(file: CachedFile, validators: boolean): string[] {
  const cacheControl = !validators
    ? "no-cache"
    : isSiteImagePath(file.path)
      ? CONTENT_ADDRESSED_CACHE_CONTROL
      : isImage(file.contentType)
        ? IMAGE_CACHE_CONTROL
        : HTML_CACHE_CONTROL;
  return [
    ...(validators && file.lastModified ? ["last-modified", file.lastModified] : []),
    "cache-control",
    cacheControl,
    ...(file.compressible ? ["vary", "Accept-Encoding"] : []),
    "x-content-type-options",
    "nosniff",
    ...(isHtml(file.contentType) ? HTML_SECURITY_HEADERS : []),
    ...(isSvg(file.contentType) ? SVG_SECURITY_HEADERS : []),
  ];
}

function entity(file: CachedFile, encoding: BodyEncoding, length: number): string[] {
  const encodingHeader = encoding === "identity" ? [] : ["content-encoding", encoding];
  return ["content-type", file.contentType, "content-length", String(length), ...encodingHeader];
}

const okHeaders = (variant: Variant, file: CachedFile, encoding: BodyEncoding, length: number) =>
  (variant.ok ??= [...entity(file, encoding, length), "etag", variant.etag, ...tail(file, true)]);
const notModifiedHeaders = (variant: Variant, file: CachedFile) => (variant.notModified ??= ["etag", variant.etag, ...tail(file, true)]);
// A 404 page is not revalidated: it has no validators, and is asked for again each time.
const notFoundHeaders = (variant: Variant, file: CachedFile, encoding: BodyEncoding, length: number) =>
  (variant.notFound ??= [...entity(file, encoding, length), ...tail(file, false)]);

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

/** The encoding to send: the client's best that the file offers (br, then gzip, then identity). */
function pickEncoding(file: CachedFile, acceptEncoding: string | null | undefined): BodyEncoding {
  if (!file.compressible) return "identity";
  const wanted = negotiateEncoding(acceptEncoding);
  if (wanted === "br") return "br";
  if (wanted === "gzip" && file.offers("gzip")) return "gzip";
  return "identity";
}

const ENCODINGS: readonly BodyEncoding[] = ["identity", "gzip", "br"];

/** `If-None-Match` against the ETags of every encoding of a file (weak comparison, as RFC 9110 asks for this header). */
function noneMatch(header: string, file: CachedFile, variant: Variant): boolean {
  if (header === variant.etag) return true;
  if (header.trim() === "*") return true;
  const encodings = file.compressible ? ENCODINGS : (["identity"] as const);
  for (const candidate of header.split(",")) {
    let tag = candidate.trim();
    if (tag.startsWith("W/")) tag = tag.slice(2);
    if (encodings.some((encoding) => variantEtag(file.etag, encoding) === tag)) return true;
  }
  return false;
}

function notModified(request: SiteRequest, file: CachedFile, ready: PreparedFile, variant: Variant): boolean {
  if (request.ifNoneMatch) return noneMatch(request.ifNoneMatch, file, variant);
  if (request.ifModifiedSince && ready.lastModifiedMs !== null) {
    const since = Date.parse(request.ifModifiedSince);
    return !Number.isNaN(since) && ready.lastModifiedMs <= since;
  }
  return false;
}

/**
 * The answer with `file`'s body (status 200, or 404 for the site's 404 page) in the encoding the
 * client takes best. From memory when it holds that body (or none is needed: HEAD of the body as
 * published); else a promise, unless `memoryOnly`, when the answer is undefined.
 */
function withBody(file: CachedFile, request: SiteRequest, status: 200 | 404, memoryOnly: boolean): SiteAnswer | Promise<SiteAnswer> | undefined {
  const ready = prepare(file);
  const encoding = pickEncoding(file, request.acceptEncoding);
  const variant = variantOf(ready, file, encoding);
  const head = request.method === "HEAD";
  const answer = (length: number, body: Buffer | null): SiteAnswer => ({
    status,
    headers: status === 200 ? okHeaders(variant, file, encoding, length) : notFoundHeaders(variant, file, encoding, length),
    body: head ? null : body,
  });
  const held = file.held(encoding);
  if (held) return answer(held.length, held);
  if (head && encoding === "identity") return answer(file.size, null);
  if (memoryOnly) return undefined;
  return file.load(encoding).then((body) => {
    if (body) return answer(body.length, body);
    // The encoding proved not worth it (gzip of a tiny file): pickEncoding no longer offers it.
    const again = withBody(file, request, status, false)!;
    return again;
  });
}

/** Whether `path` names a file of the site (the 404 page is not one: it is only served as a 404). */
export function isStaticPath(site: CachedSite, path: string): boolean {
  return path !== "/404" && site.files.has(path);
}

/**
 * A GET or HEAD of one of the site's files: 200, or 304 when the client's copy is current; a path
 * with trailing slashes whose bare form is a file: 301 there. Anything else: undefined (dynamic
 * paths, then the 404 page, are the caller's). A body memory does not hold makes it a promise;
 * with `memoryOnly` such a request answers undefined instead, and reads or makes nothing.
 */
export function serveFile(site: CachedSite, request: SiteRequest, options: { memoryOnly: true }): SiteAnswer | undefined;
export function serveFile(site: CachedSite, request: SiteRequest, options?: { memoryOnly?: boolean }): SiteAnswer | Promise<SiteAnswer> | undefined;
export function serveFile(site: CachedSite, request: SiteRequest, options: { memoryOnly?: boolean } = {}): SiteAnswer | Promise<SiteAnswer> | undefined {
  const path = request.path;
  const file = path === "/404" ? undefined : site.files.get(path);
  if (!file) return trailingSlashRedirect(site, request);
  const ready = prepare(file);
  const variant = variantOf(ready, file, pickEncoding(file, request.acceptEncoding));
  if (notModified(request, file, ready, variant)) return { status: 304, headers: notModifiedHeaders(variant, file), body: null };
  return withBody(file, request, 200, options.memoryOnly === true);
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
export function notFoundAnswer(site: CachedSite, request: SiteRequest): SiteAnswer | Promise<SiteAnswer> {
  if (!site.notFound) return plainPage(404, "Page not found", "There is no page at this address.", request.method);
  return withBody(site.notFound, request, 404, false)!;
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
