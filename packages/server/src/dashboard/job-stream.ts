import { jobStreamQuerySchema } from "@reposite/contract";
import { parseInput, RepositeError, type Reposite } from "@reposite/core";
import { getQuery, type H3 } from "h3";
import { jobEventStream } from "../routes/jobs.js";
import { dashboardPaths } from "./dashboard-paths.js";
import { dashboardRead } from "./dashboard-route.js";

/**
 * A site's job as server-sent events for the browser session (a build log, a fix, a generation):
 * the API's job stream, with the same `?from=` and `Last-Event-ID` resumption. A job of another
 * site, or of another person, is `404`.
 */
export function dashboardJobStreamRoutes(app: H3, reposite: Reposite): void {
  dashboardRead(app, reposite, dashboardPaths.jobStream(":site_id", ":job_id"), async (request) => {
    const siteId = request.param("site_id");
    const jobId = request.param("job_id");
    const { from } = parseInput(jobStreamQuerySchema, getQuery(request.event));
    const job = await reposite.jobs.get(request.ownerId, jobId);
    if (job.site_id !== siteId) throw new RepositeError(404, "Job not found.", "not_found");
    return jobEventStream(reposite, request.event, request.ownerId, jobId, from);
  });
}
