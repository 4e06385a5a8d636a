import { OPERATIONS, openApi, openApiDocument } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { operationRoute } from "../http/operation-route.js";
import { SERVER_VERSION } from "../version.js";

/**
 * `GET /openapi.json`: the API as OpenAPI 3.1, written from the same operations the routes
 * validate with. It never changes while the server runs, so it is written once, on first ask.
 */
export function openApiRoutes(app: H3, reposite: Reposite): void {
  let document: Record<string, unknown> | undefined;
  operationRoute(app, openApi, (event) => {
    document ??= openApiDocument(OPERATIONS, { version: SERVER_VERSION, serverUrl: reposite.config.baseUrl });
    event.res.headers.set("cache-control", "no-cache");
    return document;
  });
}
