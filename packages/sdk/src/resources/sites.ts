import type { RequestOptions } from "../client.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type {
  CreateProjectInput,
  DeleteProjectOptions,
  GenerateInput,
  GenerationStarted,
  MemberView,
  ProjectDetailView,
  ProjectView,
  UpdateProjectInput,
} from "../types.js";

/** Projects (sites): a record made from a repository link; its `id` is the `site_id` of other calls. */
export class Sites extends APIResource {
  /**
   * Creates a project from a repository link. `POST /app/sites` → `201`.
   * The name defaults to the repository's; without `design` the service picks one from the repository.
   */
  async create(input: CreateProjectInput, options?: RequestOptions): Promise<ProjectDetailView> {
    return this.call(route("projects.create"), { ...options, body: input });
  }

  /** The caller's projects, newest first, with address, visits and app state. `GET /app/sites`. */
  async list(options?: RequestOptions): Promise<ProjectView[]> {
    return this.call(route("projects.list"), options);
  }

  /** One project with its `wizard` and `deployment`. `GET /app/sites/{site_id}`; `NotFoundError` when it is not the caller's. */
  async get(siteId: string, options?: RequestOptions): Promise<ProjectDetailView> {
    return this.call(route("projects.get", { site_id: siteId }), options);
  }

  /** Changes the fields sent and returns the project. `PATCH /app/sites/{site_id}`. */
  async update(siteId: string, changes: UpdateProjectInput, options?: RequestOptions): Promise<ProjectDetailView> {
    return this.call(route("projects.update", { site_id: siteId }), { ...options, body: changes });
  }

  /**
   * Deletes the project and its hosted app. The published site stays up unless `purge` is set.
   * `DELETE /app/sites/{site_id}` (`?purge=1`) → `204`.
   */
  async delete(siteId: string, params: DeleteProjectOptions = {}, options?: RequestOptions): Promise<void> {
    return this.call(route("projects.delete", { site_id: siteId }), { ...options, query: { purge: params.purge ? "1" : undefined } });
  }

  /**
   * Starts writing the site's pages. `POST /app/sites/{site_id}/generate` → `202`. Follow the
   * pages with `jobs.stream(job_id)` / `jobs.wait(job_id)` and each done job's `next_job_id`.
   * Errors: `422` (`private_repo`, `instructions_too_long`, `not_in_plan`, `no_plan`), `409`
   * `regenerate_required`, `429` `generation_limit`, `503` `hosting_unavailable`.
   */
  async generate(siteId: string, input: GenerateInput, options?: RequestOptions): Promise<GenerationStarted> {
    return this.call(route("generation.start", { site_id: siteId }), { ...options, body: input });
  }

  /** People who registered on the project's published site, newest first. `GET /app/sites/{site_id}/members`. */
  async members(siteId: string, options?: RequestOptions): Promise<MemberView[]> {
    return this.call(route("members.list", { site_id: siteId }), options);
  }
}
