import { createHash } from "node:crypto";
import { inject, injectable } from "tsyringe";
import { publishPageSchema, publishSchema, setSlugSchema, type PublishResult, type SlugCheck, type SlugView } from "@reposite/contract";
import { CONFIG, siteUrl, type RepositeConfig } from "../config.js";
import type { Design } from "../designs/design.js";
import { findDesign, pickDesign } from "../designs/index.js";
import { conflict, notFound, unprocessable } from "../errors.js";
import { GenerationPlanStore } from "../generation/plan-store.js";
import { DeploymentStore } from "../hosting/deployment-store.js";
import { PAGE_KINDS, type PageVersionRecord } from "../pages/page-version.js";
import { PageVersionsService } from "../pages/page-versions-service.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { EVENTS, type EventBus } from "../ports/events.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { SEARCH_NOTIFIER, type SearchNotifier } from "../ports/search-notifier.js";
import { logoSource, type ColorMode, type PageKind, type ProjectRecord, type Wizard } from "../projects/project.js";
import { ProjectStore } from "../projects/project-store.js";
import { ProjectsService } from "../projects/projects-service.js";
import { PAGE_PATHS, renderNotFoundPage, renderPage, type SiteContext } from "../rendering/index.js";
import { formatTimestamp } from "../util/timestamps.js";
import { parseInput } from "../util/validation.js";
import { renderPreviewImage } from "./preview-image.js";
import { SITE_CHANGED_CHANNEL, type PublishedFile, type PublishedSite, type SiteChanged } from "./published-site.js";
import { PublishedSiteStore } from "./published-site-store.js";
import { publishWarnings } from "./publish-warnings.js";
import { renderRobots } from "./robots.js";
import { readdressHtml } from "./site-address.js";
import { injectHead, notFoundHead, pageMeta, PREVIEW_IMAGE_PATH, siteHead, stripSiteHead } from "./site-head.js";
import { renderFavicons } from "./favicon.js";
import { isSiteImagePath, SiteImages } from "./site-images.js";
import { renderSitemap } from "./sitemap.js";
import { slugCandidates, slugFromName, slugProblem } from "./slugs.js";

/** The answers of `GET /app/subdomain-check`, `POST …/slug` and `POST …/publish(-page)`, as the contract has them. */
export type { PublishResult, SlugCheck, SlugView };

const HTML = "text/html; charset=utf-8";
const TEXT = "text/plain; charset=utf-8";
const XML = "application/xml; charset=utf-8";
const PNG = "image/png";

/** The sign-in page is for people who have an account, not for search results. */
const INDEXED: readonly PageKind[] = ["template", "about", "faq"];

/** One publish of one project at a time: a publish, a rename, a take-down and a delete never interleave. */
export const siteLock = (siteId: string) => `publishing:${siteId}`;

/**
 * Addresses and publishing. Publishing copies each page's current version into a snapshot
 * (`PublishedSite`) with everything the site serves: pages with link-preview and analytics tags,
 * the 404 page, `sitemap.xml`, `robots.txt`, the preview image and the search key file. Generated
 * pages are rendered from their content at publish time, all in the project's one design and
 * color_mode, so a site never mixes looks; custom HTML is published as written. The runtime serves
 * the snapshot as it is, so changes to pages or the design show only after the next publish.
 *
 * Do not call these methods inside `ProjectStore.modify`: they take the project's lock themselves.
 */
@injectable()
export class PublishingService {
  private readonly notifying = new Set<Promise<void>>();

  constructor(
    @inject(ProjectsService) private readonly projects: ProjectsService,
    @inject(ProjectStore) private readonly store: ProjectStore,
    @inject(PageVersionsService) private readonly versions: PageVersionsService,
    @inject(PublishedSiteStore) private readonly sites: PublishedSiteStore,
    @inject(CONFIG) private readonly config: RepositeConfig,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(EVENTS) private readonly events: EventBus,
    @inject(SiteImages) private readonly images: SiteImages,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(GenerationPlanStore) private readonly plans: GenerationPlanStore,
    @inject(SEARCH_NOTIFIER, { isOptional: true }) private readonly notifier?: SearchNotifier,
  ) {}

