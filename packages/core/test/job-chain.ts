import type { Reposite } from "../src/index.js";

/** Waits until a chain of jobs (each naming the next in `next_job_id`) has ended. */
export async function finish(reposite: Reposite, ownerId: string, firstJobId: string): Promise<void> {
  for (let id: string | null = firstJobId; id; ) {
    let job = await reposite.jobs.get(ownerId, id);
    while (job.status === "running") {
      await new Promise((resolve) => setTimeout(resolve, 5));
      job = await reposite.jobs.get(ownerId, id);
    }
    id = job.next_job_id;
  }
}
