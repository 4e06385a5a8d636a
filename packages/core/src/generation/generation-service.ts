import { inject, injectable, type InjectionToken } from "tsyringe";
import { CLOCK, type Clock } from "../ports/clock.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { findDesign, pickDesign } from "../designs/index.js";
import { RepositeError } from "../errors.js";
import { HostingAvailability } from "../hosting/hosting-availability.js";
import type { JobView } from "../jobs/job.js";
import { JobsService, type JobOutcome, type JobWork, type StartJobSpec } from "../jobs/jobs-service.js";
import { PageVersionsService } from "../pages/page-versions-service.js";
import { logoSource, type PageKind, type ProjectRecord, type ProjectType, type Wizard } from "../projects/project.js";
import { ProjectsService } from "../projects/projects-service.js";
import { assertTypeAllowed } from "../repo-access/project-type-rule.js";
import { RepoAccessService } from "../repo-access/repo-access-service.js";
import { repositoryLanguage } from "../repo-analysis/repository-language.js";
import { DEFAULT_ARCHIVE_LIMITS, sourceTreeFromArchive } from "../repo-analysis/source-tree-from-archive.js";
import { renderPage } from "../rendering/index.js";
import { SiteImages } from "../sites/site-images.js";
import { RateLimiter } from "../util/rate-limiter.js";
import { parseInput } from "../util/validation.js";
import { generateSchema, type GenerationStarted } from "./generation-input.js";
import { assertInstructionsLength, splitInstructions } from "./instructions.js";
import type { PageAuthor, PageRequest } from "./page-author.js";
import { GenerationPlanStore } from "./plan-store.js";

/** The author that writes pages: the AI author with a model configured, else the README author. */
export const PAGE_AUTHOR: InjectionToken<PageAuthor> = Symbol.for("reposite.PageAuthor");

/** Generations one account may run at a time, and start per 24 hours. */
export const GENERATIONS_AT_A_TIME = 2;
export const GENERATIONS_PER_DAY = 30;

interface Plan {
  type: ProjectType;
  wizard: Wizard;
  /** Pages to write, in order. */
  kinds: PageKind[];
  /** The whole plan is new (saved on the project). */
  fullPlan: boolean;
}

/**
 * The first job of each generation the account started that may still be under way (the chain
 * is followed from there). Read and written under the lock of the same name, together with the
 * start of a generation, so concurrent requests cannot both take the last slot.
 */
const underWayKey = (ownerId: string) => `generations-under-way:${ownerId}`;

/**
 * Site generation: checks the plan and the limits, saves the plan on the project, and writes the
 * pages one after another, each in its own job (`next_job_id` links them). Each page becomes a new
 * current version with its content and a preview in the project's design as it is when the page is
 * written; publishing renders the content again with the design and color_mode of the moment.
 */
@injectable()
export class GenerationService {
  constructor(
    @inject(ProjectsService) private readonly projects: ProjectsService,
    @inject(PageVersionsService) private readonly versions: PageVersionsService,
    @inject(JobsService) private readonly jobs: JobsService,
    @inject(RepoAccessService) private readonly repoAccess: RepoAccessService,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
    @inject(PAGE_AUTHOR) private readonly author: PageAuthor,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(HostingAvailability) private readonly hosting: HostingAvailability,
    @inject(SiteImages) private readonly images: SiteImages,
    @inject(GenerationPlanStore) private readonly plans: GenerationPlanStore,
  ) {}

