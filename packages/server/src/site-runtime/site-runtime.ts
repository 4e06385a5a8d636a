import type { IncomingMessage, ServerResponse } from "node:http";
import { RepositeError, SiteCache, VisitCounter, type CachedSite, type PublishedSiteInfo, type Reposite } from "@reposite/core";
import { HTTPError, HTTPResponse, type H3Event, type Middleware } from "h3";
import { createHostRouter, hostResolversFor, type HostResolver, type HostRouter } from "./host-router.js";
import {
  errorAnswer,
  isStaticPath,
  methodNotAllowedAnswer,
  notFoundAnswer,
  serveFile,
  unknownSiteAnswer,
  type SiteAnswer,
  type SiteRequest,
} from "./serve-published.js";

declare module "h3" {
  interface H3EventContext {
    /** Set by the site runtime on requests to a published site, before `dynamic` is called. */
    site?: PublishedSiteInfo;
  }
}

/**
 * Handles a site-host request the snapshot's files do not answer: `/auth/*` posts, `/community/*`,
 * `/app/*`. `event.context.site` is the site. Answer anything h3 accepts (best a `Response`); answer
 * `undefined` (or what an H3 sub-app answers for an unmatched route) to leave the request to the
 * runtime, which then answers 405 on the site's files and the site's 404 page elsewhere. A thrown
 * `RepositeError`/`HTTPError` becomes a plain page with its status; never the API's JSON.
 *
 * An H3 sub-app fits: `dynamic: (event) => siteApp.handler(event)`.
 */
export type DynamicSiteHandler = (event: H3Event, site: PublishedSiteInfo) => unknown;

export interface SiteRuntimeOptions {
  /** The dynamic part of site hosts; see `DynamicSiteHandler`. */
  dynamic?: DynamicSiteHandler;
  /**
   * Custom domains: synchronous host -> slug lookups, asked for hosts outside the sites domain.
   * Default: the composition's verified custom domains (`reposite.domainTable`); `[]` for none.
   */
  hostResolvers?: readonly HostResolver[];
}

/** Slugs are 3 to 60 characters of a-z, 0-9 and `-`; other labels under the sites domain name no site. */
const SLUG = /^[a-z0-9-]{3,60}$/;

/** What an H3 app answers for a route it does not have (`app.handler(event)` with no match). */
const H3_NOT_FOUND = Symbol.for("h3.notFound");

/** What the h3 middleware and the node fast path share: the host rule, the cache and the counter. */
interface SiteServing {
  route: HostRouter;
  cache: SiteCache;
  visits: VisitCounter;
  /** Where "no site here" pages point: the service's own address. */
  serviceUrl: string;
}

function createServing(reposite: Reposite, options: SiteRuntimeOptions): SiteServing {
  const { config } = reposite;
  return {
    route: createHostRouter({ sitesDomain: config.sitesDomain, baseUrl: config.baseUrl, hostResolvers: hostResolversFor(reposite, options.hostResolvers) }),
    cache: reposite.siteCache,
    visits: reposite.visits,
    serviceUrl: config.baseUrl,
  };
}

/** Counts a page view when a file was served (200, or 304 for a revisit); `count` leaves out bots and non-pages. */
function countVisit(serving: SiteServing, site: CachedSite, request: SiteRequest, userAgent: string | null | undefined): void {
  serving.visits.count(site.site.site_id, { userAgent: userAgent ?? undefined, method: request.method, path: request.path });
}

/**
 * A `SiteAnswer` as h3 takes it. Header pairs are made per answer, not kept: the hot answers go out
 * on the fast path, and memory per site stays what the cache counts.
 */
