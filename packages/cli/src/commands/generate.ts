import { PLAN_PAGES, PROJECT_TYPES, type Job, type PageKind, type PlanPage, type ProjectType, type RepositeClient } from "@reposite/sdk";
import { cliCommand, type CommandEnv } from "../command.js";
import { connect, findSite } from "../connection.js";
import { UsageError } from "../exit-codes.js";
import type { Output } from "../output.js";
import { elapsed, ProgressLine } from "../progress-line.js";
import { SITE_ARG } from "./sites.js";

// The choices are the contract's (through the SDK); a page kind it adds needs a name here (a type error until then).
const PAGE_NAMES: Record<PageKind, string> = { template: "landing page", about: "About page", faq: "FAQ page", auth: "sign-in page" };
const pageName = (kind: unknown): string | undefined => PAGE_NAMES[kind as PageKind];

/** `reposite generate <site>`: writes the site's pages; `--follow` waits for each page. */
export function generateCommand(env: CommandEnv) {
  return cliCommand(env, {
    name: "reposite generate",
    description: "Write the site's pages (a landing page, and the pages of the plan)",
    args: {
      site: SITE_ARG,
      mode: { type: "enum", options: [...PROJECT_TYPES], description: "the project type (default: the site's plan, else landing)", valueHint: "type" },
      pages: { type: "string", description: `pages besides the landing page, comma-separated: ${PLAN_PAGES.join(", ")}`, valueHint: "list" },
      community: { type: "boolean", description: "add a community forum (saas, website)" },
      instructions: { type: "string", description: "wishes for the pages (at most 2000 characters)", valueHint: "text" },
      regenerate: { type: "boolean", description: "remake the pages of an existing plan (or change its type)" },
      follow: { type: "boolean", alias: "f", description: "wait for every page and report each as it is written" },
    },
    run: async ({ args, out, io }) => {
      const pages = args.pages === undefined ? undefined : parsePages(args.pages);
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      const mode = (args.mode as ProjectType | undefined) ?? site.wizard?.mode ?? "landing";
      const plan = pages ?? (mode === site.wizard?.mode ? site.wizard.pages : []);
      const started = await client.sites.generate(site.id, {
        mode,
        ...(mode === "landing" ? {} : { pages: plan }),
        ...(args.community !== undefined ? { community: args.community } : {}),
        ...(args.instructions ? { instructions: args.instructions } : {}),
        ...(args.regenerate ? { regenerate: true } : {}),
      });
      if (!args.follow) {
        out.result(started, () => {
          out.line(`Writing ${started.generating.map((kind) => pageName(kind) ?? kind).join(", ")} of ${site.name} (job ${started.job_id}).`);
          out.line(`Follow it with --follow next time; then: reposite publish ${site.slug ?? site.id}`);
        });
        return;
      }
      const jobs = await followGeneration(client, started.job_id, out, new ProgressLine(io, !out.json));
      const failed = jobs.find((job) => job.status !== "done");
      out.event({ type: "result", site_id: site.id, status: failed ? failed.status : "done", jobs });
      if (failed) {
        out.note(`The ${pageName(failed.kind) ?? "page"} was not written (${failed.status}): ${failed.error ?? "no reason given"}`);
        return 1;
      }
      out.line(`Done. Publish it: reposite publish ${site.slug ?? site.id}`);
    },
  });
}

function parsePages(list: string): PlanPage[] {
  const pages = list.split(",").map((page) => page.trim()).filter(Boolean);
  const wrong = pages.find((page) => !(PLAN_PAGES as readonly string[]).includes(page));
  if (wrong) throw new UsageError(`--pages takes ${PLAN_PAGES.join(", ")} (comma-separated); not ${JSON.stringify(wrong)}.`);
  return pages as PlanPage[];
}

/** Follows each page's job and the next one it names, to the last; answers them as they ended. */
async function followGeneration(client: RepositeClient, firstJobId: string, out: Output, progress: ProgressLine): Promise<Job[]> {
  const ended: Job[] = [];
  const startedAt = Date.now();
  for (let jobId: string | null = firstJobId; jobId; ) {
    let written = 0;
    let job: Job | undefined;
    for await (const event of client.jobs.stream(jobId)) {
      if (event.type === "meta") job = event.job;
      else if (event.type === "delta") {
        written += event.t.length;
        progress.set(`Writing the ${pageName(job?.kind) ?? "page"} · ${(written / 1024).toFixed(1)} kB · ${elapsed(Date.now() - startedAt)}`);
      } else job = event.job;
    }
    progress.done();
    const last: Job = job!;
    ended.push(last);
    out.event({ type: "page", job: last });
    if (last.status !== "done") break;
    out.line(`✓ ${pageName(last.kind) ?? last.kind}${last.version_id ? ` (${last.version_id})` : ""}`);
    jobId = last.next_job_id;
  }
  return ended;
}
