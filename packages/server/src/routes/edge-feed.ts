import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";
import { edgeCertificate, edgeRoutes, edgeSite, edgeVisits } from "@reposite/contract";
import { RepositeError, type Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { EDGE_FEED_SETTINGS, isEdgeToken, sentEdgeToken, type EdgeFeedSettings } from "../edge/remote/edge-token.js";
import { startEdgeFeed, type EdgeFeed } from "../edge/remote/edge-feed.js";
import { operationRoute } from "../http/operation-route.js";

/** How long a long poll waits for a change before it answers the same version (below common 30 s proxy timeouts). */
const LONG_POLL_MS = 25_000;

/**
 * The feed of `reposite edge` (docs/deploy/edge-nginx.md): the route table by long poll, the
 * published sites' files, built-in ACME's certificates, and the page views edges served. On only with an edge token
 * (REPOSITE_EDGE_TOKEN), else `404`; a missing or wrong token is `401` before anything else is
 * read. The feed is made at the first authorized call, so a server without edges keeps nothing.
 */
export function edgeFeedRoutes(app: H3, reposite: Reposite): void {
  const settings = reposite.container.isRegistered(EDGE_FEED_SETTINGS, true) ? reposite.container.resolve<EdgeFeedSettings>(EDGE_FEED_SETTINGS) : null;
  let feed: Promise<EdgeFeed> | undefined;
  const theFeed = () => {
    feed ??= startEdgeFeed(reposite);
    feed.catch(() => (feed = undefined));
    return feed;
  };

  app.use((event) => {
    if (!event.url.pathname.startsWith("/edge/")) return;
    if (!settings) throw new RepositeError(404, "This server feeds no edges: set REPOSITE_EDGE_TOKEN to turn the edge feed on.", "not_found");
    if (!isEdgeToken(sentEdgeToken(event.req.headers.get("authorization")), settings.token)) {
      throw new RepositeError(401, "The edge feed needs this server's edge token: send Authorization: Bearer <REPOSITE_EDGE_TOKEN>.");
    }
  });

  operationRoute(app, edgeRoutes, async (event, { query }) => {
    const done = new AbortController();
    event.req.signal?.addEventListener("abort", () => done.abort(), { once: true });
    // A server shutting down answers its waiting edges at once instead of holding its drain window.
    const server = (event.req as { runtime?: { node?: { req: IncomingMessage } } }).runtime?.node?.req.socket as (Socket & { server?: Server }) | undefined;
    const watch = setInterval(() => server?.server?.listening === false && done.abort(), 250);
    try {
      return await (await theFeed()).after(query.after, LONG_POLL_MS, done.signal);
    } finally {
      clearInterval(watch);
    }
  });

  operationRoute(app, edgeSite, async (_event, { params }) => {
    const site = await (await theFeed()).site(params.slug);
    if (!site) throw new RepositeError(404, `No site is published at "${params.slug}".`, "not_found");
    return site;
  });

  // The one answer with a private key: only ever to the edge token (checked above; a person's token
  // is no edge token), never stored by a proxy, and never in an error or a log line.
  operationRoute(app, edgeCertificate, async (event, { params }) => {
    const certificate = await (await theFeed()).certificate(params.name);
    if (!certificate) throw new RepositeError(404, `No certificate is served for ${params.name}: built-in ACME is off here, or the name is no verified custom domain with a certificate yet.`, "not_found");
    event.res.headers.set("cache-control", "no-store");
    return certificate;
  });

  operationRoute(
    app,
    edgeVisits,
    async (_event, { body }) => {
      let counted = 0;
      for (const visit of body.visits) {
        const times = visit.count ?? 1;
        if (reposite.visits.count(visit.site_id, { method: visit.method, path: visit.path, userAgent: visit.user_agent }, times)) counted += times;
      }
      return { counted };
    },
    { bodyLimit: 8 * 1024 * 1024 },
  );
}