  async generate(ownerId: string, siteId: string, input: unknown): Promise<GenerationStarted> {
    const body = parseInput(generateSchema, input);
    assertInstructionsLength(body.instructions);
    const project = await this.projects.getOwned(ownerId, siteId);
    const plan = planOf(await this.plans.get(siteId), body);
    assertTypeAllowed(project.repository, plan.type);
    if (plan.type === "saas" && !this.hosting.on) {
      throw new RepositeError(503, "This server does not host apps, so it cannot make a saas site. Choose website or landing.", "hosting_unavailable");
    }
    const wishes = splitInstructions(body.instructions, plan.kinds.length === 1 && plan.kinds[0] !== "template" ? { unnamedTo: plan.kinds[0] as "about" | "faq" } : {});
    let readme: Promise<string | null> | undefined;
    let language: Promise<string | null> | undefined;
    const context = {
      ownerId,
      siteId,
      plan,
      wishes,
      // Read once per generation, when the first page is written.
      readme: () => (readme ??= this.readme(ownerId, project)),
      language: () => (language ??= plan.wizard.pages.includes("about") ? this.language(ownerId, project) : Promise.resolve(null)),
    };
    // Check and start as one step per account: a racing request waits here and counts this one.
    const first = await this.locks.withLock(underWayKey(ownerId), async () => {
      const underWay = await this.takeGenerationSlot(ownerId);
      if (plan.fullPlan) {
        await this.plans.set(siteId, plan.wizard);
      }
      const started = await this.jobs.start(this.jobSpec(context, 0), this.pageWork(context, 0));
      await this.storage.setItem(underWayKey(ownerId), [...underWay, started.job_id]);
      return started;
    });
    return {
      job_id: first.job_id,
      status: "running",
      mode: plan.type,
      pages: plan.wizard.pages,
      generating: plan.kinds,
    };
  }

  private jobSpec(context: GenerationContext, index: number): StartJobSpec {
    const { plan } = context;
    return {
      ownerId: context.ownerId,
      siteId: context.siteId,
      type: "generate",
      details: { mode: plan.type, pages: plan.wizard.pages, kind: plan.kinds[index] },
    };
  }

  private pageWork(context: GenerationContext, index: number): JobWork {
    return async (job): Promise<JobOutcome> => {
      const kind = context.plan.kinds[index]!;
      // The README's logo becomes the project's when it has none of its own (SiteImages).
      await this.images.adoptReadmeLogo(context.siteId, kind, await context.readme(), job);
      const project = await this.projects.getOwned(context.ownerId, context.siteId);
      const request: PageRequest = {
        kind,
        type: context.plan.type,
        product: {
          name: project.name,
          description: project.description,
          repositoryUrl: project.repository.url,
          topics: project.repository.topics,
          defaultBranch: project.repository.default_branch,
          language: await context.language(),
        },
        readme: await context.readme(),
        instructions: kind === "auth" ? null : (context.wishes[kind] ?? null),
        pages: ["template", ...context.plan.wizard.pages],
        community: context.plan.wizard.community,
      };
      // A page the author declines (no FAQ without a README question) is not made, nor in the menu.
      const declined = (page: PageKind) => this.author.declines?.({ ...request, kind: page }) ?? null;
      request.pages = request.pages.filter((page) => !declined(page));
      const next = index + 1 < context.plan.kinds.length ? { spec: this.jobSpec(context, index + 1), work: this.pageWork(context, index + 1) } : undefined;
      const refusal = declined(kind);
      if (refusal) {
        job.write(refusal);
        return { version_id: null, ...(next ? { next } : {}) };
      }
      const written = await this.author.write(request, (text) => job.write(text), job.signal);
      // Its pictures copied to the site, or left out with a note: pages never ask another host.
      const content = await this.images.copyInto(context.ownerId, context.siteId, written, job);
      const design = findDesign(project.design) ?? pickDesign({ name: project.repository.name, description: project.repository.description, topics: project.repository.topics });
      const html = renderPage(design, content, {
        name: project.name,
        logoUrl: logoSource(project),
        colorMode: project.color_mode,
        type: context.plan.type,
        repositoryUrl: project.repository.url,
        appPath: "/app/",
        pages: request.pages,
        community: context.plan.wizard.community,
        year: this.clock.now().getUTCFullYear(),
      });
      const version = await this.versions.add({
        ownerId: context.ownerId,
        siteId: context.siteId,
        kind,
        name: request.instructions ? `Generated (${this.author.name}) with your wishes` : `Generated (${this.author.name})`,
        html,
        source: "generated",
        design: design.id,
        // Kept so publishing renders the page in the site's design and color_mode of that moment.
        content,
      });
      return { version_id: version.id, ...(next ? { next } : {}) };
    };
  }

