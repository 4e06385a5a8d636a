import { z } from "zod";
import { defineOperation } from "../operation.js";
import { generateSchema, generationStartedSchema } from "../schemas/generation.js";

const siteParams = z.object({ site_id: z.string() });

export const generationStart = defineOperation({
  id: "generation.start",
  method: "POST",
  path: "/app/sites/:site_id/generate",
  tag: "Generation",
  summary: "Starts writing a project's pages (a plan, or one page); each page is a job, chained by `next_job_id`",
  auth: "token",
  params: siteParams,
  body: generateSchema,
  answers: { 202: { description: "Generation started: follow `job_id`", schema: generationStartedSchema } },
  errors: [
    "invalid_request",
    "instructions_too_long",
    "private_repo",
    "saas_keeps_type",
    "regenerate_required",
    "not_in_plan",
    "no_plan",
    "generation_limit",
    "hosting_unavailable",
  ],
});
