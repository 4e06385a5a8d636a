import { z } from "zod";

// ---- Connecting the code host (GitHub OAuth) ----------------------------------------------------

/** `GET /app/repohost/repo?url=`. */
export const repoLookupQuerySchema = z.object({
  url: z.string({ message: "url (a link to the repository) is required" }).describe("A link to the repository"),
});

/** Whether the linked repository exists and is private, as the caller's access sees it. */
export const repoLookupSchema = z
  .strictObject({
    exists: z.boolean(),
    private: z.boolean().describe("False also when the repository does not exist"),
  })
  .meta({ id: "RepoLookup" });
export type RepoLookup = z.output<typeof repoLookupSchema>;

/** `POST /app/repohost/connect`: the repository the person connects for (it names the code host). */
export const repoConnectSchema = z.strictObject({
  repo: z
    .string({ message: "repo (a link to the repository to connect for) is required" })
    .trim()
    .min(1)
    .max(2000)
    .describe("A link to the repository to connect for"),
});
export type RepoConnectInput = z.input<typeof repoConnectSchema>;

export const repoConnectStartedSchema = z
  .strictObject({ url: z.string().describe("The code host's page where the person authorizes Reposite; open it in a browser") })
  .meta({ id: "RepoConnectStarted" });
export type RepoConnectStarted = z.output<typeof repoConnectStartedSchema>;

export const repoAccessStatusSchema = z
  .strictObject({ connected: z.boolean().describe("True once the person authorized the code host") })
  .meta({ id: "RepoAccessStatus" });
export type RepoAccessStatus = z.output<typeof repoAccessStatusSchema>;

/** A query value a page reads: anything but one string counts as none, so it never fails. */
const pageParam = z.string().optional().catch(undefined);

/**
 * `GET /app/repohost/callback`: where the code host sends the browser back. Open (a page of the
 * browser, not a program): wrong or missing values are answered on the page, never as JSON.
 */
export const repoCallbackQuerySchema = z.object({
  code: pageParam.describe("The one-time code the code host sends"),
  state: pageParam.describe("The one-time state Reposite sent"),
  error: pageParam.describe("Set by the code host when the person declined or the authorization failed"),
});

// ---- Repository check --------------------------------------------------------------------------

/** `GET /app/sites/{site_id}/repo-check?ref=&path=`. */
export const repoCheckQuerySchema = z.object({
  ref: z
    .string()
    .trim()
    .min(1)
    .max(250)
    .regex(/^[^\s~^:?*[\\]+$/, "must be a branch, tag or commit")
    .optional()
    .describe("Branch, tag or commit; the default branch when left out"),
  path: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .refine((path) => !path.split("/").includes(".."), "must stay inside the repository")
    .optional()
    .describe("The Dockerfile's path in the repository; `Dockerfile` when left out"),
  root_dir: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .refine((path) => !path.split("/").includes("..") && !path.startsWith("/"), "must be a folder inside the repository, such as apps/web")
    .optional()
    .describe("The folder holding the app (the setup's `root_dir`): what `auto` would build there"),
});
export type RepoCheckInput = z.input<typeof repoCheckQuerySchema>;

/** Facts of a Dockerfile. */
export const dockerfileAnalysisSchema = z
  .strictObject({
    expose: z.array(z.number().int()).describe("Ports from `EXPOSE` of the final stage; the first is the one to use"),
    command: z.string().nullable().describe("What the final stage runs (`ENTRYPOINT` and `CMD`) as one line; null when nothing"),
    kind: z.enum(["web", "cli"]).describe("`web` when the image serves HTTP, else `cli`"),
    warnings: z.array(z.string()).describe("`not-a-server` when nothing listens"),
  })
  .meta({ id: "DockerfileAnalysis" });
export type DockerfileAnalysis = z.output<typeof dockerfileAnalysisSchema>;

/** How Reposite would build the repository without a Dockerfile of its own. */
export const autoBuildSchema = z
  .discriminatedUnion("found", [
    z.strictObject({
      found: z.literal(true),
      name: z.string().describe("What was detected, for example `Vite (React)`, `Express`, `Django`, `Go`"),
      install: z.string().nullable().describe("Install command; null when nothing is installed"),
      build: z.string().nullable().describe("Build command; null when none"),
      output: z.string().optional().describe("Static sites: the folder the build writes"),
      start: z.string().optional().describe("Servers: the command that starts them"),
      dockerfile: z.string().describe("The Dockerfile it would write"),
      warnings: z.array(z.string()).describe("What may not work as written"),
    }),
    z.strictObject({ found: z.literal(false), reason: z.string().describe("Why nothing could be detected") }),
  ])
  .meta({ id: "AutoBuild" });
export type AutoBuild = z.output<typeof autoBuildSchema>;

/** A setting the app asks for (an environment variable). */
export const setupVarSchema = z
  .strictObject({
    name: z.string(),
    required: z.boolean(),
    description: z.string(),
    input: z
      .enum(["auto", "generate", "secret"])
      .describe("`auto`: comes with a ready value; `generate`: any long random string; `secret`: only the owner has it"),
    value: z.string().describe('Ready value for `auto`, the example\'s default when harmless, else ""'),
  })
  .meta({ id: "SetupVar" });
export type SetupVar = z.output<typeof setupVarSchema>;

export const setupNoteSchema = z
  .strictObject({
    kind: z.string().describe("`memory`: the app (or its build) wants more than the free 512 MB"),
    message: z.string(),
    needed_mb: z.number().optional().describe("For `memory`: megabytes wanted"),
  })
  .meta({ id: "SetupNote" });
export type SetupNote = z.output<typeof setupNoteSchema>;

/** What `GET /app/sites/{site_id}/repo-check` answers. */
export const repoCheckSchema = z
  .strictObject({
    dockerfile: z.boolean().describe("A Dockerfile exists at the path asked for"),
    dockerfile_found: z
      .strictObject({ path: z.string() })
      .optional()
      .describe("Present when the repository builds from a Dockerfile elsewhere than the path asked for"),
    analysis: dockerfileAnalysisSchema.nullable().describe("Facts of the Dockerfile that would be built; null without one"),
    auto: autoBuildSchema,
    setup: z.strictObject({ vars: z.array(setupVarSchema), notes: z.array(setupNoteSchema) }),
  })
  .meta({ id: "RepoCheck" });
export type RepoCheckResult = z.output<typeof repoCheckSchema>;
