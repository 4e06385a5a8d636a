import { z } from "zod";
import { defineOperation } from "../operation.js";
import { jobSchema, jobStreamFrameSchema, jobStreamQuerySchema } from "../schemas/jobs.js";

const jobParams = z.object({ job_id: z.string() });

export const jobGet = defineOperation({
  id: "jobs.get",
  method: "GET",
  path: "/app/jobs/:job_id",
  tag: "Jobs",
  summary: "A job: what it is doing or how it ended (jobs are forgotten 10 minutes after they end)",
  auth: "token",
  params: jobParams,
  answers: { 200: { description: "The job", schema: jobSchema } },
});

export const jobCancel = defineOperation({
  id: "jobs.cancel",
  method: "POST",
  path: "/app/jobs/:job_id/cancel",
  tag: "Jobs",
  summary: "Stops a running job; an ended job is answered unchanged",
  auth: "token",
  params: jobParams,
  answers: { 200: { description: "The job, `cancelled` (or as it ended)", schema: jobSchema } },
});

export const jobStream = defineOperation({
  id: "jobs.stream",
  method: "GET",
  path: "/app/jobs/:job_id/stream",
  tag: "Jobs",
  summary: "Follows a job as server-sent events: `meta`, the `delta`s from `from` on, then `done` or `error`",
  auth: "token",
  params: jobParams,
  query: jobStreamQuerySchema,
  answers: {
    200: {
      description: "Server-sent events; each frame is one of JobStreamFrame (its `data` one line of JSON)",
      contentType: "text/event-stream",
      schema: jobStreamFrameSchema,
    },
  },
  errors: ["invalid_request"],
});
