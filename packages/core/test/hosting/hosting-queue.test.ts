import { describe, expect, it } from "vitest";
import { BUILDS_PER_DAY, DeploymentStore } from "../../src/index.js";
import { eventually, startHostingHarness, WEB_APP } from "./hosting-harness.js";

/** A build that takes `seconds`, for runs that must be seen under way. */
const slow = (seconds: number) => `FROM node:22\nRUN sleep ${seconds}\nCMD ["node", "server.js"]\n`;

describe("the build queue", () => {
  it("takes one deploy at a time per account: of concurrent deploys exactly one is accepted, the rest 429 build_limit", async () => {
    const h = await startHostingHarness({ repos: [{ owner: "acme", name: "web", files: { ...WEB_APP, Dockerfile: slow(0.3) } }] });
    try {
      const owner = await h.account("ada@example.com");
      const sites = await Promise.all(Array.from({ length: 6 }, () => h.project(owner)));
      for (const site of sites) await h.reposite.hosting.setup(owner, site, {});
      const results = await Promise.allSettled(sites.map((site) => h.reposite.hosting.deploy(owner, site)));
      const accepted = results.filter((result) => result.status === "fulfilled");
      expect(accepted).toHaveLength(1);
      for (const result of results.filter((each) => each.status === "rejected")) {
        expect((result as PromiseRejectedResult).reason).toMatchObject({ status: 429, code: "build_limit", details: { retry_after: 30 } });
      }
      const { job } = await h.finish(owner, (accepted[0] as PromiseFulfilledResult<{ job_id: string }>).value.job_id);
      expect(job.status).toBe("done");
      // Once it ended the account may deploy again.
      const next = await h.reposite.hosting.deploy(owner, sites[1]!);
      expect((await h.finish(owner, next.job_id)).job.status).toBe("done");
    } finally {
      await h.close();
    }
  });

  it(`allows ${BUILDS_PER_DAY} deploys per account per 24 hours, then 429 build_limit with retry_after`, async () => {
    const clock = { time: Date.parse("2026-05-01T00:00:00Z"), now: () => new Date(clock.time) };
    const h = await startHostingHarness({ clock });
    try {
      const owner = await h.account("ada@example.com");
      const site = await h.project(owner);
      await h.reposite.hosting.setup(owner, site, {});
      for (let i = 0; i < BUILDS_PER_DAY; i++) {
        const started = await h.reposite.hosting.deploy(owner, site);
        await h.finish(owner, started.job_id);
        clock.time += 60_000;
      }
      const refused = await h.reposite.hosting.deploy(owner, site).catch((error: unknown) => error);
      expect(refused).toMatchObject({ status: 429, code: "build_limit", details: { retry_after: expect.any(Number) } });
      expect((refused as { details: { retry_after: number } }).details.retry_after).toBeGreaterThan(0);
      // Another account is not held back.
      const other = await h.account("bob@example.com");
      const otherSite = await h.project(other);
      await h.reposite.hosting.setup(other, otherSite, {});
      expect((await h.finish(other, (await h.reposite.hosting.deploy(other, otherSite)).job_id)).job.status).toBe("done");
      clock.time += 86_400_000;
      expect((await h.finish(owner, (await h.reposite.hosting.deploy(owner, site)).job_id)).job.status).toBe("done");
      expect(await h.reposite.hosting.listRuns(owner, site)).toHaveLength(20);
    } finally {
      await h.close();
    }
  });

  it("with the server's slots taken, another account's run waits as queued, then goes", async () => {
    const files = { ...WEB_APP, Dockerfile: slow(0.5) };
    const h = await startHostingHarness({ repos: [{ owner: "acme", name: "web", files }], hosting: { buildConcurrency: 1 } });
    try {
      const ada = await h.account("ada@example.com");
      const bob = await h.account("bob@example.com");
      const adaSite = await h.project(ada);
      const bobSite = await h.project(bob);
      await h.reposite.hosting.setup(ada, adaSite, {});
      await h.reposite.hosting.setup(bob, bobSite, {});
      const first = await h.reposite.hosting.deploy(ada, adaSite);
      await eventually(async () => (await h.reposite.hosting.read(ada, adaSite)).status === "building");
      const second = await h.reposite.hosting.deploy(bob, bobSite);
      const waiting = await h.reposite.hosting.read(bob, bobSite);
      expect(waiting.status).toBe("configured");
      expect(waiting.last_run).toMatchObject({ run_id: second.run_id, status: "queued", finished_at: null });
      expect((await h.reposite.hosting.listRuns(bob, bobSite))[0]).toMatchObject({ status: "queued", started_at: null });
      const bobDone = h.finish(bob, second.job_id);
      expect((await h.finish(ada, first.job_id)).job.status).toBe("done");
      const { job, text } = await bobDone;
      expect(job.status).toBe("done");
      expect(text).toMatch(/^Queued: 1 deploy of other accounts under way; this one starts when a build slot is free\.\n/);
      const runs = await h.reposite.hosting.listRuns(bob, bobSite);
      const adaRun = (await h.reposite.hosting.listRuns(ada, adaSite))[0]!;
      // Bob's build started only when Ada's run had ended.
      expect(runs[0]!.started_at! >= adaRun.finished_at!).toBe(true);
    } finally {
      await h.close();
    }
  });

  it("runs up to buildConcurrency builds of different accounts at once", async () => {
    const h = await startHostingHarness({ repos: [{ owner: "acme", name: "web", files: { ...WEB_APP, Dockerfile: slow(0.4) } }], hosting: { buildConcurrency: 2 } });
    try {
      const owners = await Promise.all(["a@example.com", "b@example.com", "c@example.com"].map((email) => h.account(email)));
      const sites = await Promise.all(owners.map((owner) => h.project(owner)));
      for (const [i, site] of sites.entries()) await h.reposite.hosting.setup(owners[i]!, site, {});
      const started = await Promise.all(sites.map((site, i) => h.reposite.hosting.deploy(owners[i]!, site)));
      await eventually(async () => (await h.reposite.hosting.read(owners[1]!, sites[1]!)).status === "building");
      expect((await h.reposite.hosting.read(owners[0]!, sites[0]!)).status).toBe("building");
      expect((await h.reposite.hosting.read(owners[2]!, sites[2]!)).last_run?.status).toBe("queued");
      for (const [i, run] of started.entries()) expect((await h.finish(owners[i]!, run.job_id)).job.status).toBe("done");
    } finally {
      await h.close();
    }
  });

  it("a cancelled deploy ends failed and frees the account's slot; an app that never ran shows failed", async () => {
    const h = await startHostingHarness({ repos: [{ owner: "acme", name: "web", files: { ...WEB_APP, Dockerfile: slow(5) } }] });
    try {
      const owner = await h.account("ada@example.com");
      const site = await h.project(owner);
      await h.reposite.hosting.setup(owner, site, {});
      const started = await h.reposite.hosting.deploy(owner, site);
      await eventually(async () => (await h.reposite.hosting.read(owner, site)).status === "building");
      await h.reposite.jobs.cancel(owner, started.job_id);
      await eventually(async () => (await h.reposite.hosting.read(owner, site)).last_run?.status === "failed");
      const deployment = await h.reposite.hosting.read(owner, site);
      expect(deployment).toMatchObject({ status: "failed", last_run: { reason: "The deploy was cancelled." } });
      expect((await h.reposite.container.resolve(DeploymentStore).get(site))!.run).toBeNull();
      await eventually(async () => (await h.reposite.hosting.deploy(owner, site).catch(() => null)) !== null);
    } finally {
      await h.close();
    }
  });
});