  /** Whether `slug` could be an address now: `invalid`, `reserved` or `taken` when not. */
  async checkSlug(slug: unknown): Promise<SlugCheck> {
    if (typeof slug !== "string") return { available: false, reason: "invalid" };
    const problem = slugProblem(slug);
    if (problem) return { available: false, reason: problem };
    const holder = await this.sites.holder(slug);
    if (holder !== null && !(await this.isStaleClaim(slug, holder))) return { available: false, reason: "taken" };
    return { available: true };
  }

  /**
   * Gives the project the address `slug`. A published site moves with it (its pages' canonical
   * and preview URLs, sitemap and robots follow) and the old address is freed and stops answering.
   * `422 invalid_slug`, `409 slug_reserved`, `409 slug_taken`.
   */
  async setSlug(ownerId: string, siteId: string, input: unknown): Promise<SlugView> {
    const { slug } = parseInput(setSlugSchema, input);
    assertUsable(slug);
    await this.projects.getOwned(ownerId, siteId);
    return this.locks.withLock(siteLock(siteId), async () => {
      const project = await this.projects.getOwned(ownerId, siteId);
      if (project.slug !== slug) {
        const updated = await this.claimAndSave(project, slug);
        if (!updated) throw conflict(`The address ${slug} is taken; choose another.`, "slug_taken", { field: "slug" });
        await this.moveTo(project, updated);
      }
      return { slug, url: siteUrl(this.config, slug) };
    });
  }

  /**
   * The project's slug; one derived from its name is claimed first when it has none (`-2`, `-3` …
   * or a short random suffix when that is taken or reserved). For the first deployment setup.
   */
  async ensureSlug(ownerId: string, siteId: string): Promise<string> {
    await this.projects.getOwned(ownerId, siteId);
    return this.locks.withLock(siteLock(siteId), async () => {
      const project = await this.projects.getOwned(ownerId, siteId);
      return project.slug ?? (await this.claimDerivedSlug(project)).slug!;
    });
  }

  /**
   * Puts every current page live at the project's address, with sign-in at `/auth`. A project
   * without an address gets one derived from its name (as `ensureSlug`). `discourse` opens the
   * forum; it defaults to the plan's `community`. `409 nothing_to_publish` without any page.
   */
  async publish(ownerId: string, siteId: string, input: unknown): Promise<PublishResult> {
    const { discourse } = parseInput(publishSchema, input);
    await this.projects.getOwned(ownerId, siteId);
    return this.locks.withLock(siteLock(siteId), async () => {
      let project = await this.projects.getOwned(ownerId, siteId);
      const records = sortPages(await this.versions.currentPages(ownerId, siteId));
      if (records.length === 0) {
        throw conflict("The project has no page yet. Generate the site (POST /app/sites/{site_id}/generate) or add a page first.", "nothing_to_publish");
      }
      if (project.slug === null) project = await this.claimDerivedSlug(project);
      else if (!(await this.claim(project.slug, siteId))) {
        throw conflict(`The address ${project.slug} is taken by another project; set another slug.`, "slug_taken");
      }
      const slug = project.slug!;
      const url = siteUrl(this.config, slug);
      const previous = await this.sites.getBySite(siteId);
      const now = this.clock.now();
      const plan = await this.plans.get(siteId);
      const community = discourse ?? plan?.community ?? false;
      const pages = records.map((record) => record.kind);
      const look: SiteLook = { design: designOf(project), colorMode: project.color_mode };
      const design = look.design;
      const context = siteContext(project, plan, pages, community, now, look.colorMode);
      const earlier = previous?.files ?? {};

      const files: Record<string, PublishedFile> = {};
      const add = (file: PublishedFile) => (files[file.path] = file);
      for (const record of records) add(this.pageFile(project, url, record, look, context, earlier, now));
      // The README pictures copied for the site that its pages show (SiteImages).
      for (const image of await this.images.publishedFiles(project.id, files)) add(toFile(image.path, image.contentType, image.body, earlier, now));
      add(toFile("/404", HTML, renderNotFoundPage(design, context, { head: notFoundHead(project.ga_id) }), earlier, now));
      add(toFile("/robots.txt", TEXT, renderRobots(url), earlier, now));
      add(toFile("/sitemap.xml", XML, sitemapOf(url, files), earlier, now));
      const image = await renderPreviewImage({
        name: project.name,
        description: project.description || project.repository.description,
        caption: repositoryCaption(project.repository.url),
        design,
        colorMode: project.color_mode,
      });
      // Asked for by link previews only: kept in a record of its own, so serving the site never holds it.
      const preview = apart(toFile(PREVIEW_IMAGE_PATH, PNG, image, earlier, now), image);
      add(preview.file);
      for (const icon of await renderFavicons({ name: project.name, logo: logoSource(project), design, colorMode: project.color_mode })) {
        add(toFile(icon.path, icon.contentType, icon.body, earlier, now));
      }
      const keyFile = this.notifier?.keyFile;
      if (keyFile) add(toFile(keyFile.path, TEXT, keyFile.body, earlier, now));

      const site: PublishedSite = {
        site_id: project.id,
        owner_id: project.owner_id,
        slug,
        url,
        design: design.id,
        color_mode: look.colorMode,
        name: project.name,
        pages,
        community,
        files,
        published_at: iso(now),
        revision: (previous?.revision ?? 0) + 1,
      };
      await this.save(site, previous, [preview]);
      this.notifySearch(site, changedPages(site, previous));
      return { url, pages, warnings: publishWarnings(plan, await this.deployments.get(project.id)) };
    });
  }

