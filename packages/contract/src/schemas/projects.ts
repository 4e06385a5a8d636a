import { z } from "zod";
import { generationModeSchema, planPageSchema } from "./generation.js";

/** The appearance a project may ask for on top of its design; "" keeps the design's own. */
export const COLOR_MODES = ["Dark mode", "Light mode"] as const;

/** States of a project's hosted app. */
export const DEPLOYMENT_STATUSES = ["configured", "building", "starting", "running", "stopped", "failed"] as const;
export const deploymentStatusSchema = z
  .enum(DEPLOYMENT_STATUSES)
  .describe("`configured`, `building`, `starting`, `running`, `stopped` or `failed`");
export type DeploymentStatus = z.output<typeof deploymentStatusSchema>;

/** `{site_id}` in a path. Any string: one that no id can be answers as a missing project, `404`. */
export const siteParamsSchema = z.object({ site_id: z.string().describe("The project's id (`site_…`)") });

// ---- Input -------------------------------------------------------------------------------------

const name = z.string().trim().min(1, "must not be empty").max(100, "at most 100 characters");

/** What the logo fetcher can request: an absolute http(s) URL that parses (`%2509` in a host does not). */
function isHttpUrl(value: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(value) && URL.canParse(value);
}

const httpUrl = z
  .string()
  .trim()
  .max(2048, "at most 2048 characters")
  .refine((value) => value === "" || isHttpUrl(value), "must be an http(s) URL or empty");

/** Google Analytics 4 (`G-…`) and Universal Analytics (`UA-…-…`) ids, or "" to remove. */
const gaId = z
  .string()
  .trim()
  .refine((value) => value === "" || /^(G-[A-Z0-9]{4,20}|UA-\d{4,12}-\d{1,4})$/.test(value), "must look like G-XXXXXXX or UA-000000-0");

/** `POST /app/sites`. Unknown fields are refused (`422`), so a misspelt one is not silently dropped. */
export const createProjectSchema = z
  .strictObject({
    repohost_url: z
      .string({ message: "repohost_url (a link to the repository) is required" })
      .trim()
      .min(1)
      .max(2048)
      .describe("A link to the repository, in any form the code host uses (web page, clone URL, SSH)"),
    name: name.optional().describe("Product name on every page; defaults to the repository's name"),
    design: z.string().trim().optional().describe("A design id (`GET /app/designs`); left out, one is picked from the repository"),
  })
  .meta({ id: "CreateProjectInput" });
export type CreateProjectInput = z.input<typeof createProjectSchema>;

/** `PATCH /app/sites/{site_id}`: any of the settings; unknown fields are refused (`422`). */
export const updateProjectSchema = z
  .strictObject({
    name: name.optional(),
    description: z.string().trim().max(500, "at most 500 characters").optional(),
    ga_id: gaId.optional().describe('`G-XXXXXXX` or `UA-000000-0`; "" removes it'),
    design: z.string().trim().optional().describe('A design id, or "" for the automatic pick; shows after the next generation'),
    color_mode: z.enum(["", ...COLOR_MODES], { message: 'must be "Dark mode", "Light mode" or ""' }).optional(),
    logo_url: httpUrl.optional().describe('An http(s) URL of the logo (copied at once), or "" to remove it'),
    auth_redirect_to_app: z
      .boolean({ message: "must be true or false" })
      .optional()
      .describe("People who sign in on the site go straight to the app; needs a published sign-in page and a deployed app"),
  })
  .meta({ id: "UpdateProjectInput" });
export type UpdateProjectInput = z.input<typeof updateProjectSchema>;

/** `DELETE /app/sites/{site_id}?purge=1`: also take the published site down and free its address. */
export const deleteProjectQuerySchema = z.object({
  purge: z
    .enum(["1", "true", "0", "false"], { message: "must be 1 or left out" })
    .optional()
    .describe("`1`: also take the live site down and free its address; left out, the site stays up")
    .transform((purge) => purge === "1" || purge === "true"),
});

// ---- Answers -----------------------------------------------------------------------------------

const timestamp = z.string().describe("`YYYY-MM-DD HH:MM:SS` UTC");

/** The project type and its pages, saved when a site is generated. */
export const wizardSchema = z
  .strictObject({
    mode: generationModeSchema,
    pages: z.array(planPageSchema).describe("Pages besides the landing page"),
    community: z.boolean().describe("The site has a community forum for registered people"),
  })
  .meta({ id: "Wizard" });
export type Wizard = z.output<typeof wizardSchema>;

/** The app as a project read shows it (the whole of it is `GET …/deployment`). */
export const deploymentSummarySchema = z
  .strictObject({
    status: deploymentStatusSchema,
    url: z.string().describe("The app's address; ends in `/app/`"),
  })
  .meta({ id: "DeploymentSummary" });
export type DeploymentSummary = z.output<typeof deploymentSummarySchema>;

/** A project as lists show it. */
export const projectSchema = z
  .strictObject({
    id: z.string().describe("The `site_id` of every other project call"),
    slug: z.string().nullable().describe("The address under the sites domain; null until one is set"),
    url: z.string().nullable().describe("`https://<slug>.<sites domain>`; null until a slug is set"),
    name: z.string().describe("Product name on every page"),
    description: z.string(),
    ga_id: z.string().describe('Analytics id, "" when none'),
    design: z.string().describe('A design id, or "" for the automatic pick'),
    color_mode: z.enum(["", ...COLOR_MODES]),
    logo_url: z.string(),
    auth_redirect_to_app: z.boolean(),
    repohost_url: z.string().describe("The repository the project was made from"),
    private: z.boolean().describe("That repository is private"),
    created_at: timestamp,
    updated_at: timestamp,
    visits: z.number().int().nonnegative().describe("Page views of the published site"),
    app_status: deploymentStatusSchema.nullable().describe("The hosted app's status; null when the project has no app"),
  })
  .meta({ id: "Project" });
export type Project = z.output<typeof projectSchema>;

/** A project read singly: the list's fields, the generation plan and the app summary. */
export const projectDetailSchema = projectSchema
  .extend({
    wizard: wizardSchema.nullable().describe("Null until a site is generated, and for a landing page"),
    deployment: deploymentSummarySchema.nullable().describe("Null while the project has no app"),
  })
  .meta({ id: "ProjectDetail" });
export type ProjectDetail = z.output<typeof projectDetailSchema>;

export const projectListSchema = z.array(projectSchema).describe("The caller's projects, newest first");
