import { inject, injectable } from "tsyringe";
import { CONFIG, type RepositeConfig } from "../config.js";
import { DomainTable } from "../domains/domain-table.js";
import { AppRoutes, type AppLease, type AppRoute } from "../hosting/app-routes.js";
import type { DeploymentStatus } from "../projects/deployment.js";
import { EVENTS, type EventBus } from "../ports/events.js";
import { PROJECT_CHANGED_CHANNEL } from "../projects/project-events.js";
import { ProjectStore } from "../projects/project-store.js";
import type { EdgeApp, EdgeRoutes, ProjectRoute } from "./edge-routes.js";

/** Host name of a configured domain: lower case, without port and trailing dot. */
const hostnameOf = (domain: string) => domain.trim().toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");

/** Projects without an app kept at most (the `/app/` proxy asks about any site); past it they are read again when asked. */
const MAX_WITHOUT_APP = 10_000;

/**
 * The one route table of a composition: which host serves which site, which verified custom
 * domain names which slug, where each site's app answers and whether it is members only. The
 * Node runtime decides every request from it (`customDomain`, `projectRoute`, and the `/app/`
 * table's lease for the target) and the nginx edge is configured from its `snapshot()`, so the two
 * cannot disagree. It copies nothing: domains are the `DomainTable`'s, targets and states the
 * `AppRoutes`' (read when asked), and of a project it keeps only its slug, owner and gate, read
 * once when its app's route appears (or when the proxy first asks) and again when
 * `PROJECT_CHANGED_CHANNEL` names it. One per composition (a singleton of its container).
 *
 * Published sites are listed once their files are on the edge's disk (`siteOnDisk`): a host is
 * routed to its folder only then, and to Reposite before.
 */
@injectable()
export class EdgeRouteTable {
  /** By site id; null: no such project. */
  private readonly projects = new Map<string, ProjectRoute | null>();
  /** Reads under way, by site id: the newest one is the one kept. */
  private readonly reading = new Map<string, Promise<ProjectRoute | null>>();
  /** Projects written since their entry was read: the entry still routes the edge, the proxy waits for the read. */
  private readonly stale = new Set<string>();
  private readonly sites = new Set<string>();
  private readonly listeners = new Set<(routes: EdgeRoutes) => void>();
  private version = 1;
  private readonly stops: (() => void)[] = [];
  private readonly sitesDomain: string;

  constructor(
    @inject(AppRoutes) private readonly appRoutes: AppRoutes,
    @inject(DomainTable) private readonly domains: DomainTable,
    @inject(ProjectStore) private readonly store: ProjectStore,
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
        if (typeof id === "string") this.projectChanged(id);
      }),
    );
  }

  /** Reads the projects of the apps already in the `/app/` table (after `HostingService.recover`). */
  async load(): Promise<void> {
    await Promise.all(this.appRoutes.entries().map(([siteId]) => this.read(siteId).catch(() => null)));
  }

  /** The slug a verified custom domain serves, or undefined (the host router asks it for hosts outside the sites domain). */
  customDomain = (hostname: string): string | undefined => this.domains.resolve(hostname);

  /**
   * What the table knows of a project, from memory: undefined when it has to be read first
   * (never asked, or written since): then call `readProjectRoute`.
   */
  projectRoute(siteId: string): ProjectRoute | null | undefined {
    if (this.stale.has(siteId)) return undefined;
    return this.projects.get(siteId);
  }

  /** The project's entry, read from storage when memory does not have it current (concurrent callers share one read). */
  readProjectRoute(siteId: string): Promise<ProjectRoute | null> {
    const known = this.projectRoute(siteId);
    if (known !== undefined) return Promise.resolve(known);
    return this.reading.get(siteId) ?? this.read(siteId);
  }

  /** The running app's target for one request, counted until released (the `/app/` table's lease); null when it is not running. */
  lease(siteId: string): AppLease | null {
    return this.appRoutes.acquire(siteId);
  }

  /** The app's state (which "not running" page a request gets), or undefined when the site has no app. */
  appStatus(siteId: string): DeploymentStatus | undefined {
    return this.appRoutes.get(siteId)?.status;
  }

  /** The table now. */
  snapshot(): EdgeRoutes {
    const apps: EdgeApp[] = [];
    for (const [siteId, route] of this.appRoutes.entries()) {
      const project = this.projects.get(siteId);
      if (project?.slug) apps.push({ siteId, slug: project.slug, target: targetOf(route), gated: project.gated, status: route.status });
    }
    return {
      version: this.version,
      sitesDomain: this.sitesDomain,
      apps: apps.sort((a, b) => a.slug.localeCompare(b.slug)),
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

  /** Stops following its sources and telling listeners (the composition is closing). */
  close(): void {
    for (const stop of this.stops.splice(0)) stop();
    this.listeners.clear();
  }

  private appChanged(siteId: string, route: AppRoute | undefined): void {
    const project = this.projects.get(siteId);
    // The slug and gate are known: only the target or state moved (a deploy, a stop), nothing to read.
    if (project) return this.changed();
    if (route && project === undefined && !this.reading.has(siteId)) void this.read(siteId).catch(() => null);
  }

  private projectChanged(siteId: string): void {
    if (this.appRoutes.get(siteId)) {
      // An app's entry keeps routing the edge until the new read lands; the proxy waits for that read.
      this.stale.add(siteId);
      void this.read(siteId).catch(() => null);
    } else {
      this.projects.delete(siteId);
      this.stale.delete(siteId);
      this.reading.delete(siteId);
    }
  }

  private read(siteId: string): Promise<ProjectRoute | null> {
    const pending = this.store.get(siteId).then(
      (record) => {
        const project: ProjectRoute | null = record ? { siteId, slug: record.slug || null, ownerId: record.owner_id, gated: record.auth_redirect_to_app === true } : null;
        // A later change started a newer read: that one's answer is kept.
        if (this.reading.get(siteId) !== pending) return project;
        this.reading.delete(siteId);
        this.stale.delete(siteId);
        this.keep(siteId, project);
        return project;
      },
      (error: unknown) => {
        if (this.reading.get(siteId) === pending) this.reading.delete(siteId);
        console.error(`[reposite] [routes] reading project ${siteId} failed; its app keeps its last route:`, error);
        throw error;
      },
    );
    this.reading.set(siteId, pending);
    return pending;
  }

  private keep(siteId: string, project: ProjectRoute | null): void {
    const before = this.projects.get(siteId);
    if (!this.appRoutes.get(siteId) && !this.projects.has(siteId) && this.projects.size >= MAX_WITHOUT_APP) {
      for (const id of this.projects.keys()) if (!this.appRoutes.get(id)) this.projects.delete(id);
    }
    this.projects.set(siteId, project);
    const routed = this.appRoutes.get(siteId) !== undefined;
    if (routed && !sameProject(before, project)) this.changed();
  }

  private changed(): void {
    this.version += 1;
    if (this.listeners.size === 0) return;
    const routes = this.snapshot();
    for (const listener of this.listeners) listener(routes);
  }
}

const targetOf = (route: AppRoute) => (route.status === "running" && route.target ? { ...route.target } : null);

const sameProject = (a: ProjectRoute | null | undefined, b: ProjectRoute | null) => a?.slug === b?.slug && a?.gated === b?.gated && a?.ownerId === b?.ownerId;
