import { z } from "zod";
import { defineOperation } from "../operation.js";
import {
  deploymentSchema,
  deployStartedSchema,
  envInputSchema,
  envViewSchema,
  resourcesSchema,
  runDetailSchema,
  runSchema,
  setupInputSchema,
} from "../schemas/deployment.js";
import { siteParamsSchema } from "../schemas/projects.js";

const TAG = "App hosting";
/** Every app call may answer this besides its own codes: the server hosts no apps. (A project that is not the caller's is `404`.) */
const HOSTING_ERRORS = ["hosting_unavailable"] as const;
const deploymentAnswer = { description: "The deployment", schema: deploymentSchema } as const;

export const deploymentSetup = defineOperation({
  id: "deployment.setup",
  method: "PUT",
  path: "/app/sites/:site_id/deployment",
  tag: TAG,
  summary: "Sets up the project's app (the fields sent; the rest kept, defaults the first time). A project without an address gets a slug from its name",
  auth: "token",
  params: siteParamsSchema,
  body: setupInputSchema,
  answers: {
    201: { description: "The app was set up now", schema: deploymentSchema },
    200: { description: "The setup was changed (applies at the next deploy or restart)", schema: deploymentSchema },
  },
  errors: [...HOSTING_ERRORS, "invalid_request", "base_image_required", "payment_required"],
});

export const deploymentGet = defineOperation({
  id: "deployment.get",
  method: "GET",
  path: "/app/sites/:site_id/deployment",
  tag: TAG,
  summary: "The app: its setup, status, address, last run (with what went wrong) and env names",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: deploymentAnswer },
  errors: [...HOSTING_ERRORS, "not_configured"],
});

export const deploymentRemove = defineOperation({
  id: "deployment.remove",
  method: "DELETE",
  path: "/app/sites/:site_id/deployment",
  tag: TAG,
  summary: "Removes the app: its containers, image and data",
  auth: "token",
  params: siteParamsSchema,
  answers: { 204: { description: "Removed" } },
  errors: [...HOSTING_ERRORS, "not_configured"],
});

export const deploymentEnvSet = defineOperation({
  id: "deployment.env.set",
  method: "PUT",
  path: "/app/sites/:site_id/deployment/env",
  tag: TAG,
  summary: "Adds and changes the env names sent (null removes one); answers at once, then a running app restarts with them (the deployment's last_operation shows how it went)",
  auth: "token",
  params: siteParamsSchema,
  body: envInputSchema,
  answers: { 200: { description: "Every name, values masked", schema: envViewSchema } },
  errors: [...HOSTING_ERRORS, "invalid_request", "not_configured"],
});

export const deploymentEnvGet = defineOperation({
  id: "deployment.env.get",
  method: "GET",
  path: "/app/sites/:site_id/deployment/env",
  tag: TAG,
  summary: "The app's env names; values are never shown",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: { description: "Every name, values masked", schema: envViewSchema } },
  errors: [...HOSTING_ERRORS, "not_configured"],
});

export const deploymentDeploy = defineOperation({
  id: "deployment.deploy",
  method: "POST",
  path: "/app/sites/:site_id/deployment/deploy",
  tag: TAG,
  summary: "Builds and starts the app; traffic switches once the new container answers, the previous one serves until then",
  auth: "token",
  params: siteParamsSchema,
  answers: { 202: { description: "The run started (or queued): follow its job", schema: deployStartedSchema } },
  errors: [...HOSTING_ERRORS, "not_configured", "payment_required", "run_under_way", "storage_full", "build_limit"],
});

export const deploymentRuns = defineOperation({
  id: "deployment.runs.list",
  method: "GET",
  path: "/app/sites/:site_id/deployment/runs",
  tag: TAG,
  summary: "The last 20 deploys, newest first",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: { description: "The runs", schema: z.array(runSchema) } },
  errors: [...HOSTING_ERRORS, "not_configured"],
});

export const deploymentRunGet = defineOperation({
  id: "deployment.runs.get",
  method: "GET",
  path: "/app/sites/:site_id/deployment/runs/:run_id",
  tag: TAG,
  summary: "One deploy, with the end of its log",
  auth: "token",
  params: siteParamsSchema.extend({ run_id: z.string().describe("The run's id (`run_…`)") }),
  answers: { 200: { description: "The run", schema: runDetailSchema } },
  errors: [...HOSTING_ERRORS],
});

export const deploymentRestart = defineOperation({
  id: "deployment.restart",
  method: "POST",
  path: "/app/sites/:site_id/deployment/restart",
  tag: TAG,
  summary: "A new container from the current image (with the current env and setup)",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: deploymentAnswer },
  errors: [...HOSTING_ERRORS, "not_configured", "not_deployed", "payment_required", "app_unhealthy", "storage_full"],
});

export const deploymentStop = defineOperation({
  id: "deployment.stop",
  method: "POST",
  path: "/app/sites/:site_id/deployment/stop",
  tag: TAG,
  summary: "Stops the app; its container and data are kept",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: deploymentAnswer },
  errors: [...HOSTING_ERRORS, "not_configured", "not_deployed"],
});

export const deploymentStart = defineOperation({
  id: "deployment.start",
  method: "POST",
  path: "/app/sites/:site_id/deployment/start",
  tag: TAG,
  summary: "Starts a stopped app",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: deploymentAnswer },
  errors: [...HOSTING_ERRORS, "not_configured", "not_deployed", "payment_required", "app_unhealthy", "storage_full"],
});

export const deploymentResources = defineOperation({
  id: "deployment.resources",
  method: "GET",
  path: "/app/sites/:site_id/deployment/resources",
  tag: TAG,
  summary: "Memory and disk now, and the sizes that could be bought",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: { description: "Memory and disk", schema: resourcesSchema } },
  errors: [...HOSTING_ERRORS, "not_configured"],
});
