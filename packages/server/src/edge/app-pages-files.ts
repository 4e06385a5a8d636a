import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CLOCK, EVENTS, ProjectCache, SITE_CHANGED_CHANNEL, type Clock, type EdgeApp, type EdgeRouteTable, type EdgeRoutes, type Reposite } from "@reposite/core";
import { createAppOnlySites } from "../app-proxy/app-only-sites.js";
import { noAnswerPage, notRunningPage, type PageFrame } from "../app-proxy/app-pages.js";

/** The apps' "not up" pages on the edge's disk, kept in step with the route table. */
export interface EdgeAppPages {
  /** Resolves once every write asked for so far is done. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Writes each app's 503 page (for its state now) and 502 page under `<dir>/<slug>/`, drawn by the
 * Node proxy's own code (`app-pages.ts`) in the site's design, so nginx answers what Node would.
 * Written again when the app's state or slug changes, or its site is published again (its design and
 * pages); removed with the app. Writes go through a temporary name and a rename: nginx never reads half a page.
 */
export function startEdgeAppPages(reposite: Reposite, table: Pick<EdgeRouteTable, "snapshot" | "subscribe">, dir: string): EdgeAppPages {
  const appOnly = createAppOnlySites(reposite);
  const projects = reposite.container.resolve(ProjectCache);
  const clock = reposite.container.resolve<Clock>(CLOCK);
  /** What each slug's pages were written for (`status`), so an unchanged app is not drawn again. */
  const written = new Map<string, string>();
  let running: Promise<void> = Promise.resolve();
  let closed = false;

  const frameOf = async (app: EdgeApp): Promise<PageFrame | null> => {
    const site = (await reposite.siteCache.get(app.slug))?.site ?? (await appOnly.get(app.slug));
    if (!site || site.site_id !== app.siteId) return null;
    return { site, project: await projects.get(site.site_id), clock };
  };
  const writePage = async (folder: string, name: string, body: string) => {
    const temporary = join(folder, `.${name}.tmp`);
    await writeFile(temporary, body);
    await rename(temporary, join(folder, name));
  };
  const sync = async (routes: EdgeRoutes, redraw: ReadonlySet<string>) => {
    const wanted = new Set(routes.apps.map((app) => app.slug));
    for (const app of routes.apps) {
      const key = `${app.siteId}:${app.status ?? "none"}`;
      if (written.get(app.slug) === key && !redraw.has(app.slug)) continue;
      const frame = await frameOf(app);
      if (!frame) continue;
      const folder = join(dir, app.slug);
      await mkdir(folder, { recursive: true });
      await writePage(folder, "503.html", notRunningPage(frame, app.status).body);
      await writePage(folder, "502.html", noAnswerPage(frame).body);
      written.set(app.slug, key);
    }
    for (const slug of await readdir(dir).catch(() => [] as string[])) {
      if (!wanted.has(slug)) (written.delete(slug), await rm(join(dir, slug), { recursive: true, force: true }));
    }
  };
  const schedule = (redraw: ReadonlySet<string> = new Set()) => {
    running = running
      .then(() => (closed ? undefined : sync(table.snapshot(), redraw)))
      .catch((error: unknown) => console.error("[reposite] [edge] writing the apps' 503/502 pages failed; Reposite answers them meanwhile:", error));
    return running;
  };

  const stops = [
    table.subscribe(() => void schedule()),
    // After the site cache dropped its copy (listeners run in subscription order).
    reposite.container.resolve(EVENTS).subscribe(SITE_CHANGED_CHANNEL, (event) => {
      const slug = (event as { slug?: unknown } | null)?.slug;
      if (typeof slug === "string") setImmediate(() => void schedule(new Set([slug])));
    }),
  ];
  void mkdir(dir, { recursive: true }).then(() => schedule());
  return {
    settled: async () => {
      let seen: Promise<void>;
      do await (seen = running);
      while (seen !== running);
    },
    async close() {
      closed = true;
      for (const stop of stops) stop();
      appOnly.close();
      await running;
    },
  };
}
