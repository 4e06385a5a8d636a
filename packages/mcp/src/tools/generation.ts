import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { PAGE_KINDS, PROJECT_TYPES, type Job, type PageKind } from "@reposite/sdk";
import { z } from "zod";
import { defineTool, type ToolContext } from "../define-tool.js";
import type { Connection } from "../settings.js";
import { failure, success } from "../tool-result.js";
import { pagePlan, siteId } from "./inputs.js";

/** One page as its generation job ended. */
interface PageOutcome {
  /** The job's kind, else the page planned at that place in the chain. */
  kind: NonNullable<Job["kind"]> | null;
  status: Job["status"];
  version_id: string | null;
  error: string | null;
}

export function registerGenerationTools(server: McpServer, connection: Connection): void {
  defineTool(server, connection, {
    name: "generate_site",
    title: "Generate the site's pages and wait for them",
    description:
      "Writes the project's pages from its repository (landing page first, then the other pages of the plan, one after " +
      "another) and waits until the last one is written; answers each page's kind, status and version_id. " +
      "A first generation needs a plan: `mode` (saas: a product site whose buttons open the hosted app; website; " +
      "landing: one page) and for saas/website the `pages`. Later: `kind` remakes one page. " +
      "Pages go live only with publish_site. Takes from seconds to a few minutes.",
    inputSchema: {
      site_id: siteId,
      mode: z.enum(PROJECT_TYPES).optional().describe("The project type; with `pages`, a full plan."),
      pages: z.array(pagePlan).optional().describe("Pages besides the landing page (about, faq, auth); not for landing."),
      community: z.boolean().optional().describe("Adds a community forum for registered people (saas, website)."),
      instructions: z.string().max(2000).optional().describe("Wishes for the pages, at most 2000 characters."),
      kind: z.enum(PAGE_KINDS).optional().describe("Remake just this page (template = landing page)."),
      regenerate: z.boolean().optional().describe("With kind template: remake the landing page. With a full plan: change the project type."),
    },
    async run({ site_id, ...input }, context) {
      const started = await context.client.sites.generate(site_id, input, { signal: context.signal });
      const pages = await followChain(started.job_id, started.generating, context);
      const last = pages.at(-1)!;
      const result = { site_id, mode: started.mode, pages };
      if (last.status !== "done") {
        return failure({
          code: `generation_${last.status}`,
          message: `Writing the ${last.kind ?? "page"} page ended ${last.status}: ${sentence(last.error ?? "no reason given")}`,
          details: result,
        });
      }
      return success(`Wrote ${pages.map((page) => page.kind).join(", ")}. Next: publish_site puts them live.`, result);
    },
  });
}

/** Follows a generation job and each `next_job_id` after it, until the chain ends or a job fails. */
async function followChain(firstJobId: string, planned: PageKind[], { client, signal, progress }: ToolContext): Promise<PageOutcome[]> {
  const pages: PageOutcome[] = [];
  let jobId: string | null = firstJobId;
  while (jobId) {
    // Said as each page starts, not as it ends: the MCP SDK's client drops a progress
    // notification that arrives together with the answer.
    await progress(`Writing ${planned[pages.length] ?? "the next page"} (${pages.length + 1} of ${planned.length}).`);
    const { job } = await client.jobs.wait(jobId, { signal });
    const kind = job.kind ?? planned[pages.length] ?? null;
    pages.push({ kind, status: job.status, version_id: job.version_id, error: job.error });
    jobId = job.status === "done" ? job.next_job_id : null;
  }
  return pages;
}

/** Ends a reason with a full stop unless it has one. */
const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
