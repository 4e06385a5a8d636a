import {
  CLOCK,
  DeploymentStore,
  EVENTS,
  PROJECT_CHANGED_CHANNEL,
  ProjectStore,
  PublishedSiteStore,
  siteUrl,
  type Clock,
  type EventBus,
  type ProjectChanged,
  type PublishedSiteInfo,
  type Reposite,
} from "@reposite/core";

/** How long an address known to hold no app is remembered (a flood of made-up hosts costs one read each). */
const REMEMBER_NONE_MS = 10_000;
/** Addresses remembered at most; past it the oldest are forgotten first. */
const MAX_REMEMBERED = 10_000;

/**
 * The site of a project that has an app but no published pages at its address, so `/app/` answers
 * there all the same (a deploy works before, or without, a publish). Read from storage once per
 * address and kept in memory until the project changes (`PROJECT_CHANGED_CHANNEL`: a setup, a
 * rename, a delete); an address without an app is remembered for a few seconds.
 */
export interface AppOnlySites {
  /** From memory: the site, null when the address holds no app, undefined when not known yet. */
  peek(slug: string): PublishedSiteInfo | null | undefined;
  /** Reads what the address holds and remembers it. */
  get(slug: string): Promise<PublishedSiteInfo | null>;
  close(): void;
}

export function createAppOnlySites(reposite: Reposite): AppOnlySites {
  const claims = reposite.container.resolve(PublishedSiteStore);
  const projects = reposite.container.resolve(ProjectStore);
  const apps = reposite.container.resolve(DeploymentStore);
  const clock = reposite.container.resolve<Clock>(CLOCK);
  const known = new Map<string, { site: PublishedSiteInfo | null; until: number }>();
  // A changed project may have gained, moved or lost an address: its entry and every "no app" go.
  const unsubscribe = reposite.container.resolve<EventBus>(EVENTS).subscribe(PROJECT_CHANGED_CHANNEL, (event) => {
    const { id } = event as ProjectChanged;
    for (const [slug, entry] of known) if (entry.site === null || entry.site.site_id === id) known.delete(slug);
  });

  const remember = (slug: string, site: PublishedSiteInfo | null) => {
    known.delete(slug);
    if (known.size >= MAX_REMEMBERED) known.delete(known.keys().next().value!);
    known.set(slug, { site, until: site ? Infinity : clock.now().getTime() + REMEMBER_NONE_MS });
    return site;
  };

  return {
    peek(slug) {
      const entry = known.get(slug);
      return entry && entry.until > clock.now().getTime() ? entry.site : undefined;
    },
    async get(slug) {
      const holder = await claims.holder(slug);
      const [project, app] = holder ? await Promise.all([projects.get(holder), apps.get(holder)]) : [null, null];
      if (!project || !app || project.slug !== slug) return remember(slug, null);
      return remember(slug, {
        site_id: project.id,
        owner_id: project.owner_id,
        slug,
        url: siteUrl(reposite.config, slug),
        design: project.design,
        name: project.name,
        pages: [],
        community: false,
        published_at: "",
        revision: 0,
      });
    },
    close: unsubscribe,
  };
}
