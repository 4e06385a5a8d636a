import { inject, injectable } from "tsyringe";
import { CONFIG, type RepositeConfig } from "../config.js";
import { DomainTable } from "../domains/domain-table.js";
import { AppRoutes, type AppRoute } from "../hosting/app-routes.js";
import { EVENTS, type EventBus } from "../ports/events.js";
import { PROJECT_CHANGED_CHANNEL } from "../projects/project-events.js";
import { ProjectStore } from "../projects/project-store.js";
import type { EdgeApp, EdgeRoutes } from "./edge-routes.js";

/** Host name of a configured domain: lower case, without port and trailing dot. */
const hostnameOf = (domain: string) => domain.trim().toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");

/**
 * The edge's route table, kept from what the Node runtime already holds in memory: the `/app/`
 * table (`AppRoutes`) and the verified custom domains (`DomainTable`). An app's slug and members
 * gate come from its project record, read once when the app's route first appears and again only
 * when `PROJECT_CHANGED_CHANNEL` names that project: projects without an app cost nothing.
 *
 * Published sites are listed once their files are on the edge's disk (`siteOnDisk`): a host is
 * routed to its folder only then, and to Reposite before. Made only in edge mode
 * (`container.resolve(EdgeRouteTable)`).
 */
@injectable()
export class EdgeRouteTable {
  private readonly apps = new Map<string, EdgeApp>();
  private readonly sites = new Set<string>();
  private readonly listeners = new Set<(routes: EdgeRoutes) => void>();
  private version = 1;
  /** Bumped per site on each change, so a project read that an older change started is not kept. */
  private readonly reads = new Map<string, number>();
  private readonly stops: (() => void)[] = [];
  private readonly sitesDomain: string;

  constructor(
    @inject(AppRoutes) private readonly appRoutes: AppRoutes,
    @inject(DomainTable) private readonly domains: DomainTable,
    @inject(ProjectStore) private readonly projects: ProjectStore,
    @inject(EVENTS) events: EventBus,
    @inject(CONFIG) config: RepositeConfig,
  ) {
    this.sitesDomain = hostnameOf(config.sitesDomain);
    this.stops.push(
      appRoutes.onChange((siteId, route) => this.appChanged(siteId, route)),
      domains.onChange(({ before, after }) => {
        if (before?.verified || after?.verified) this.changed();
      }),
      events.subscribe(PROJECT_CHANGED_CHANNEL, (event) => {
        const id = (event as { id?: unknown } | null)?.id;
        if (typeof id === "string" && this.appRoutes.get(id)) void this.readProject(id, this.appRoutes.get(id)!);
      }),
    );
  }

  /** Reads the projects of the apps already in the `/app/` table (after `HostingService.recover`). */
  async load(): Promise<void> {
    await Promise.all(this.appRoutes.entries().map(([siteId, route]) => this.readProject(siteId, route)));
  }

  /** The table now. */
  snapshot(): EdgeRoutes {
    return {
      version: this.version,
      sitesDomain: this.sitesDomain,
      apps: [...this.apps.values()].sort((a, b) => a.slug.localeCompare(b.slug)),
      domains: this.domains
        .verified()
        .map(({ domain, slug }) => ({ domain, slug }))
        .sort((a, b) => a.domain.localeCompare(b.domain)),
      sites: [...this.sites].sort(),
    };
  }

  /** Says whether `slug`'s site files are on the edge's disk now (written, or removed). */
  siteOnDisk(slug: string, present: boolean): void {
    if (present === this.sites.has(slug)) return;
    if (present) this.sites.add(slug);
    else this.sites.delete(slug);
    this.changed();
  }

  /** Calls `listener` with the new table after every change; the returned function stops it. */
  subscribe(listener: (routes: EdgeRoutes) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    for (const stop of this.stops) stop();
    this.listeners.clear();
  }

  private appChanged(siteId: string, route: AppRoute | undefined): void {
    if (!route) {
      this.reads.set(siteId, (this.reads.get(siteId) ?? 0) + 1);
      if (this.apps.delete(siteId)) this.changed();
      return;
    }
    const known = this.apps.get(siteId);
    // The slug and gate are known: only the target moved (a deploy, a stop), nothing to read.
    if (known) return this.put({ ...known, target: targetOf(route), status: route.status });
    void this.readProject(siteId, route);
  }

  private async readProject(siteId: string, route: AppRoute): Promise<void> {
    const read = (this.reads.get(siteId) ?? 0) + 1;
    this.reads.set(siteId, read);
    let project;
    try {
      project = await this.projects.get(siteId);
    } catch (error) {
      console.error(`[reposite] [edge] reading project ${siteId} failed; its app keeps its last route:`, error);
      return;
    }
    if (this.reads.get(siteId) !== read) return;
    const current = this.appRoutes.get(siteId) ?? route;
    if (!project?.slug) {
      if (this.apps.delete(siteId)) this.changed();
      return;
    }
    this.put({ siteId, slug: project.slug, target: targetOf(current), gated: project.auth_redirect_to_app, status: current.status });
  }

  private put(app: EdgeApp): void {
    const before = this.apps.get(app.siteId);
    if (before && sameApp(before, app)) return;
    this.apps.set(app.siteId, app);
    this.changed();
  }

  private changed(): void {
    this.version += 1;
    const routes = this.snapshot();
    for (const listener of this.listeners) listener(routes);
  }
}

const targetOf = (route: AppRoute) => (route.status === "running" && route.target ? { ...route.target } : null);

const sameApp = (a: EdgeApp, b: EdgeApp) =>
  a.slug === b.slug && a.gated === b.gated && a.status === b.status && a.target?.host === b.target?.host && a.target?.port === b.target?.port;
