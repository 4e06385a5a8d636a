import { apiReferenceMarkdown } from "@reposite/contract";
import { RepositeError, type Reposite } from "@reposite/core";
import type { H3, H3Event } from "h3";
import { apiReference } from "../api-reference.js";
import { currentSession } from "../http/browser-session.js";
import { operationRoute } from "../http/operation-route.js";
import { pageRoute, toPageSession } from "../http/page-route.js";
import { apiReferenceMissingPage, apiReferencePage } from "../pages/api-reference-page.js";
import { homePage } from "../pages/home-page.js";
import { pageResponse } from "../pages/layout.js";
import { SERVER_VERSION } from "../version.js";

/** A browser asks for HTML; an API client (`Accept: application/json`, or curl's `*\/*`) gets JSON. */
const wantsHtml = (event: H3Event) => /\btext\/html\b/i.test(event.req.headers.get("accept") ?? "");

/** The server's root address, and its API reference, readable offline. */
export function homeRoutes(app: H3, reposite: Reposite): void {
  const { baseUrl, sitesDomain } = reposite.config;

  app.get(
    "/",
    pageRoute(async (event) => {
      event.res.headers.set("vary", "Accept");
      if (!wantsHtml(event)) {
        event.res.headers.set("cache-control", "no-store");
        return {
          service: "reposite",
          version: SERVER_VERSION,
          api: baseUrl,
          account_url: `${baseUrl}/account`,
          api_reference: `${baseUrl}/docs/api`,
          openapi: `${baseUrl}/openapi.json`,
          health: `${baseUrl}/healthz`,
        };
      }
      const current = await currentSession(reposite, event);
      const session = current ? toPageSession(reposite, current) : null;
      return pageResponse(homePage({ baseUrl, sitesDomain, version: SERVER_VERSION, session }), 200, { vary: "Accept" });
    }),
  );

  app.get(
    "/docs/api",
    pageRoute(async () => {
      const markdown = await apiReference();
      return markdown ? pageResponse(apiReferencePage(markdown)) : pageResponse(apiReferenceMissingPage(), 404);
    }),
  );

  operationRoute(app, apiReferenceMarkdown, async () => {
    const markdown = await apiReference();
    if (!markdown) throw new RepositeError(404, "The API reference is not part of this copy of the server.", "not_found");
    return new Response(markdown, { headers: { "content-type": "text/markdown; charset=utf-8", "cache-control": "no-cache", "x-content-type-options": "nosniff" } });
  });
}
