import { createMemoryContainerRuntime, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReposite, GENERATIONS_PER_DAY, type Reposite } from "../src/index.js";
import { finish } from "./job-chain.js";

describe("generation limits", () => {
  it(`allow ${GENERATIONS_PER_DAY} generations per 24 hours per account, then 429 generation_limit`, async () => {
    const github = await startFakeGitHub({ repos: [{ owner: "acme", name: "tool", readme: "# Tool\n\nDoes things." }] });
    const clock = { time: Date.parse("2026-05-01T00:00:00Z"), now: () => new Date(clock.time) };
    const reposite = createReposite({ storage: createStorage(), clock, github: { apiUrl: github.url, webHosts: ["github.com"] } });
    try {
      const ownerId = (await reposite.accounts.findOrCreate("busy@example.com")).account.id;
      const siteId = (await reposite.projects.create(ownerId, { repohost_url: "github.com/acme/tool" })).id;
      for (let i = 0; i < GENERATIONS_PER_DAY; i++) {
        const started = await reposite.generation.generate(ownerId, siteId, { mode: "landing", regenerate: true });
        await finish(reposite, ownerId, started.job_id);
      }
      await expect(reposite.generation.generate(ownerId, siteId, { mode: "landing", regenerate: true })).rejects.toMatchObject({
        status: 429,
        code: "generation_limit",
        details: { retry_after: expect.any(Number) },
      });
      clock.time += 86_400_000;
      await expect(reposite.generation.generate(ownerId, siteId, { mode: "landing", regenerate: true })).resolves.toMatchObject({ mode: "landing" });
    } finally {
      await reposite.close();
      await github.close();
    }
  });
});

describe("generation of a private repository's site", () => {
  let github: FakeGitHub;
  let reposite: Reposite;
  let ownerId: string;
  let siteId: string;

  beforeAll(async () => {
    github = await startFakeGitHub({
      token: "ghp_operator",
      repos: [{ owner: "acme", name: "internal-tool", private: true, description: "Private", readme: "# Internal tool\n\nFor the team." }],
    });
    // The operator's token sees the private repository, as a connected account's grant would.
    reposite = createReposite({
      storage: createStorage(),
      // saas sites need app hosting: a container runtime is registered.
      containerRuntime: createMemoryContainerRuntime(),
      github: { apiUrl: github.url, webHosts: ["github.com"], token: "ghp_operator" },
    });
    ownerId = (await reposite.accounts.findOrCreate("ada@example.com")).account.id;
    siteId = (await reposite.projects.create(ownerId, { repohost_url: "github.com/acme/internal-tool" })).id;
  });
  afterAll(async () => {
    await reposite.close();
    await github.close();
  });

  it.each(["website", "landing"] as const)("refuses the %s type with 422 private_repo", async (mode) => {
    await expect(reposite.generation.generate(ownerId, siteId, { mode })).rejects.toMatchObject({ status: 422, code: "private_repo" });
    expect((await reposite.projects.get(ownerId, siteId)).wizard).toBeNull();
  });

  it("makes it a saas site, whose later pages stay product pages", async () => {
    const started = await reposite.generation.generate(ownerId, siteId, { mode: "saas", pages: ["about"] });
    expect(started.mode).toBe("saas");
    for (let id: string | null = started.job_id; id; ) {
      let job = await reposite.jobs.get(ownerId, id);
      while (job.status === "running") {
        await new Promise((resolve) => setTimeout(resolve, 10));
        job = await reposite.jobs.get(ownerId, id);
      }
      expect(job.status).toBe("done");
      id = job.next_job_id;
    }
    await expect(reposite.generation.generate(ownerId, siteId, { mode: "website", regenerate: true })).rejects.toMatchObject({
      status: 422,
    });
    const single = await reposite.generation.generate(ownerId, siteId, { kind: "about" });
    expect(single.mode).toBe("saas");
  });
});