function toH3(answer: SiteAnswer): HTTPResponse;
function toH3(answer: SiteAnswer | Promise<SiteAnswer>): HTTPResponse | Promise<HTTPResponse>;
function toH3(answer: SiteAnswer | Promise<SiteAnswer>): HTTPResponse | Promise<HTTPResponse> {
  if (answer instanceof Promise) return answer.then((ready) => toH3(ready));
  const headers: [string, string][] = [];
  for (let i = 0; i < answer.headers.length; i += 2) headers.push([answer.headers[i]!, answer.headers[i + 1]!]);
  // Buffers are Uint8Arrays over plain ArrayBuffers here; the cast only quiets SharedArrayBuffer typing.
  return new HTTPResponse(answer.body as Uint8Array<ArrayBuffer> | null, { status: answer.status, headers });
}

function failure(error: unknown, request: SiteRequest, what: string): SiteAnswer {
  if (RepositeError.isInstance(error)) return errorAnswer(error.status, error.message, request);
  if (HTTPError.isError(error) && !error.unhandled && error.status < 500) {
    return errorAnswer(error.status, "This request cannot be answered.", request);
  }
  console.error(`[reposite] [sites] ${request.method} ${request.path} (${what}) failed:`, error);
  return errorAnswer(500, "The site could not be shown just now. Try again in a moment.", request);
}

/**
 * The site runtime as h3 middleware: mount it FIRST in the app (`app.use(siteRuntime(reposite))`).
 * Requests whose `Host` is `<slug>.<sitesDomain>` (or a custom domain a resolver knows) are answered
 * here and never reach the API's middleware (auth, CORS refusal) or its JSON error formatting; every
 * other request goes on to the API untouched.
 *
 * On a site host: GET/HEAD of a snapshot file -> the file (ETag/304, br/gzip, cache headers); a
 * trailing slash -> 301 to the file; anything else -> `options.dynamic`, then 405 on files, else the
 * site's 404 page (status 404). An unknown slug -> a plain Reposite 404 page.
 */
export function siteRuntime(reposite: Reposite, options: SiteRuntimeOptions = {}): Middleware {
  const serving = createServing(reposite, options);
  const dynamic = options.dynamic;

  const answer = (event: H3Event, site: CachedSite | null, request: SiteRequest): unknown => {
    if (!site) return toH3(unknownSiteAnswer(request, serving.serviceUrl));
    if (request.method === "GET" || request.method === "HEAD") {
      const served = serveFile(site, request);
      if (served instanceof Promise) {
        // A body memory does not hold: made in another encoding, or read from storage (the preview image).
        return served.then(
          (ready) => {
            countVisit(serving, site, request, event.req.headers.get("user-agent"));
            return toH3(ready);
          },
          (error: unknown) => toH3(failure(error, request, "reading a file"))
        );
      }
      if (served) {
        if (served.status !== 301) countVisit(serving, site, request, event.req.headers.get("user-agent"));
        return toH3(served);
      }
    }
    if (!dynamic) return toH3(fallback(site, request));
    event.context.site = site.site;
    let result: unknown;
    try {
      result = dynamic(event, site.site);
    } catch (error) {
      return toH3(failure(error, request, "dynamic"));
    }
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => (isUnhandled(value) ? toH3(fallback(site, request)) : value),
        (error: unknown) => toH3(failure(error, request, "dynamic"))
      );
    }
    return isUnhandled(result) ? toH3(fallback(site, request)) : result;
  };

  return (event) => {
    const slug = serving.route(event.req.headers.get("host"));
    if (slug === null) return undefined; // not a site: on to the API
    const request: SiteRequest = {
      method: event.req.method,
      path: event.url.pathname,
      search: event.url.search,
      ifNoneMatch: event.req.headers.get("if-none-match"),
      ifModifiedSince: event.req.headers.get("if-modified-since"),
      acceptEncoding: event.req.headers.get("accept-encoding"),
    };
    if (!SLUG.test(slug)) return toH3(unknownSiteAnswer(request, serving.serviceUrl));
    const known = serving.cache.peek(slug);
    if (known !== undefined) return answer(event, known, request);
    return serving.cache.get(slug).then(
      (site) => answer(event, site, request),
      (error: unknown) => toH3(failure(error, request, "loading the site"))
    );
  };
}

const isUnhandled = (value: unknown) => value === undefined || value === H3_NOT_FOUND;