  /**
   * Puts one page's current version live; the rest of the site stays as last published. A generated
   * page is drawn in the design and color_mode the site was last published with, so it matches the
   * pages around it; a new design or color_mode reaches the site with the next whole publish.
   * `409 not_published` before the first publish, `409 nothing_to_publish` when the page has no version.
   */
  async publishPage(ownerId: string, siteId: string, input: unknown): Promise<PublishResult> {
    const { kind } = parseInput(publishPageSchema, input);
    await this.projects.getOwned(ownerId, siteId);
    return this.locks.withLock(siteLock(siteId), async () => {
      const project = await this.projects.getOwned(ownerId, siteId);
      const previous = await this.sites.getBySite(siteId);
      if (!previous) {
        throw conflict("The site is not published yet. Publish it whole first (POST /app/sites/{site_id}/publish).", "not_published");
      }
      const record = (await this.versions.currentPages(ownerId, siteId)).find((each) => each.kind === kind);
      if (!record) throw conflict(`The ${kind} page has no version to publish. Generate it or add one first.`, "nothing_to_publish");
      const now = this.clock.now();
      const files = { ...previous.files };
      const pages = PAGE_KINDS.filter((each) => each === kind || previous.pages.includes(each));
      const look: SiteLook = { design: findDesign(previous.design) ?? designOf(project), colorMode: previous.color_mode ?? project.color_mode };
      const plan = await this.plans.get(siteId);
      const context = siteContext(project, plan, pages, previous.community, now, look.colorMode);
      const page = this.pageFile(project, previous.url, record, look, context, previous.files, now);
      files[page.path] = page;
      // The copied pictures the pages show now, and no others (SiteImages).
      for (const path of Object.keys(files)) if (isSiteImagePath(path)) delete files[path];
      for (const image of await this.images.publishedFiles(siteId, files)) files[image.path] = toFile(image.path, image.contentType, image.body, previous.files, now);
      const sitemap = toFile("/sitemap.xml", XML, sitemapOf(previous.url, files), previous.files, now);
      files[sitemap.path] = sitemap;
      const site: PublishedSite = { ...previous, color_mode: look.colorMode, pages, files, published_at: iso(now), revision: previous.revision + 1 };
      await this.save(site, previous);
      this.notifySearch(site, changedPages(site, previous));
      return { url: site.url, pages, warnings: publishWarnings(plan, await this.deployments.get(project.id)) };
    });
  }

