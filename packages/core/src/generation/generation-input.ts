import { z } from "zod";
import { PAGE_KINDS } from "../pages/page-version.js";

export const PLAN_PAGES = ["about", "faq", "auth"] as const;

/** `POST /app/sites/{id}/generate`. `instructions` is checked apart, for its own error code. */
export const generateSchema = z.strictObject({
  kind: z.enum(PAGE_KINDS, { message: `kind must be one of ${PAGE_KINDS.join(", ")}` }).optional(),
  mode: z.enum(["saas", "website", "landing"], { message: "mode must be saas, website or landing" }).optional(),
  pages: z
    .array(z.enum(PLAN_PAGES, { message: `pages may hold ${PLAN_PAGES.join(", ")}` }))
    .max(3)
    .optional(),
  community: z.boolean({ message: "community must be true or false" }).optional(),
  instructions: z.string({ message: "instructions must be text" }).optional(),
  regenerate: z.boolean({ message: "regenerate must be true or false" }).optional(),
});

export type GenerateInput = z.input<typeof generateSchema>;

/** What starting a generation answers (`202`). */
export interface GenerationStarted {
  job_id: string;
  status: "running";
  mode: "saas" | "website" | "landing";
  /** The plan's pages besides the landing page. */
  pages: (typeof PLAN_PAGES)[number][];
  /** The pages this generation writes, in order; each has its own job, chained by `next_job_id`. */
  generating: (typeof PAGE_KINDS)[number][];
}
