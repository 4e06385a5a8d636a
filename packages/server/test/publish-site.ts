import { expect } from "vitest";
import { bearer, json, type Harness } from "./harness.js";

/** Creates a project from the fake GitHub's repository, writes its landing page and publishes it at `slug`. */
export async function publishSite(h: Pick<Harness, "call">, token: string, slug: string): Promise<string> {
  const created = await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli" }, token));
  expect(created.status).toBe(201);
  const site = (await created.json()).id as string;
  const started = await (await h.call(`/app/sites/${site}/generate`, json({ mode: "landing" }, token))).json();
  for (let id: string | null = started.job_id; id; ) {
    let job = await (await h.call(`/app/jobs/${id}`, bearer(token))).json();
    for (let i = 0; job.status === "running" && i < 500; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      job = await (await h.call(`/app/jobs/${id}`, bearer(token))).json();
    }
    expect(job.status).toBe("done");
    id = job.next_job_id;
  }
  expect((await h.call(`/app/sites/${site}/slug`, json({ slug }, token))).status).toBe(200);
  expect((await h.call(`/app/sites/${site}/publish`, json({}, token))).status).toBe(200);
  return site;
}