  /**
   * Takes the published site down (the address stops answering). With `releaseSlug` the address is
   * freed too, as when the project is deleted with `purge`. Answers whether a site was live.
   */
  async unpublish(ownerId: string, siteId: string, options: { releaseSlug?: boolean } = {}): Promise<{ unpublished: boolean }> {
    await this.projects.getOwned(ownerId, siteId);
    return this.locks.withLock(siteLock(siteId), async () => {
      const project = await this.projects.getOwned(ownerId, siteId);
      const slug = await this.sites.remove(siteId);
      if (options.releaseSlug) {
        for (const each of new Set([project.slug, slug])) if (each) await this.sites.release(each, siteId);
      }
      if (slug) this.siteChanged(slug);
      return { unpublished: slug !== null };
    });
  }

  /** Waits for search-engine notices still under way (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.notifying.size > 0) await Promise.all([...this.notifying]);
  }

  // --- addresses -------------------------------------------------------------------------------

  private claim(slug: string, siteId: string): Promise<boolean> {
    return this.sites.claim(slug, siteId, (holder) => this.isStaleClaim(slug, holder));
  }

  /**
   * A claim is left over when its project is gone and nothing is served at the address (a
   * project deleted without publishing, or a purge that stopped half-way). A deleted project's
   * site that stays up keeps its address.
   */
  private async isStaleClaim(slug: string, holder: string): Promise<boolean> {
    if (await this.store.get(holder)) return false;
    return (await this.sites.get(slug))?.site_id !== holder;
  }

  /** Claims the first free address derived from the project's name and saves it; under the site lock. */
  private async claimDerivedSlug(project: ProjectRecord): Promise<ProjectRecord> {
    // A name with no Latin letters or digits (日本語) says nothing in a slug; the repository's name does.
    const usable = /[a-z0-9]/i.test(project.name.normalize("NFKD"));
    const base = slugFromName(usable ? project.name : project.repository.name);
    for (const candidate of slugCandidates(base)) {
      const updated = await this.claimAndSave(project, candidate);
      if (updated) return this.moveTo(project, updated);
    }
    throw conflict("No free address could be derived from the project's name; set one with POST /app/sites/{site_id}/slug.", "slug_taken");
  }

  /**
   * Claims `slug` and saves it on the project together (one transaction where the storage has
   * them: a crash between the two never leaves a claim the project does not know of). Answers the
   * changed project, or false when another project holds the slug. Under the site lock.
   */
  private async claimAndSave(project: ProjectRecord, slug: string): Promise<ProjectRecord | false> {
    const oldUrl = project.slug ? siteUrl(this.config, project.slug) : null;
    const newUrl = siteUrl(this.config, slug);
    const change = (record: ProjectRecord): ProjectRecord => ({
      ...record,
      slug,
      updated_at: formatTimestamp(this.clock.now()),
    });
    let updated: ProjectRecord | null | undefined;
    const claimed = await this.sites.claim(slug, project.id, (holder) => this.isStaleClaim(slug, holder), async (writeClaim) => {
      updated = await this.store.modifyWith(project.id, change, writeClaim);
    });
    if (!claimed) return false;
    // The project held the claim already (an earlier try): its record follows alone.
    if (updated === undefined) updated = await this.store.modify(project.id, change);
    if (!updated) {
      await this.sites.release(slug, project.id);
      throw notFound("Project not found.");
    }
    // The hosted app answers under the site's address, so its address moves along (hosting's record).
    await this.deployments.followAddress(project.id, oldUrl, newUrl);
    return updated;
  }

