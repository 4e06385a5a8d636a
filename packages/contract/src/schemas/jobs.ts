import { z } from "zod";
import { generationModeSchema, planPageSchema } from "./generation.js";
import { PAGE_KINDS } from "./page-versions.js";

/** What a job is doing (`running`) or how it ended. */
export const JOB_STATUSES = ["running", "done", "error", "aborted", "cancelled"] as const;
export const jobStatusSchema = z.enum(JOB_STATUSES);
export type JobStatus = z.output<typeof jobStatusSchema>;

/** What runs in a job: writing pages, or building and starting an app. */
export const jobTypeSchema = z.enum(["generate", "deploy"]);
export type JobType = z.output<typeof jobTypeSchema>;

/**
 * A job, as `GET /app/jobs/{job_id}` answers it and the stream's `meta`, `done` and `error`
 * frames carry it. The fixed fields are always there (null when they do not apply); the fields
 * given when the job started follow them: `mode`, `pages`, `kind` for generation, `kind: "fix"`,
 * `writer`, `max_attempts` for an AI fix. Open: a job may carry other such fields.
 */
export const jobSchema = z
  .looseObject({
    job_id: z.string(),
    type: jobTypeSchema,
    status: jobStatusSchema,
    error: z.string().nullable().describe("Why the job did not end `done`; null while running and when done"),
    site_id: z.string().nullable(),
    version_id: z.string().nullable().describe("The page version produced (generation jobs)"),
    finished_at: z.string().nullable().describe("`YYYY-MM-DD HH:MM:SS` UTC once the job ended; null while running"),
    next_job_id: z.string().nullable().describe("The next page's job; set only when this one is `done`"),
    run_id: z.string().nullable().describe("The deploy run this job drives (deploy jobs)"),
    mode: generationModeSchema.optional().describe("Generation jobs: the project type asked for"),
    pages: z.array(planPageSchema).optional().describe("Generation jobs: the plan's pages besides the landing page"),
    kind: z.enum([...PAGE_KINDS, "fix"]).optional().describe("Generation jobs: the page this job writes; `fix` for an AI fix of a deploy"),
    writer: z.enum(["model", "rules"]).optional().describe("Fix jobs: a language model or the built-in rules writes the fix"),
    max_attempts: z.int().optional().describe("Fix jobs: how many fixes are tried at most"),
  })
  .meta({ id: "Job" });
export type Job = z.output<typeof jobSchema>;

/** A `delta` frame's data: the text a job wrote, numbered from 0 without gaps. */
export const jobDeltaSchema = z
  .strictObject({
    i: z.int().min(0).describe("The delta's number, from 0 without gaps; resume with `from` = the next one"),
    t: z.string().describe("The text written: page HTML for generation, build log for a deploy"),
  })
  .meta({ id: "JobDelta" });
export type JobDelta = z.output<typeof jobDeltaSchema>;

/**
 * One event of a job stream, as a client reads it (the frame's `event` becomes `type`), in this
 * order: `meta` (the job when following started), the deltas, then `done`, or `error` for a job
 * that ended `error`, `cancelled` or `aborted` (`job.error` says why); then the stream ends.
 */
export const jobEventSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("meta"), job: jobSchema }),
    z.strictObject({ type: z.literal("delta"), i: jobDeltaSchema.shape.i, t: jobDeltaSchema.shape.t }),
    z.strictObject({ type: z.literal("done"), job: jobSchema }),
    z.strictObject({ type: z.literal("error"), job: jobSchema }),
  ])
  .meta({ id: "JobEvent" });
export type JobEvent = z.output<typeof jobEventSchema>;

/**
 * One server-sent event frame of `GET /app/jobs/{job_id}/stream`, as its fields (`event`, `id`,
 * `data`; `data` is one line of JSON). Between frames, `: keep-alive` comments while quiet.
 */
export const jobStreamFrameSchema = z
  .discriminatedUnion("event", [
    z.strictObject({ event: z.literal("meta"), data: jobSchema }).describe("First: the job when the stream starts"),
    z.strictObject({ event: z.literal("delta"), id: z.string().describe("The delta's `i`: what EventSource sends back as `Last-Event-ID`"), data: jobDeltaSchema }),
    z.strictObject({ event: z.literal("done"), data: jobSchema }).describe("Last, for a job that ended `done`"),
    z.strictObject({ event: z.literal("error"), data: jobSchema }).describe("Last, for a job that ended `error`, `cancelled` or `aborted`"),
  ])
  .meta({ id: "JobStreamFrame" });

/** `?from=`: the first delta wanted (the next `i` after a dropped connection). */
export const jobStreamQuerySchema = z.object({
  from: z
    .string({ message: "from must be a whole number, 0 or more." })
    .regex(/^\d{1,15}$/, "from must be a whole number, 0 or more.")
    .transform(Number)
    .optional()
    .describe("The next `i` wanted; wins over a `Last-Event-ID` header (which resumes at its id + 1)"),
});