/** Nothing answered: 405 on one of the site's files, the site's 404 page elsewhere. */
function fallback(site: CachedSite, request: SiteRequest): SiteAnswer | Promise<SiteAnswer> {
  if (isStaticPath(site, request.path)) return methodNotAllowedAnswer(request);
  const answer = notFoundAnswer(site, request);
  return answer instanceof Promise ? answer.catch((error: unknown) => failure(error, request, "the 404 page")) : answer;
}

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * The hot case, on node:http objects: a GET/HEAD of a file of a site in memory, written from
 * precomputed bytes and header lists. Answers false, having written nothing, for anything else.
 */
function answerFromMemory(serving: SiteServing, req: IncomingMessage, res: ServerResponse): boolean {
  const method = req.method;
  if (method !== "GET" && method !== "HEAD") return false;
  const headers = readHeaders(req.rawHeaders);
  const slug = serving.route(headers.host);
  const site = slug === null ? undefined : serving.cache.peek(slug);
  if (!site) return false;
  const url = req.url ?? "/";
  const query = url.indexOf("?");
  const request: SiteRequest = {
    method,
    path: query === -1 ? url : url.slice(0, query),
    search: query === -1 ? "" : url.slice(query),
    ifNoneMatch: headers.ifNoneMatch,
    ifModifiedSince: headers.ifModifiedSince,
    acceptEncoding: headers.acceptEncoding,
  };
  const served = serveFile(site, request, { memoryOnly: true });
  if (!served) return false;
  if (served.status !== 301) countVisit(serving, site, request, headers.userAgent);
  res.writeHead(served.status, served.headers as string[]);
  if (served.body) res.end(served.body);
  else res.end();
  return true;
}

interface HotHeaders {
  host: string | undefined;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  acceptEncoding: string | undefined;
  userAgent: string | undefined;
}

const same = (name: string, canonical: string, lower: string) => name === canonical || name === lower || name.toLowerCase() === lower;

/**
 * The five headers the fast path reads, straight from the parser's `rawHeaders` (first one wins,
 * as in `req.headers`): reading `req.headers` would build an object of every header first.
 */
function readHeaders(raw: string[]): HotHeaders {
  const found: HotHeaders = { host: undefined, ifNoneMatch: undefined, ifModifiedSince: undefined, acceptEncoding: undefined, userAgent: undefined };
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    switch (name.length) {
      case 4:
        if (found.host === undefined && same(name, "Host", "host")) found.host = raw[i + 1];
        break;
      case 10:
        if (found.userAgent === undefined && same(name, "User-Agent", "user-agent")) found.userAgent = raw[i + 1];
        break;
      case 13:
        if (found.ifNoneMatch === undefined && same(name, "If-None-Match", "if-none-match")) found.ifNoneMatch = raw[i + 1];
        break;
      case 15:
        if (found.acceptEncoding === undefined && same(name, "Accept-Encoding", "accept-encoding")) found.acceptEncoding = raw[i + 1];
        break;
      case 17:
        if (found.ifModifiedSince === undefined && same(name, "If-Modified-Since", "if-modified-since")) found.ifModifiedSince = raw[i + 1];
        break;
    }
  }
  return found;
}

/**
 * The fast path in front of h3, for the server's node listener:
 * `siteNodeHandler(reposite, toNodeHandler(app))`. It answers only the hot case, a GET/HEAD of a
 * file of a site already in memory, straight from precomputed bytes and header lists (no Request,
 * no H3Event, no promise); everything else (API hosts, first request of a site, unknown sites,
 * 404s, dynamic paths, other methods) goes to `next`, where `siteRuntime` answers it the same way.
 */
export function siteNodeHandler(reposite: Reposite, next: NodeListener, options: Pick<SiteRuntimeOptions, "hostResolvers"> = {}): NodeListener {
  const serving = createServing(reposite, options);
  return (req, res) => {
    if (answerFromMemory(serving, req, res)) return;
    return next(req, res);
  };
}
