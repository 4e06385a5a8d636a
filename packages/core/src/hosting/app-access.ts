import { inject, injectable } from "tsyringe";
import { conflict, RepositeError } from "../errors.js";
import { HOSTING_ENTITLEMENTS, type HostingEntitlements } from "../ports/hosting-entitlements.js";
import type { ProjectRecord } from "../projects/project.js";
import { ProjectsService } from "../projects/projects-service.js";
import type { DeploymentRecord } from "./deployment-record.js";
import { DeploymentStore } from "./deployment-store.js";

/** A project with its app set up: the two records, read together. */
export type ProjectWithApp = ProjectRecord & { deployment: DeploymentRecord };

/** Who may do what to an app: the checks every hosting service makes first, in one place. */
@injectable()
export class AppAccess {
  constructor(
    @inject(ProjectsService) private readonly projects: ProjectsService,
    @inject(HOSTING_ENTITLEMENTS) private readonly entitlements: HostingEntitlements,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
  ) {}

  /** The caller's project with its app: `404` for a project missing or someone else's, `409 not_configured` before the setup. */
  async owned(ownerId: string, siteId: string): Promise<ProjectWithApp> {
    const project = await this.projects.getOwned(ownerId, siteId);
    const deployment = await this.deployments.get(siteId);
    if (!deployment) {
      throw conflict("The project's app is not set up yet: PUT /app/sites/{site_id}/deployment first.", "not_configured");
    }
    return { ...project, deployment };
  }

  /**
   * Unless the account may host this project's app (what starts or builds it asks): `402
   * payment_required` when app hosting is not bought, `409 quota_reached` when every hosting
   * purchase of the account is in use by its other apps.
   */
  async assertMayHost(ownerId: string, siteId: string): Promise<void> {
    const answer = await this.entitlements.mayHost(ownerId, siteId);
    if (answer === true) return;
    if (answer === "quota_reached") {
      throw conflict(
        "Every app-hosting purchase of this account is in use by another app (one app per purchase): buy another (POST /billing/embed/checkout with additional: true) or remove an app.",
        "quota_reached",
      );
    }
    throw new RepositeError(402, "App hosting is not paid for on this project; buy it first (POST /billing/embed/checkout).", "payment_required");
  }
}
