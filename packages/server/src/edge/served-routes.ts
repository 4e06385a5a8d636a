import type { AppRoute, AppRoutes, EdgeRoutes, EdgeRouteTable } from "@reposite/core";

/**
 * What a deploy waits on before it says `done` behind the nginx edge (`AppRoutes.addFront`): nginx
 * serves a site's `/app/` route as the `/app/` table has it now. The edge table follows the `/app/`
 * table (reading the project first for a new app) and nginx follows the edge table a reload later,
 * so both are checked: the edge table names the route, and a reload of that version (or a later
 * one) is done.
 */
export interface ServedRoutes {
  /** Resolves once nginx serves `siteId`'s current route. */
  waitServed(siteId: string): Promise<void>;
  /** Call after the edge table changed or nginx applied a version: waiters whose route is served now go on. */
  check(): void;
}

interface Waiter {
  siteId: string;
  /** The edge table's version that first named the route; null until it does. */
  version: number | null;
  resolve(): void;
}

export function createServedRoutes(table: Pick<EdgeRouteTable, "snapshot">, appRoutes: Pick<AppRoutes, "get">, servedVersion: () => number): ServedRoutes {
  const waiters = new Set<Waiter>();
  const named = (routes: EdgeRoutes, siteId: string) => {
    const app = routes.apps.find((each) => each.siteId === siteId);
    const route: AppRoute | undefined = appRoutes.get(siteId);
    if (!route) return !app;
    const target = route.status === "running" ? route.target : null;
    return app !== undefined && app.status === route.status && app.target?.host === target?.host && app.target?.port === target?.port;
  };
  const check = () => {
    if (waiters.size === 0) return;
    const routes = table.snapshot();
    for (const waiter of waiters) {
      if (waiter.version === null && named(routes, waiter.siteId)) waiter.version = routes.version;
      if (waiter.version !== null && servedVersion() >= waiter.version) (waiters.delete(waiter), waiter.resolve());
    }
  };
  return {
    waitServed: (siteId) =>
      new Promise<void>((resolve) => {
        waiters.add({ siteId, version: null, resolve });
        check();
      }),
    check,
  };
}
