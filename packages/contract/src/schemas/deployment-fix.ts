import { z } from "zod";

/** `POST …/deployment/fix` (`202`): the fix's own job, which streams every attempt and its run's log. */
export const fixStartedSchema = z
  .strictObject({
    job_id: z.string(),
    writer: z
      .enum(["model", "rules"])
      .describe("`model`: the language model writes each Dockerfile; `rules`: no model is configured, the fixes the diagnosis knows are applied"),
    max_attempts: z.number().int().describe("Attempts this fix makes at most, each a run"),
  })
  .meta({ id: "FixStarted" });
export type FixStarted = z.output<typeof fixStartedSchema>;
