import { inject, injectable } from "tsyringe";
import { CONFIG, siteUrl, type RepositeConfig } from "../config.js";
import { findDesign, pickDesign } from "../designs/index.js";
import { GenerationPlanStore } from "../generation/plan-store.js";
import { notFound, unprocessable } from "../errors.js";
import { shownStatus, type DeploymentRecord } from "../hosting/deployment-record.js";
import { DeploymentStore } from "../hosting/deployment-store.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { authRedirectRefusal } from "../members/auth-redirect-rule.js";
import { RepoAccessService } from "../repo-access/repo-access-service.js";
import { PublishedSiteStore } from "../sites/published-site-store.js";
import { isWellFormedId } from "../util/record-ids.js";
import { formatTimestamp } from "../util/timestamps.js";
import { parseInput } from "../util/validation.js";
import type { DeploymentStatus } from "./deployment.js";
import type { ProjectDetailView, ProjectRecord, ProjectView, Wizard } from "./project.js";
import { createProjectSchema, updateProjectSchema, type CreateProjectInput, type UpdateProjectInput } from "./project-input.js";
import { LogoFetcher } from "./logo-fetcher.js";
import { ProjectStore, type ProjectSummary } from "./project-store.js";

@injectable()
export class ProjectsService {
  constructor(
    @inject(ProjectStore) private readonly store: ProjectStore,
    @inject(RepoAccessService) private readonly repoAccess: RepoAccessService,
    @inject(PublishedSiteStore) private readonly published: PublishedSiteStore,
    @inject(LogoFetcher) private readonly logos: LogoFetcher,
    @inject(CONFIG) private readonly config: RepositeConfig,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(GenerationPlanStore) private readonly plans: GenerationPlanStore,
  ) {}

  /** A new project from a repository link; the design is picked from the repository when not given. */
  async create(ownerId: string, input: CreateProjectInput): Promise<ProjectDetailView> {
    const { repohost_url, name, design } = parseInput(createProjectSchema, input);
    if (design !== undefined && design !== "") assertKnownDesign(design);
    // The owner's connection to the code host, if any, makes their private repositories visible.
    const { link, facts } = await this.repoAccess.resolve(ownerId, repohost_url);
    const now = formatTimestamp(this.clock.now());
    const project: ProjectRecord = {
      id: this.ids.newId("site"),
      owner_id: ownerId,
      created_at: now,
      updated_at: now,
      repository: {
        host: link.host,
        owner: facts.owner,
        name: facts.name,
        url: facts.url,
        private: facts.private,
        default_branch: facts.defaultBranch,
        description: facts.description,
        topics: facts.topics,
      },
      slug: null,
      name: name ?? facts.title ?? facts.name,
      description: facts.description,
      ga_id: "",
      design: design || pickDesign({ name: facts.name, description: facts.description, topics: facts.topics }).id,
      color_mode: "",
      logo_url: "",
      logo_image: "",
      auth_redirect_to_app: false,
      visits: 0,
    };
    await this.store.insert(project);
    return this.detailView(project, null, null);
  }

  /** The caller's project, or `404` when it is missing or someone else's (no difference is shown). */
  async getOwned(ownerId: string, id: string): Promise<ProjectRecord> {
    const project = isWellFormedId(id, "site") ? await this.store.get(id) : null;
    if (!project || project.owner_id !== ownerId) throw notFound("Project not found.");
    return project;
  }

  async get(ownerId: string, id: string): Promise<ProjectDetailView> {
    const project = await this.getOwned(ownerId, id);
    return this.detailView(project, await this.deployments.get(id), await this.plans.get(id));
  }

  /** The caller's projects, newest first (the owner index keeps creation order, finer than timestamps). */
  async list(ownerId: string): Promise<ProjectView[]> {
    // From memory once read (the projects', and hosting's status of each app), until one changes.
    const projects = await this.store.summariesByOwner(ownerId);
    const statuses = await Promise.all(projects.map((project) => this.deployments.status(project.id)));
    return projects.map((project, index) => this.view(project, statuses[index] ?? null)).reverse();
  }

  async update(ownerId: string, id: string, input: UpdateProjectInput): Promise<ProjectDetailView> {
    const changes = parseInput(updateProjectSchema, input);
    if (changes.design) assertKnownDesign(changes.design);
    // Copied before the record is locked (a download may take seconds); a logo that cannot be
    // used fails the whole change.
    const logo = await this.logoChange(await this.getOwned(ownerId, id), changes.logo_url);
    const updated = await this.store.modify(id, async (project) => {
      if (changes.auth_redirect_to_app === true && !project.auth_redirect_to_app) {
        const published = project.slug ? await this.published.get(project.slug) : null;
        const refusal = authRedirectRefusal({ ...project, deployment: await this.deployments.get(id) }, published);
        if (refusal) throw refusal;
      }
      return { ...project, ...changes, ...logo, updated_at: formatTimestamp(this.clock.now()) };
    });
    if (!updated) throw notFound("Project not found.");
    return this.detailView(updated, await this.deployments.get(id), await this.plans.get(id));
  }

  /**
   * Removes the project record alone: what publishing, members, the forum and page versions keep
   * by its id stays. `ProjectRemoval.delete` is the whole deletion the API does (`DELETE
   * /app/sites/{id}`, with or without `purge`); use it unless you clean up those yourself.
   */
  async delete(ownerId: string, id: string): Promise<void> {
    const project = await this.getOwned(ownerId, id);
    await this.store.remove(project);
  }

  /** The copied image for a new `logo_url`, or nothing when the address is the one already copied. */
  private async logoChange(project: ProjectRecord, logoUrl: string | undefined): Promise<Pick<ProjectRecord, "logo_image">> {
    if (logoUrl === undefined) return {};
    if (logoUrl === "") return { logo_image: "" };
    if (logoUrl === project.logo_url && project.logo_image) return {};
    return { logo_image: await this.logos.fetchAsDataUrl(logoUrl) };
  }

  private view(project: ProjectSummary, appStatus: DeploymentStatus | null): ProjectView {
    return {
      id: project.id,
      slug: project.slug,
      url: project.slug ? siteUrl(this.config, project.slug) : null,
      name: project.name,
      description: project.description,
      ga_id: project.ga_id,
      design: project.design,
      color_mode: project.color_mode,
      logo_url: project.logo_url,
      auth_redirect_to_app: project.auth_redirect_to_app,
      repohost_url: project.repository.url,
      private: project.repository.private,
      created_at: project.created_at,
      updated_at: project.updated_at,
      visits: project.visits,
      app_status: appStatus,
    };
  }

  private detailView(project: ProjectRecord, deployment: DeploymentRecord | null, plan: Wizard | null): ProjectDetailView {
    // The spec shows a landing page's plan as null: it is one page, with nothing to list.
    const wizard = plan?.mode === "landing" ? null : plan;
    return { ...this.view(project, deployment ? shownStatus(deployment) : null), wizard, deployment: deployment ? { status: shownStatus(deployment), url: deployment.url } : null };
  }
}

function assertKnownDesign(id: string): void {
  if (!findDesign(id)) {
    throw unprocessable(`There is no design "${id}". GET /app/designs lists them.`, "unknown_design", { field: "design" });
  }
}
