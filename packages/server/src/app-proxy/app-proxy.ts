import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import {
  AppRoutes,
  CLOCK,
  EdgeRouteTable,
  MemberSessionCache,
  ProjectCache,
  type AppLease,
  type CachedProject,
  type Clock,
  type MemberView,
  type PublishedSiteInfo,
  type Reposite,
} from "@reposite/core";
import { createProxyServer } from "httpxy";
import { nodeClientAddress } from "../http/client-address.js";
import { memberCookieName } from "../site-runtime/dynamic/member-session.js";
import { createHostRouter, hostResolversFor, type HostResolver } from "../site-runtime/host-router.js";
import type { NodeListener } from "../site-runtime/site-runtime.js";
import { noAnswerPage, notRunningPage, plainAnswer, signInFirstPage, signInRedirect, writeToSocket, type PageFrame, type ProxyAnswer } from "./app-pages.js";
import { createAppOnlySites } from "./app-only-sites.js";
import { AppTargets, type AppConnection, type AppTargetsOptions } from "./app-targets.js";
import { appPath, appRequestHeaders, isAppUrl, type AppVisitor } from "./request-headers.js";
import { appResponseHeaders, holdSetCookies } from "./response-headers.js";
import { tieWebSocketEnds } from "./websocket-pair.js";

export interface AppProxyOptions {
  /** Believe `X-Forwarded-For`/`-Proto` from the proxy in front (REPOSITE_TRUST_PROXY), as the rate limits do. */
  trustProxy?: boolean;
  /** Custom domains: the same host -> slug lookups the site runtime is given; default `reposite.domainTable`. */
  hostResolvers?: readonly HostResolver[];
  /** Keep-alive and drain timings of the connections to apps. */
  targets?: AppTargetsOptions;
}

/**
 * `/app/…` of every published site, proxied to its running app at the node level, in front of h3:
 * h3's fetch-style Request/Response could neither hand over a WebSocket nor stream a body both ways
 * without buffering. Wire both halves into the node:http server:
 *
 *   createServer(proxy.listener(next)); server.on("upgrade", …proxy.upgrade…)
 */
export interface AppProxy {
  /** A node listener that answers `/app` on site hosts and hands every other request to `next` untouched. */
  listener(next: NodeListener): NodeListener;
  /**
   * For the server's `upgrade` event: takes a WebSocket upgrade to a site's `/app` (and answers it,
   * let through or refused) and answers true; false leaves the socket to the caller.
   */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /**
   * The members gate alone, for the nginx edge's `auth_request` (`edge/member-gate.ts`): who may use
   * the app at `host`, from memory as `listener` decides. Answers the member (null: let in without
   * one, as on a site without the gate), or `"reposite"` when Reposite must answer the request
   * itself (signed out on a members-only app, an address without a site).
   */
  memberGate(host: string | undefined, cookie: string | undefined): Promise<{ member: MemberView | null } | "reposite">;
  /** Closes the kept-alive connections to apps. */
  close(): void;
}

/** Slugs are 3 to 60 characters of a-z, 0-9 and `-` (as in the site runtime); other labels name no site. */
const SLUG = /^[a-z0-9-]{3,60}$/;

/** The few visitor headers the proxy decides on, read in one pass over `rawHeaders` (first one wins). */
interface DecidingHeaders {
  host: string | undefined;
  cookie: string | undefined;
  forwardedFor: string | undefined;
  forwardedProto: string | undefined;
}

function readHeaders(raw: readonly string[]): DecidingHeaders {
  const found: DecidingHeaders = { host: undefined, cookie: undefined, forwardedFor: undefined, forwardedProto: undefined };
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4) {
      if (found.host === undefined && name.toLowerCase() === "host") found.host = raw[i + 1];
    } else if (name.length === 6) {
      if (name.toLowerCase() === "cookie") found.cookie = found.cookie === undefined ? raw[i + 1] : `${found.cookie}; ${raw[i + 1]}`;
    } else if (name.length === 15) {
      if (found.forwardedFor === undefined && name.toLowerCase() === "x-forwarded-for") found.forwardedFor = raw[i + 1];
    } else if (name.length === 17) {
      if (found.forwardedProto === undefined && name.toLowerCase() === "x-forwarded-proto") found.forwardedProto = raw[i + 1];
    }
  }
  return found;
}

/** The value of cookie `name` in a Cookie header, or undefined. */
function cookieValue(cookie: string | undefined, name: string): string | undefined {
  if (!cookie) return undefined;
  for (const part of cookie.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return value.includes("%") ? decodeURIComponent(value) : value;
    } catch {
      return value;
    }
  }
  return undefined;
}

/** What the gate decided: an answer of the proxy's own, or the app with who is asking. */
type Decision =
  | { answer: ProxyAnswer }
  | { lease: AppLease; connection: AppConnection; member: MemberView | null; frame: PageFrame };

