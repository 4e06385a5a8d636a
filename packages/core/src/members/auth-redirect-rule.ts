import { conflict, type RepositeError } from "../errors.js";
import type { DeploymentRecord } from "../hosting/deployment-record.js";
import type { ProjectRecord } from "../projects/project.js";
import type { PublishedSite } from "../sites/published-site.js";

/**
 * Why `auth_redirect_to_app: true` cannot be turned on yet, or null when it can: it needs the
 * project's sign-in page live on its published site and its app running. `published` is the
 * snapshot at the project's current slug (null when there is none). Turning it off is always allowed.
 */
export function authRedirectRefusal(
  project: Pick<ProjectRecord, "id" | "slug"> & { deployment: Pick<DeploymentRecord, "status"> | null },
  published: Pick<PublishedSite, "site_id" | "pages"> | null,
): RepositeError | null {
  const signInPage = Boolean(project.slug && published && published.site_id === project.id && published.pages.includes("auth"));
  const app = project.deployment?.status === "running";
  if (signInPage && app) return null;
  const missing = [...(signInPage ? [] : ["sign_in_page"]), ...(app ? [] : ["app"])];
  const steps = [
    signInPage ? null : "publish the site with its sign-in page (generate the auth page, then POST /app/sites/{site_id}/publish)",
    app ? null : "deploy the app until its status is running",
  ].filter(Boolean);
  return conflict(
    `Sending people straight to the app needs a published sign-in page and a deployed app. First ${steps.join(", and ")}.`,
    "auth_redirect_unavailable",
    { missing },
  );
}