  /**
   * `429 generation_limit` past 2 generations under way or 30 started in the last 24 hours; else
   * answers the generations under way. Called under the account's `generations-under-way` lock.
   */
  private async takeGenerationSlot(ownerId: string): Promise<string[]> {
    const underWay: string[] = [];
    for (const first of (await this.storage.getItem<string[]>(underWayKey(ownerId))) ?? []) {
      if (await this.isUnderWay(ownerId, first)) underWay.push(first);
    }
    if (underWay.length >= GENERATIONS_AT_A_TIME) {
      throw new RepositeError(429, `${GENERATIONS_AT_A_TIME} generations are already under way for this account. Wait for one to finish.`, "generation_limit");
    }
    const quota = await this.limiter.take({ name: "generations", max: GENERATIONS_PER_DAY, windowMs: 86_400_000 }, ownerId);
    if (!quota.allowed) {
      throw new RepositeError(429, `At most ${GENERATIONS_PER_DAY} generations a day; try again later.`, "generation_limit", { retry_after: quota.retryAfter });
    }
    return underWay;
  }

  /** Follows `next_job_id` from a generation's first job: under way while its last job runs. */
  private async isUnderWay(ownerId: string, jobId: string): Promise<boolean> {
    for (let id: string | null = jobId; id; ) {
      const job: JobView | null = await this.jobs.get(ownerId, id).catch(() => null);
      if (!job) return false;
      if (job.status === "running") return true;
      if (job.status !== "done") return false;
      id = job.next_job_id;
    }
    return false;
  }

  /**
   * The repository's main language, from the share of its source files by extension (the archive's
   * file list; no file is kept). Read once per generation, and only for a site with an About page,
   * where it is said. A repository that cannot be read has no language said rather than a failed page.
   */
  private async language(ownerId: string, project: ProjectRecord): Promise<string | null> {
    try {
      const archive = await this.repoAccess.sourceArchive(ownerId, project.repository.url);
      const tree = await sourceTreeFromArchive(archive, { ...DEFAULT_ARCHIVE_LIMITS, maxFileBytes: 0 });
      return repositoryLanguage(tree.paths());
    } catch {
      return null;
    }
  }

  private async readme(ownerId: string, project: ProjectRecord): Promise<string | null> {
    const resolved = await this.repoAccess.resolve(ownerId, project.repository.url);
    const access = await this.repoAccess.accessFor(ownerId, resolved.host.id);
    return resolved.host.getReadme(resolved.link, access);
  }
}

interface GenerationContext {
  ownerId: string;
  siteId: string;
  plan: Plan;
  wishes: Partial<Record<"template" | "about" | "faq", string>>;
  readme: () => Promise<string | null>;
  language: () => Promise<string | null>;
}

/** The spec's rules for what a request generates. */
function planOf(current: Wizard | null, body: ReturnType<typeof generateSchema.parse>): Plan {
  if (body.mode) {
    if (body.kind && body.kind !== "template") {
      throw invalid("Send either a plan (mode and pages) or one page (kind), not both.", "kind");
    }
    if (current?.mode === "saas" && body.mode !== "saas") {
      throw new RepositeError(422, "A saas project keeps every page as a product page; its type cannot change.", "saas_keeps_type");
    }
    if (current && current.mode !== body.mode && !body.regenerate) {
      throw new RepositeError(409, `The project is a ${current.mode} site. Send regenerate: true with the new plan to change its type.`, "regenerate_required");
    }
    if (body.mode === "landing" && body.pages?.length) throw invalid("A landing site is one page: leave pages out.", "pages");
    if (body.mode === "landing" && body.community) throw invalid("A landing site has no community; choose saas or website.", "community");
    const pages = body.mode === "landing" ? [] : [...new Set(body.pages ?? [])];
    const wizard: Wizard = { mode: body.mode, pages, community: body.community ?? false };
    return { type: body.mode, wizard, kinds: ["template", ...pages], fullPlan: true };
  }
  if (!body.kind) throw invalid("Send a plan (mode, and pages for saas or website) or the one page to remake (kind).", "mode");
  if (!current) throw new RepositeError(422, "This project has no plan yet: generate it first with a mode.", "no_plan");
  if (body.kind !== "template" && !current.pages.includes(body.kind)) {
    throw new RepositeError(422, `The ${body.kind} page is not in this project's plan; send a full plan that includes it.`, "not_in_plan");
  }
  return { type: current.mode, wizard: current, kinds: [body.kind], fullPlan: false };
}

const invalid = (message: string, field: string) => new RepositeError(422, message, "invalid_request", { field });