export function createAppProxy(reposite: Reposite, options: AppProxyOptions = {}): AppProxy {
  const { config, container } = reposite;
  const route = createHostRouter({ sitesDomain: config.sitesDomain, baseUrl: config.baseUrl, hostResolvers: hostResolversFor(reposite, options.hostResolvers) });
  const sites = reposite.siteCache;
  const projects = container.resolve(ProjectCache);
  const sessions = container.resolve(MemberSessionCache);
  const routes = container.resolve(AppRoutes);
  // The composition's one route table: the nginx edge is configured from the same entries.
  const table = container.resolve(EdgeRouteTable);
  const appOnly = createAppOnlySites(reposite);
  const clock = container.resolve<Clock>(CLOCK);
  const targets = new AppTargets(routes, options.targets);
  const trustProxy = options.trustProxy ?? false;
  const cookieNames = new WeakMap<PublishedSiteInfo, string>();

  /** The page frame of each WebSocket under way, for its 502 page. */
  const frames = new WeakMap<IncomingMessage, PageFrame>();
  const proxy = createProxyServer({});
  // Responses are written here (selfHandleResponse): the app's headers held to the rules, then its body streamed as it comes.
  proxy.on("proxyRes", (proxyRes, _req, res) => {
    res.writeHead(proxyRes.statusCode ?? 502, appResponseHeaders(proxyRes.rawHeaders));
    proxyRes.pipe(res);
  });
  // Runs before httpxy's own listeners on the upstream request: the handshake's Set-Cookie is held
  // to the rules too, and an app that cannot be reached gets the 502 page before httpxy ends the socket.
  proxy.on("proxyReqWs", (proxyReq, req, socket) => {
    let answered = false;
    proxyReq.once("upgrade", (proxyRes, appSocket) => {
      answered = true;
      holdSetCookies(proxyRes.headers);
      tieWebSocketEnds(socket, appSocket);
    });
    proxyReq.once("response", (response) => {
      answered = true;
      holdSetCookies(response.headers);
    });
    proxyReq.once("error", () => {
      const frame = frames.get(req);
      if (!answered && frame) writeToSocket(socket, noAnswerPage(frame));
    });
  });

  const memberCookie = (site: PublishedSiteInfo) => {
    let name = cookieNames.get(site);
    if (name === undefined) cookieNames.set(site, (name = memberCookieName(site)));
    return name;
  };

  const visitorOf = (req: IncomingMessage, headers: DecidingHeaders): AppVisitor => {
    const claimed = trustProxy ? headers.forwardedProto?.split(",")[0]!.trim().toLowerCase() : undefined;
    const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
    return {
      address: nodeClientAddress(headers.forwardedFor, req.socket.remoteAddress, trustProxy),
      proto: claimed === "https" || claimed === "http" ? claimed : encrypted ? "https" : "http",
      host: headers.host ?? "",
    };
  };

  /**
   * The members gate and the route, from memory: the gate comes from the route table (as nginx's
   * does), the page frame's project and the member's session from their caches; each is read from
   * storage only the first time (and after a change).
   */
  async function gate(site: PublishedSiteInfo, cookie: string | undefined) {
    const entry = table.projectRoute(site.site_id) ?? (await table.readProjectRoute(site.site_id));
    const project: CachedProject | null = projects.peek(site.site_id) ?? (await projects.get(site.site_id));
    const secret = cookieValue(cookie, memberCookie(site));
    const current = secret ? (sessions.peek(site.site_id, secret) ?? (await sessions.find(site.site_id, secret))) : null;
    // The owner's setting, on the project this site belongs to.
    const gated = entry !== null && entry.ownerId === site.owner_id && entry.gated;
    return { project, current, gated };
  }

  async function decide(site: PublishedSiteInfo, headers: DecidingHeaders, method: string, url: string, websocket: boolean): Promise<Decision> {
    const { project, current, gated } = await gate(site, headers.cookie);
    const frame: PageFrame = { site, project, clock };
    if (gated && !current) {
      if (!websocket && (method === "GET" || method === "HEAD")) return { answer: signInRedirect(url) };
      return { answer: signInFirstPage(frame) };
    }
    const lease = table.lease(site.site_id);
    if (!lease) return { answer: notRunningPage(frame, table.appStatus(site.site_id)) };
    return { lease, connection: targets.connect(site.site_id, lease.target), member: current?.member ?? null, frame };
  }

  function write(res: ServerResponse, answer: ProxyAnswer, method: string): void {
    res.writeHead(answer.status, answer.headers);
    res.end(method === "HEAD" ? undefined : answer.body);
  }

  /** Storage failed while the site, project or session was read: logged, and a plain 500 page. */
  function failed(res: ServerResponse | Duplex, req: IncomingMessage, error: unknown): void {
    console.error(`[reposite] [app-proxy] ${req.method} ${req.url} failed:`, error);
    const answer = plainAnswer(500, "Something went wrong", "The app could not be reached just now. Try again in a moment.");
    if (!("writeHead" in res)) return writeToSocket(res, answer);
    if (!res.headersSent) write(res, answer, req.method ?? "GET");
    else res.destroy();
  }

  async function serveHttp(req: IncomingMessage, res: ServerResponse, site: PublishedSiteInfo, headers: DecidingHeaders, url: string): Promise<void> {
    const method = req.method ?? "GET";
    let decision: Decision;
    try {
      decision = await decide(site, headers, method, url, false);
    } catch (error) {
      return failed(res, req, error);
    }
    if ("answer" in decision) return write(res, decision.answer, method);
    const { lease, connection, member, frame } = decision;
    res.once("close", lease.release);
    req.url = appPath(url);
    req.headers = appRequestHeaders(req.rawHeaders, { method, member, visitor: visitorOf(req, headers) }) as IncomingMessage["headers"];
    proxy.web(req, res, { target: connection.url, agent: connection.agent, selfHandleResponse: true }).catch(() => {
      // The app refused the connection or broke off before answering.
      if (!res.headersSent) write(res, noAnswerPage(frame), method);
      else res.destroy();
    });
  }

  async function serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, site: PublishedSiteInfo | null, headers: DecidingHeaders, url: string): Promise<void> {
    if (!site) return writeToSocket(socket, plainAnswer(404, "No site here", "There is no site at this address."));
    let decision: Decision;
    try {
      decision = await decide(site, headers, "GET", url, true);
    } catch (error) {
      return failed(socket, req, error);
    }
    if ("answer" in decision) return writeToSocket(socket, decision.answer);
    const { lease, connection, member, frame } = decision;
    socket.once("close", lease.release);
    if (socket.destroyed) return lease.release();
    frames.set(req, frame);
    req.url = appPath(url);
    req.headers = appRequestHeaders(req.rawHeaders, { method: "GET", member, visitor: visitorOf(req, headers), upgrade: true }) as IncomingMessage["headers"];
    // A WebSocket holds its connection for good: none from the keep-alive pool.
    proxy.ws(req, socket as never, { target: connection.url, agent: false }, head).catch(() => {
      // Ended already when the 502 page went out: let it flush.
      if (!socket.destroyed && !socket.writableEnded) socket.destroy();
    });
  }

  return {
    listener(next) {
      return (req, res) => {
        const url = req.url ?? "/";
        if (!isAppUrl(url)) return next(req, res);
        const headers = readHeaders(req.rawHeaders);
        const slug = route(headers.host);
        if (slug === null || !SLUG.test(slug)) return next(req, res);
        const known = sites.peek(slug);
        if (known) return void serveHttp(req, res, known.site, headers, url);
        const withoutPages = () => {
          const app = appOnly.peek(slug);
          if (app) return void serveHttp(req, res, app, headers, url);
          if (app === null) return next(req, res);
          appOnly.get(slug).then(
            (site) => (site ? serveHttp(req, res, site, headers, url) : next(req, res)),
            () => next(req, res),
          );
        };
        if (known === null) return withoutPages();
        // A site not in memory yet: loaded once; an address with neither pages nor an app is the runtime's to answer.
        sites.get(slug).then(
          (site) => (site ? serveHttp(req, res, site.site, headers, url) : withoutPages()),
          () => next(req, res),
        );
      };
    },

    upgrade(req, socket, head) {
      const url = req.url ?? "/";
      if (!isAppUrl(url) || req.headers.upgrade?.toLowerCase() !== "websocket") return false;
      const headers = readHeaders(req.rawHeaders);
      const slug = route(headers.host);
      if (slug === null) return false;
      if (!SLUG.test(slug)) {
        void serveUpgrade(req, socket, head, null, headers, url);
        return true;
      }
      const site = async () => (await sites.get(slug))?.site ?? appOnly.peek(slug) ?? (await appOnly.get(slug));
      const known = sites.peek(slug)?.site ?? (sites.peek(slug) === null ? appOnly.peek(slug) : undefined);
      if (known !== undefined) void serveUpgrade(req, socket, head, known, headers, url);
      else site().then((found) => serveUpgrade(req, socket, head, found, headers, url), (error: unknown) => failed(socket, req, error));
      return true;
    },

    async memberGate(host, cookie) {
      const slug = route(host);
      if (slug === null || !SLUG.test(slug)) return "reposite";
      const known = sites.peek(slug);
      const site = known ? known.site : known === null ? (appOnly.peek(slug) ?? (await appOnly.get(slug))) : ((await sites.get(slug))?.site ?? appOnly.peek(slug) ?? (await appOnly.get(slug)));
      if (!site) return "reposite";
      const { current, gated } = await gate(site, cookie);
      if (gated && !current) return "reposite";
      return { member: current?.member ?? null };
    },

    close() {
      appOnly.close();
      targets.close();
    },
  };
}
