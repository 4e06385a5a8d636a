import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type RunningServer } from "@reposite/server";
import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient, UnprocessableEntityError, type RepositeClient } from "../src/index.js";

let github: FakeGitHub;
let server: RunningServer;
let dataDir: string;
let client: RepositeClient;

beforeAll(async () => {
  github = await startFakeGitHub({
    repos: [{ owner: "acme", name: "notebook", description: "Notes for data science", topics: ["jupyter"], readme: "# Notebook\n\nNotes that run.\n\n## Install\n\n```sh\npip install notebook\n```\n" }],
  });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-sdk-gen-"));
  server = await startServer({
    settings: {
      listen: { port: 0, hostname: "127.0.0.1" },
      reposite: { config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" }, github: { apiUrl: github.url, webHosts: ["github.com"] } },
    },
  });
  const { account } = await server.reposite.accounts.findOrCreate("ada@example.com");
  const { secret } = await server.reposite.tokens.create(account.id, { name: "sdk", lifetime: "30d" });
  client = createClient({ baseURL: server.url, token: secret });
});
afterAll(async () => {
  await server?.close();
  await github?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("generates a site, follows each page's job to the end, and manages the page versions", async () => {
  const site = await client.sites.create({ repohost_url: "https://github.com/acme/notebook" });
  const started = await client.sites.generate(site.id, { mode: "website", pages: ["faq"] });
  expect(started).toMatchObject({ status: "running", mode: "website", pages: ["faq"], generating: ["template", "faq"] });

  const first = await client.jobs.wait(started.job_id);
  expect(first.job).toMatchObject({ status: "done", kind: "template" });
  expect(JSON.parse(first.text)).toMatchObject({ kind: "template" });
  const second = await client.jobs.wait(first.job.next_job_id!);
  expect(second.job).toMatchObject({ status: "done", kind: "faq", next_job_id: null });

  const versions = await client.versions.list(site.id, { kind: "template" });
  expect(versions).toEqual([expect.objectContaining({ id: first.job.version_id, current: true })]);
  const page = await client.versions.get(first.job.version_id!);
  expect(page.html).toContain("pip install notebook");

  const custom = await client.versions.create(site.id, { kind: "template", html: "<h1>Mine</h1>", name: "hand-written" });
  expect(custom).toMatchObject({ current: true, source: "custom" });
  const back = await client.versions.setCurrent(site.id, { kind: "template", version_id: first.job.version_id! });
  expect(back.current).toBe(true);

  await expect(client.sites.generate(site.id, { mode: "website", instructions: "x".repeat(2001) })).rejects.toSatisfy(
    (error) => error instanceof UnprocessableEntityError && error.code === "instructions_too_long",
  );
});

it("jobs.followChain follows every page's job through next_job_id, with each event and its job", async () => {
  const site = await client.sites.create({ repohost_url: "https://github.com/acme/notebook" });
  const started = await client.sites.generate(site.id, { mode: "website", pages: ["about", "faq"] });
  const events: { type: string; jobId: string }[] = [];
  const jobs = await client.jobs.followChain(started.job_id, { onEvent: (event, jobId) => events.push({ type: event.type, jobId }) });

  expect(jobs.map((job) => [job.kind, job.status])).toEqual([
    ["template", "done"],
    ["about", "done"],
    ["faq", "done"],
  ]);
  expect(jobs[0]!.job_id).toBe(started.job_id);
  expect(jobs[1]!.job_id).toBe(jobs[0]!.next_job_id);
  expect(jobs[2]!.job_id).toBe(jobs[1]!.next_job_id);
  expect(jobs[2]!.next_job_id).toBeNull();
  // Each job's stream was read from meta to done, in order.
  for (const job of jobs) {
    const own = events.filter((event) => event.jobId === job.job_id).map((event) => event.type);
    expect(own[0]).toBe("meta");
    expect(own.at(-1)).toBe("done");
    expect(own).toContain("delta");
  }
  // One job after another: the events never go back to an earlier job.
  const order = events.map((event) => jobs.findIndex((job) => job.job_id === event.jobId));
  expect(order).toEqual([...order].sort((a, b) => a - b));
});