  /** Moves a live snapshot to the project's new slug (saved by `claimAndSave`) and frees the old address. Under the site lock. */
  private async moveTo(project: ProjectRecord, updated: ProjectRecord): Promise<ProjectRecord> {
    const oldSlug = project.slug;
    const slug = updated.slug!;
    const newUrl = siteUrl(this.config, slug);
    const live = await this.sites.getBySite(project.id);
    if (live && live.slug !== slug) {
      const moved = relocate(live, slug, newUrl, this.clock.now());
      await this.sites.put(moved);
      this.notifySearch(moved, moved.pages.filter((kind) => INDEXED.includes(kind)).map((kind) => pageUrl(newUrl, kind)));
    }
    for (const left of new Set([oldSlug, live?.slug])) {
      if (left && left !== slug) {
        await this.sites.release(left, project.id);
        this.siteChanged(left);
      }
    }
    this.siteChanged(slug);
    return updated;
  }

  // --- snapshots -------------------------------------------------------------------------------

  /**
   * Stores the snapshot (after the bodies it keeps apart) and tells runtimes to drop what they
   * cached for the slugs involved; then the bodies only `previous` named go.
   */
  private async save(site: PublishedSite, previous: PublishedSite | null, bodies: ApartBody[] = []): Promise<void> {
    for (const { file, body } of bodies) await this.sites.putApartBody(site.site_id, file, body);
    const { previousSlug } = await this.sites.put(site);
    if (previousSlug) {
      await this.sites.release(previousSlug, site.site_id);
      this.siteChanged(previousSlug);
    }
    this.siteChanged(site.slug);
    if (previous) await this.sites.removeUnusedApartBodies(site.site_id, previous, site);
  }

  private pageFile(
    project: ProjectRecord,
    url: string,
    record: PageVersionRecord,
    look: SiteLook,
    context: SiteContext,
    earlier: Record<string, PublishedFile>,
    now: Date,
  ): PublishedFile {
    const path = PAGE_PATHS[record.kind];
    // A generated page is drawn now, in the site's look; custom HTML (and versions from before content was kept) as stored.
    const body = record.source === "generated" && record.content ? renderPage(look.design, record.content, context) : record.html;
    const meta = pageMeta(body);
    const head = siteHead({
      pageUrl: pageUrl(url, record.kind),
      siteUrl: url,
      siteName: project.name,
      title: meta.title ?? project.name,
      description: meta.description ?? (project.description || project.name),
      gaId: project.ga_id,
      noindex: !INDEXED.includes(record.kind),
    });
    return toFile(path, HTML, injectHead(body, head), earlier, now);
  }

  private siteChanged(slug: string): void {
    const event: SiteChanged = { slug };
    this.events.publish(SITE_CHANGED_CHANNEL, event);
  }

  /** Tells search engines in the background; a failure is logged and never fails publishing. */
  private notifySearch(site: PublishedSite, urls: string[]): void {
    const notifier = this.notifier;
    if (!notifier || urls.length === 0) return;
    const host = new URL(site.url).host;
    const task: Promise<void> = notifier
      .notify(host, urls)
      .catch((error: unknown) => {
        console.warn(`[reposite] [publishing] telling search engines about ${host} failed; the site is published all the same:`, error instanceof Error ? error.message : error);
      })
      .finally(() => this.notifying.delete(task));
    this.notifying.add(task);
  }
}

function assertUsable(slug: string): void {
  const problem = slugProblem(slug);
  if (problem === "invalid") {
    throw unprocessable(
      "slug: an address is 3 to 60 characters of a-z, 0-9 and -, starting and ending with a letter or digit.",
      "invalid_slug",
      { field: "slug" },
    );
  }
  if (problem === "reserved") throw conflict(`The address ${slug} is reserved; choose another.`, "slug_reserved", { field: "slug" });
}

function sortPages(records: PageVersionRecord[]): PageVersionRecord[] {
  return [...records].sort((a, b) => PAGE_KINDS.indexOf(a.kind) - PAGE_KINDS.indexOf(b.kind));
}

function pageUrl(siteUrl: string, kind: PageKind): string {
  return `${siteUrl}${PAGE_PATHS[kind]}`;
}

