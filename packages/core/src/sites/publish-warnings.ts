import type { PublishWarning } from "@reposite/contract";
import type { DeploymentRecord } from "../hosting/deployment-record.js";
import type { Wizard } from "../projects/project.js";

/**
 * What a visitor of the published site would run into, said in the publish answer (the site is
 * published all the same). A `saas` site's main button leads to `/app/` (`createContext` in
 * rendering), which is empty until an app has run there once.
 */
export function publishWarnings(plan: Pick<Wizard, "mode"> | null, deployment: Pick<DeploymentRecord, "container"> | null): PublishWarning[] {
  const warnings: PublishWarning[] = [];
  if (plan?.mode === "saas" && !deployment?.container) {
    warnings.push({
      code: "app_not_deployed",
      message:
        "The site's main button leads to /app/, but no app is deployed there yet, so visitors who press it find nothing. " +
        "Deploy the app (reposite deploy <site>, or PUT /app/sites/{site_id}/deployment then POST …/deployment/deploy).",
    });
  }
  return warnings;
}
