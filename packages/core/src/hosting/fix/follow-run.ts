import type { JobsService } from "../../jobs/jobs-service.js";
import { isRunUnderWay, type DeployRunRecord } from "../deploy-run.js";
import type { DeployRunStore } from "../deploy-run-store.js";

/**
 * Follows a run's job to its end, writing its log (already masked by the pipeline) into the fix's
 * own stream as it comes, and answers the run as it ended. When `signal` aborts (the fix was
 * cancelled, the server stops) the run's job is cancelled too.
 */
export async function followRun(
  jobs: JobsService,
  runs: DeployRunStore,
  started: { ownerId: string; siteId: string; jobId: string; runId: string },
  write: (text: string) => void,
  signal: AbortSignal,
): Promise<DeployRunRecord | null> {
  const cancel = () => void jobs.cancel(started.ownerId, started.jobId).catch(() => undefined);
  signal.addEventListener("abort", cancel, { once: true });
  try {
    for await (const event of jobs.events(started.ownerId, started.jobId, 0, signal)) {
      if (event.type === "delta") write(event.t);
    }
    if (signal.aborted) return null;
    // The pipeline stores the run's end before its job ends; a few reads cover another process.
    for (let tries = 0; tries < 50; tries += 1) {
      const run = await runs.get(started.siteId, started.runId);
      if (!run || !isRunUnderWay(run.status)) return run;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return runs.get(started.siteId, started.runId);
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}
