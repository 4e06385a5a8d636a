import { inject, injectable } from "tsyringe";
import { repoCheckQuerySchema } from "@reposite/contract";
import { CONFIG, siteUrl, type RepositeConfig } from "../config.js";
import { DeploymentStore } from "../hosting/deployment-store.js";
import { ProjectsService } from "../projects/projects-service.js";
import { RepoAccessService } from "../repo-access/repo-access-service.js";
import { parseInput } from "../util/validation.js";
import { checkRepository } from "./check-repository.js";
import type { RepoCheckResult } from "./repo-check.js";
import { sourceTreeFromArchive } from "./source-tree-from-archive.js";
import type { SourceTree } from "./source-tree.js";

/** Reads a project's repository at a ref and tells how it would be built, without building it. */
@injectable()
export class RepoCheckService {
  constructor(
    @inject(ProjectsService) private readonly projects: ProjectsService,
    @inject(RepoAccessService) private readonly repoAccess: RepoAccessService,
    @inject(CONFIG) private readonly config: RepositeConfig,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
  ) {}

  async check(ownerId: string, siteId: string, input: { ref?: string; path?: string; root_dir?: string } = {}): Promise<RepoCheckResult> {
    const { ref, path, root_dir: rootDir } = parseInput(repoCheckQuerySchema, input);
    const project = await this.projects.getOwned(ownerId, siteId);
    const archive = await this.repoAccess.sourceArchive(ownerId, project.repository.url, ref);
    const tree = await sourceTreeFromArchive(archive);
    const slug = project.slug ?? tentativeSlug(project.name);
    // The setup's root_dir unless the query names one: the check answers for the app that would be built.
    const folder = rootDir ?? (await this.deployments.get(siteId))?.setup.root_dir ?? undefined;
    return this.checkTree(tree, { askedPath: path?.replace(/^\.?\//, "") ?? "Dockerfile", appUrl: `${siteUrl(this.config, slug)}/app/`, ...(folder ? { rootDir: folder } : {}) });
  }

  /** The check on a tree already read; separate so fixtures can be checked without a code host. */
  checkTree(tree: SourceTree, context: { askedPath: string; appUrl: string; rootDir?: string }): RepoCheckResult {
    return checkRepository(tree, { ...context, baseImages: this.config.baseImages });
  }
}

/** Until a project has an address, settings that name the app's own address use the one its name suggests. */
function tentativeSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return slug.length >= 3 ? slug : `${slug}-app`.replace(/^-/, "");
}
