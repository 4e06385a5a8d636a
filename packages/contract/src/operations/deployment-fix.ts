import { defineOperation } from "../operation.js";
import { deploymentSchema } from "../schemas/deployment.js";
import { fixStartedSchema } from "../schemas/deployment-fix.js";
import { siteParamsSchema } from "../schemas/projects.js";

export const deploymentFix = defineOperation({
  id: "deployment.fix",
  method: "POST",
  path: "/app/sites/:site_id/deployment/fix",
  tag: "App hosting",
  summary:
    "After a failed run: a corrected Dockerfile is written (by the AI, or by the fixes the diagnosis makes certain) and deployed, up to three attempts; the one that works is kept, the repository is never changed",
  auth: "token",
  params: siteParamsSchema,
  answers: { 202: { description: "The fix started: follow its job", schema: fixStartedSchema } },
  errors: ["hosting_unavailable", "run_under_way", "fix_under_way", "nothing_to_fix", "payment_required", "storage_full", "ai_not_configured"],
});

export const deploymentOverrideRemove = defineOperation({
  id: "deployment.override.remove",
  method: "DELETE",
  path: "/app/sites/:site_id/deployment/override",
  tag: "App hosting",
  summary: "Forgets the Dockerfile a fix kept: deploys build the repository's own again",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: { description: "The deployment", schema: deploymentSchema } },
  errors: ["hosting_unavailable", "fix_under_way"],
});
