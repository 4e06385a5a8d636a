import { z } from "zod";
import { pageKindSchema } from "./page-versions.js";

/** The pages a plan may have besides the landing page. */
export const PLAN_PAGES = ["about", "faq", "auth"] as const;

export const planPageSchema = z.enum(PLAN_PAGES, { message: `pages may hold ${PLAN_PAGES.join(", ")}` });
export type PlanPage = z.output<typeof planPageSchema>;

/** The project type a plan makes: an app with a site, a site, or one landing page. */
export const generationModeSchema = z
  .enum(["saas", "website", "landing"], { message: "mode must be saas, website or landing" })
  .describe("The project type: `saas`, `website` or `landing`");

/**
 * `POST /app/sites/{site_id}/generate`: a plan (`mode`, `pages`, …) or one page (`kind`). The
 * rules between fields (a landing page takes no pages, a page must be in the plan) are the
 * service's; `instructions` is measured there too, for its own code (`instructions_too_long`).
 */
export const generateSchema = z.strictObject({
  kind: pageKindSchema.optional().describe("One page to remake; it must be in the project's plan"),
  mode: generationModeSchema.optional(),
  pages: z.array(planPageSchema).max(3).optional().describe("Pages besides the landing page; not for `landing`"),
  community: z.boolean({ message: "community must be true or false" }).optional().describe("A community forum for registered people (`saas`, `website`)"),
  instructions: z.string({ message: "instructions must be text" }).optional().describe("Wishes for the pages, at most 2000 characters; not saved with the project"),
  regenerate: z
    .boolean({ message: "regenerate must be true or false" })
    .optional()
    .describe("With `kind: template`: remake the landing page and keep the type; with a full plan: change the type"),
});
export type GenerateInput = z.input<typeof generateSchema>;

/** What starting a generation answers (`202`). */
export const generationStartedSchema = z
  .strictObject({
    job_id: z.string().describe("The first page's job; each `done` job names the next in `next_job_id`"),
    status: z.literal("running"),
    mode: generationModeSchema,
    pages: z.array(planPageSchema).describe("The plan's pages besides the landing page"),
    generating: z.array(pageKindSchema).describe("The pages this generation writes, in order; each has its own job"),
  })
  .meta({ id: "GenerationStarted" });
export type GenerationStarted = z.output<typeof generationStartedSchema>;
