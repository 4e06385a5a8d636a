import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReposite, type Reposite } from "../../src/index.js";
import { finish } from "../job-chain.js";

// Issue 15: the README author makes no FAQ page from a README that asks no question. The
// generation skips the page (its job ends done, with no version, saying why) and leaves it out
// of the site's menu; a README with a question gets its FAQ page as before.

describe("generation with the README author and a README without questions", () => {
  let github: FakeGitHub;
  let reposite: Reposite;
  let ownerId: string;

  beforeAll(async () => {
    github = await startFakeGitHub({
      repos: [
        { owner: "acme", name: "quiet", readme: "# Quiet\n\nQuiet mutes noisy notifications.\n\n## Install\n\n```\nnpm install quiet\n```\n" },
        { owner: "acme", name: "asks", readme: "# Asks\n\nAsks answers questions.\n\n## FAQ\n\n### Is it free?\n\nYes, MIT licensed.\n" },
      ],
    });
    reposite = createReposite({ storage: createStorage(), github: { apiUrl: github.url, webHosts: ["github.com"] } });
    ownerId = (await reposite.accounts.findOrCreate("ada@example.com")).account.id;
  });
  afterAll(async () => {
    await reposite.close();
    await github.close();
  });

  async function generate(repo: string) {
    const siteId = (await reposite.projects.create(ownerId, { repohost_url: `github.com/acme/${repo}` })).id;
    const started = await reposite.generation.generate(ownerId, siteId, { mode: "website", pages: ["about", "faq"] });
    await finish(reposite, ownerId, started.job_id);
    const jobs = [];
    for (let id: string | null = started.job_id; id; ) {
      const job = await reposite.jobs.get(ownerId, id);
      jobs.push(job);
      id = job.next_job_id;
    }
    const versions = await reposite.pageVersions.list(ownerId, siteId);
    const landing = versions.find((version) => version.kind === "template")!;
    const html = (await reposite.pageVersions.get(ownerId, landing.id)).html;
    return { jobs, versions, html };
  }

  it("skips the FAQ page: its job is done without a version, says why, and the menu has no FAQ", async () => {
    const { jobs, versions, html } = await generate("quiet");
    // The chain runs template, about, faq: all done.
    expect(jobs.map((job) => job.status)).toEqual(["done", "done", "done"]);
    expect(jobs[2]!.version_id).toBeNull();
    const deltas: string[] = [];
    for await (const event of reposite.jobs.events(ownerId, jobs[2]!.job_id)) if (event.type === "delta") deltas.push(event.t);
    expect(deltas.join("")).toMatch(/asks no question, so no FAQ page was made/);
    expect(versions.map((version) => version.kind).sort()).toEqual(["about", "template"]);
    expect(html).toContain('href="/about"');
    expect(html).not.toContain('href="/faq"');
  });

  it("makes the FAQ page from the README's own question", async () => {
    const { jobs, versions, html } = await generate("asks");
    expect(jobs[2]!.version_id).toEqual(expect.any(String));
    expect(versions.map((version) => version.kind).sort()).toEqual(["about", "faq", "template"]);
    expect(html).toContain('href="/faq"');
  });
});
