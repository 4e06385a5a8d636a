import { inject, injectable } from "tsyringe";
import { ForumService } from "../community/forum-service.js";
import { notFound } from "../errors.js";
import { GenerationPlanStore } from "../generation/plan-store.js";
import { HostingService } from "../hosting/hosting-service.js";
import { MembersService } from "../members/members-service.js";
import { PageVersionsService } from "../pages/page-versions-service.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { EVENTS, type EventBus } from "../ports/events.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { ProjectStore } from "../projects/project-store.js";
import { isWellFormedId } from "../util/record-ids.js";
import { formatTimestamp } from "../util/timestamps.js";
import { SITE_CHANGED_CHANNEL, type SiteChanged } from "./published-site.js";
import { PublishedSiteStore } from "./published-site-store.js";
import { siteLock } from "./publishing-service.js";
import { SiteImages } from "./site-images.js";

/**
 * What a project deleted without `purge` leaves while its site stays up: who owned it, so that
 * owner (and nobody else) can still take the site down and purge what it holds.
 */
interface DeletedProject {
  site_id: string;
  owner_id: string;
  slug: string | null;
  deleted_at: string;
}

const deletedKey = (siteId: string) => `deleted-projects:${siteId}`;

/**
 * Deleting a project (`DELETE /app/sites/{site_id}`), under the project's publishing lock, so a
 * publish, rename or take-down never interleaves with it.
 *
 * - Without `purge`, while a site is live: the project record goes; the site stays up with what it
 *   runs on (its snapshot and preview image, its address, its members and their sessions, its
 *   forum) and the pages' versions stay too; a `deleted-projects:` record keeps who owned it.
 * - With `purge`, or when nothing is live: everything keyed by the project goes. The site is taken
 *   down first (its address answers "no site here" at once) and freed, then members, sessions,
 *   forum, page versions and history, the preview image, the copied README pictures, the project and the ownership record.
 *   The ownership proof (project or `deleted-projects:` record) goes last, so a purge that stopped
 *   half-way can be asked for again.
 *
 * The hosted app goes in both cases, first (`HostingService.removeApp`): a run under way is
 * cancelled, then its containers, images, data volume, network and runs.
 *
 * A purge after a delete is the owner's only: anyone else gets the same `404` as for a project
 * that never was.
 */
@injectable()
export class ProjectRemoval {
  constructor(
    @inject(ProjectStore) private readonly projects: ProjectStore,
    @inject(PublishedSiteStore) private readonly sites: PublishedSiteStore,
    @inject(MembersService) private readonly members: MembersService,
    @inject(ForumService) private readonly forum: ForumService,
    @inject(PageVersionsService) private readonly versions: PageVersionsService,
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(EVENTS) private readonly events: EventBus,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(HostingService) private readonly hosting: HostingService,
    @inject(SiteImages) private readonly images: SiteImages,
    @inject(GenerationPlanStore) private readonly plans: GenerationPlanStore,
  ) {}

  /** Deletes the caller's project, or purges what a deleted one left; `404` for anyone else. */
  async delete(ownerId: string, siteId: string, options: { purge?: boolean } = {}): Promise<void> {
    if (!isWellFormedId(siteId, "site")) throw notFound("Project not found.");
    await this.locks.withLock(siteLock(siteId), async () => {
      const project = await this.projects.get(siteId);
      const deleted = project ? null : await this.storage.getItem<DeletedProject>(deletedKey(siteId));
      if ((project?.owner_id ?? deleted?.owner_id) !== ownerId) throw notFound("Project not found.");
      // The hosted app goes with the project either way: its containers, images, data and runs.
      if (project) await this.hosting.removeApp(siteId);
      // So does its generation plan (generation's record).
      if (project) await this.plans.remove(siteId);
      if (!options.purge) {
        if (!project) {
          throw notFound("Project not found: it was deleted and its site is still up. DELETE it with purge=1 to take the site down and remove what it holds.");
        }
        if (await this.sites.getBySite(siteId)) {
          const left: DeletedProject = { site_id: siteId, owner_id: ownerId, slug: project.slug, deleted_at: formatTimestamp(this.clock.now()) };
          await this.storage.setItem(deletedKey(siteId), left);
          await this.projects.remove(project);
          return;
        }
      }
      await this.purge(siteId, [project?.slug ?? null, deleted?.slug ?? null]);
      if (project) await this.projects.remove(project);
      await this.storage.removeItem(deletedKey(siteId));
    });
  }

  /** Takes the site down, frees its addresses, and removes everything else keyed by the project. */
  private async purge(siteId: string, slugs: (string | null)[]): Promise<void> {
    const live = await this.sites.remove(siteId);
    if (live) {
      const event: SiteChanged = { slug: live };
      this.events.publish(SITE_CHANGED_CHANNEL, event);
    }
    for (const slug of new Set([...slugs, live])) if (slug) await this.sites.release(slug, siteId);
    await this.sites.removeAllApartBodies(siteId);
    await this.images.removeAll(siteId);
    await this.members.purgeSite(siteId);
    await this.forum.purgeSite(siteId);
    await this.versions.purgeSite(siteId);
  }
}
