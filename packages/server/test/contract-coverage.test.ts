import { OPERATIONS } from "@reposite/contract";
import type { H3Route } from "h3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { startHarness, type Harness } from "./harness.js";

/**
 * Routes that are neither API nor marked as pages (`pageRoute`, whose routes carry `meta.page`):
 * helpers of the app's screen in the browser, answered to a browser session, never to a token.
 * Site hosts (published sites, custom domains) are middleware, not routes, so they are not here.
 */
const BROWSER_HELPERS = new Set([
  // The app screen's script reads its logs and metrics with the session cookie (JSON errors, no redirect).
  "GET /account/apps/:site_id/logs",
  "GET /account/apps/:site_id/metrics",
  // The app screen's script and styles.
  "GET /account/assets/:file",
  // The dashboard's script follows a site's job (a build log, a fix) with the session cookie.
  "GET /account/sites/:site_id/jobs/:job_id/stream",
  // The dashboard's script checks an address as it is typed; its script and stylesheet.
  "GET /account/sites/slug-check",
  "GET /dashboard/assets/:file",
]);

const key = (method: string | undefined, path: string | undefined) => `${method ?? ""} ${path ?? ""}`;

// The contract (packages/contract) documents every API route, and every route of the API is bound
// with operationRoute to the operation that documents it: so the server validates requests with,
// and (in tests) answers by, the same schemas /openapi.json and the SDK are made of.
describe("the contract covers the API", () => {
  let h: Harness;
  let routes: H3Route[];
  beforeAll(async () => {
    h = await startHarness("in-process");
    // With every optional group of routes on (the Discourse hand-off registers its own).
    const app = createApp(h.reposite, { discourse: { url: "http://127.0.0.1:9", secret: "s".repeat(32) } });
    routes = app["~routes"];
  });
  afterAll(() => h.close());

  const isPage = (route: H3Route) => route.meta?.page === true;
  const operationOf = (route: H3Route) => route.meta?.operation as string | undefined;

  it("reads a route table with API routes and pages in it", () => {
    expect(routes.filter((route) => operationOf(route)).length).toBeGreaterThan(0);
    expect(routes.filter(isPage).map((route) => key(route.method, route.route))).toContain("GET /account");
  });

  it("binds every route that is not a page to an operation", () => {
    const unbound = routes
      .filter((route) => !isPage(route) && !operationOf(route) && !BROWSER_HELPERS.has(key(route.method, route.route)))
      .map((route) => key(route.method, route.route));
    expect(unbound, "routes without a documented operation (bind them with operationRoute)").toEqual([]);
  });

  it("mounts each route at its operation's method and path", () => {
    const byId = new Map(OPERATIONS.map((op) => [op.id, op]));
    const misplaced = routes
      .filter((route) => operationOf(route))
      .filter((route) => {
        const op = byId.get(operationOf(route)!);
        return !op || op.method !== route.method || op.path !== route.route;
      })
      .map((route) => `${key(route.method, route.route)} is bound to ${operationOf(route)}`);
    expect(misplaced).toEqual([]);
  });

  it("has a route for every operation, and one operation per method and path", () => {
    const bound = new Set(routes.map(operationOf).filter(Boolean));
    const missing = OPERATIONS.filter((op) => !bound.has(op.id)).map((op) => `${op.id} (${key(op.method, op.path)})`);
    expect(missing, "operations no route is bound to").toEqual([]);
    expect(new Set(OPERATIONS.map((op) => op.id)).size).toBe(OPERATIONS.length);
    expect(new Set(OPERATIONS.map((op) => key(op.method, op.path))).size).toBe(OPERATIONS.length);
  });

  it("lists as browser helpers only routes that exist, are not pages and are not API", () => {
    for (const helper of BROWSER_HELPERS) {
      const route = routes.find((each) => key(each.method, each.route) === helper);
      expect(route, helper).toBeDefined();
      expect(isPage(route!) || operationOf(route!) !== undefined, helper).toBe(false);
    }
  });
});
