import { defineOperation } from "../operation.js";
import { deploymentSchema } from "../schemas/deployment.js";
import { logsQuerySchema, metricsSchema, resetDataInputSchema } from "../schemas/deployment-operations.js";
import { siteParamsSchema } from "../schemas/projects.js";

export const deploymentLogs = defineOperation({
  id: "deployment.logs",
  method: "GET",
  path: "/app/sites/:site_id/deployment/logs",
  tag: "App hosting",
  summary: "The last lines the app wrote (stdout and stderr in order, env values masked), as plain text; a stopped app's too",
  auth: "token",
  params: siteParamsSchema,
  query: logsQuerySchema,
  answers: { 200: { description: "The lines, each ending in a newline (empty before any output)", contentType: "text/plain" } },
  errors: ["hosting_unavailable", "invalid_request", "not_configured", "not_deployed"],
});

export const deploymentMetrics = defineOperation({
  id: "deployment.metrics",
  method: "GET",
  path: "/app/sites/:site_id/deployment/metrics",
  tag: "App hosting",
  summary: "What the app uses now: CPU, memory, network and storage (an app over its disk limit is stopped)",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: { description: "The metrics", schema: metricsSchema } },
  errors: ["hosting_unavailable", "not_configured", "not_deployed"],
});

export const deploymentResetData = defineOperation({
  id: "deployment.reset-data",
  method: "POST",
  path: "/app/sites/:site_id/deployment/reset-data",
  tag: "App hosting",
  summary: "Empties the app's data volume and starts it clean from its current image; cannot be undone",
  auth: "token",
  params: siteParamsSchema,
  body: resetDataInputSchema,
  answers: { 200: { description: "The deployment, started clean", schema: deploymentSchema } },
  errors: ["hosting_unavailable", "confirm_mismatch", "no_volume", "not_configured", "not_deployed", "payment_required", "app_unhealthy"],
});