/** `2026-05-01T12:00:00Z`: ISO 8601 in UTC, to the second (sitemaps' W3C datetime). */
function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The one design and appearance every generated page and the site's own pages are drawn in. */
interface SiteLook {
  design: Design;
  colorMode: ColorMode;
}

/** The project's design, or the automatic pick from its repository when it names none. */
function designOf(project: ProjectRecord): Design {
  return findDesign(project.design) ?? pickDesign({ name: project.repository.name, description: project.repository.description, topics: project.repository.topics });
}

function siteContext(project: ProjectRecord, plan: Wizard | null, pages: PageKind[], community: boolean, now: Date, colorMode: ColorMode): SiteContext {
  return {
    name: project.name,
    logoUrl: logoSource(project),
    colorMode,
    type: plan?.mode ?? "landing",
    repositoryUrl: project.repository.url,
    appPath: "/app/",
    pages,
    community,
    year: now.getUTCFullYear(),
  };
}

function repositoryCaption(url: string): string {
  return url.replace(/^https?:\/\//, "").replace(/\/+$/, "");
}

function sitemapOf(url: string, files: Record<string, PublishedFile>): string {
  return renderSitemap(
    INDEXED.flatMap((kind) => {
      const file = files[PAGE_PATHS[kind]];
      return file ? [{ url: pageUrl(url, kind), lastModified: file.lastModified }] : [];
    }),
  );
}

/** Absolute URLs of indexed pages that are new or changed since `previous`. */
function changedPages(site: PublishedSite, previous: PublishedSite | null): string[] {
  return INDEXED.filter((kind) => {
    const file = site.files[PAGE_PATHS[kind]];
    if (!file) return false;
    const before = previous?.slug === site.slug ? previous.files[file.path] : undefined;
    return !before || before.lastModified !== file.lastModified;
  }).map((kind) => pageUrl(site.url, kind));
}

/**
 * A file of the snapshot. `lastModified` stays what it was when the content did not change: for
 * HTML the page without the tags publishing adds (so a new analytics id or address is not a new
 * page to crawlers), for other files the bytes.
 */
function toFile(path: string, contentType: string, body: string | Buffer, earlier: Record<string, PublishedFile>, now: Date): PublishedFile {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  const etag = `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 22)}"`;
  const before = earlier[path];
  const unchanged =
    before !== undefined &&
    before.contentType === contentType &&
    (contentType === HTML ? contentKey(before.body) === contentKey(bytes.toString("utf8")) : before.etag === etag);
  return {
    path,
    contentType,
    body: typeof body === "string" ? body : bytes.toString("base64"),
    ...(typeof body === "string" ? {} : { encoding: "base64" as const }),
    etag,
    lastModified: unchanged ? before.lastModified : iso(now),
  };
}

/** A file whose body is stored in a record of its own, and that body. */
interface ApartBody {
  file: PublishedFile;
  body: Buffer;
}

/** `file` with its body kept apart from the snapshot (see `PublishedFile.apart`). */
function apart(file: PublishedFile, body: Buffer): ApartBody {
  return { file: { ...file, body: "", apart: { size: body.length } }, body };
}

const contentKey = (html: string) => createHash("sha256").update(stripSiteHead(html)).digest("base64url");

/**
 * The snapshot at a new address: the URLs in each page's added head, the sitemap and robots.txt
 * follow; page content, preview image and 404 page are as they were published.
 */
function relocate(site: PublishedSite, slug: string, url: string, now: Date): PublishedSite {
  const files: Record<string, PublishedFile> = {};
  for (const file of Object.values(site.files)) {
    if (file.contentType !== HTML) {
      files[file.path] = file;
      continue;
    }
    const body = readdressHtml(file.body, site.url, url);
    files[file.path] = toFile(file.path, HTML, body, site.files, now);
  }
  files["/robots.txt"] = toFile("/robots.txt", TEXT, renderRobots(url), site.files, now);
  files["/sitemap.xml"] = toFile("/sitemap.xml", XML, sitemapOf(url, files), site.files, now);
  return { ...site, slug, url, files, revision: site.revision + 1 };
}
