import { createOpenAILanguageModel } from "@reposite/provider-ai";
import { createMemoryContainerRuntime, startFakeOpenAI, type FakeOpenAI } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, json, startHarness, type Harness } from "./harness.js";

const README = `# Rocket CLI

Launch rockets from your terminal, safely.

## Features

- Countdown with abort at any second
- Works offline
- Plugins for every launch pad

## Installation

\`\`\`sh
npm install -g rocket-cli
\`\`\`

## Usage

\`\`\`sh
rocket launch --pad 39A
\`\`\`

## FAQ

### Does it need a network?

No. Every launch is planned on your machine.
`;

const REPOS = [
  { owner: "acme", name: "rocket-cli", description: "Launch rockets from your terminal", topics: ["cli"], readme: README },
];

type Job = { job_id: string; status: string; version_id: string | null; next_job_id: string | null; kind?: string; error: string | null };

async function waitForJob(h: Harness, token: string, jobId: string): Promise<Job> {
  for (let i = 0; i < 400; i++) {
    const job = (await (await h.call(`/app/jobs/${jobId}`, bearer(token))).json()) as Job;
    if (job.status !== "running") return job;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`job ${jobId} did not end`);
}

/** Follows a generation's chain of jobs to its end; answers every job in order. */
async function followChain(h: Harness, token: string, firstJobId: string): Promise<Job[]> {
  const jobs: Job[] = [];
  for (let id: string | null = firstJobId; id; ) {
    const job: Job = await waitForJob(h, token, id);
    jobs.push(job);
    id = job.next_job_id;
  }
  return jobs;
}

describe("site generation with the README author (the embedded default)", () => {
  let h: Harness;
  let token: string;
  let siteId: string;
  const generate = (body: unknown, site = siteId) => h.call(`/app/sites/${site}/generate`, json(body, token));

  beforeAll(async () => {
    h = await startHarness("socket", REPOS);
    ({ token } = await h.signUp("ada@example.com"));
    siteId = (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli" }, token))).json()).id;
  });
  afterAll(() => h.close());

  it("generates a website's pages one after another, saves the plan, and makes each page current", async () => {
    const started = await generate({ mode: "website", pages: ["about", "faq"], instructions: "About: mention the launch team. Make it bold." });
    expect(started.status).toBe(202);
    const answer = await started.json();
    expect(answer).toEqual({ job_id: expect.stringMatching(/^job_/), status: "running", mode: "website", pages: ["about", "faq"], generating: ["template", "about", "faq"] });

    const jobs = await followChain(h, token, answer.job_id);
    expect(jobs.map((job) => [job.status, job.kind])).toEqual([["done", "template"], ["done", "about"], ["done", "faq"]]);
    expect(jobs.at(-1)!.next_job_id).toBeNull();

    const project = await (await h.call(`/app/sites/${siteId}`, bearer(token))).json();
    expect(project.wizard).toEqual({ mode: "website", pages: ["about", "faq"], community: false });

    const landing = await (await h.call(`/app/versions/${jobs[0]!.version_id}`, bearer(token))).json();
    expect(landing).toMatchObject({ kind: "template", current: true, source: "generated", design: project.design });
    expect(landing.html).toContain("<!doctype html>");
    expect(landing.html).toContain("rocket-cli");
    expect(landing.html).toContain("npm install -g rocket-cli");
    expect(landing.html).toContain('href="https://github.com/acme/rocket-cli"');

    const list = await (await h.call(`/app/sites/${siteId}/versions?kind=about`, bearer(token))).json();
    expect(list).toHaveLength(1);
    expect(list[0]).not.toHaveProperty("html");
    expect(list[0]).toMatchObject({ id: jobs[1]!.version_id, kind: "about", current: true, name: expect.stringContaining("wishes") });
  });

  it("streams the text written: meta, deltas, done; joined deltas are a whole page", async () => {
    const { job_id } = await (await generate({ kind: "faq" })).json();
    const stream = await h.call(`/app/jobs/${job_id}/stream`, bearer(token));
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await stream.text();
    const events = [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    expect(events[0]).toBe("meta");
    expect(events.at(-1)).toBe("done");
    const written = [...text.matchAll(/^data: (\{"i":.*)$/gm)].map((match) => JSON.parse(match[1]!).t).join("");
    expect(JSON.parse(written)).toMatchObject({ kind: "faq" });
  });

  it("remakes only the About page with its wishes; older versions stay in the history", async () => {
    const { job_id, generating } = await (await generate({ kind: "about", instructions: "Say the team is in Florida." })).json();
    expect(generating).toEqual(["about"]);
    const [job] = await followChain(h, token, job_id);
    expect(job!.status).toBe("done");
    const versions = await (await h.call(`/app/sites/${siteId}/versions?kind=about`, bearer(token))).json();
    expect(versions).toHaveLength(2);
    expect(versions.map((v: { current: boolean }) => v.current)).toEqual([true, false]);
    expect((await (await h.call(`/app/sites/${siteId}/versions?kind=template`, bearer(token))).json())).toHaveLength(1);
  });

  it("keeps the type on regenerate with kind template; changes it only with regenerate and a full plan", async () => {
    const again = await (await generate({ kind: "template", regenerate: true })).json();
    expect(again.mode).toBe("website");
    await followChain(h, token, again.job_id);

    const refused = await generate({ mode: "landing" });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: "regenerate_required" });

    const changed = await (await generate({ mode: "landing", regenerate: true })).json();
    expect(changed).toMatchObject({ mode: "landing", pages: [], generating: ["template"] });
    await followChain(h, token, changed.job_id);
    const project = await (await h.call(`/app/sites/${siteId}`, bearer(token))).json();
    expect(project.wizard).toBeNull();
    expect(await (await h.call(`/app/sites/${siteId}/versions?kind=template`, bearer(token))).json()).toHaveLength(3);
  });

  it.each([
    ["2001 characters of wishes", { mode: "website", instructions: "x".repeat(2001) }, 422, "instructions_too_long"],
    ["a landing site with pages", { mode: "landing", pages: ["about"], regenerate: true }, 422, "invalid_request"],
    ["a landing site with a community", { mode: "landing", community: true, regenerate: true }, 422, "invalid_request"],
    ["a page outside the plan", { kind: "about" }, 422, "not_in_plan"],
    ["neither plan nor page", {}, 422, "invalid_request"],
    ["an unknown mode", { mode: "blog" }, 422, "invalid_request"],
    ["saas without app hosting", { mode: "saas", regenerate: true }, 503, "hosting_unavailable"],
  ])("refuses %s with %i %s", async (_, body, status, code) => {
    const response = await generate(body);
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ code });
  });

  it("asks for a plan before a single page", async () => {
    const fresh = (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli" }, token))).json()).id;
    const response = await generate({ kind: "template" }, fresh);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "no_plan" });
  });

  it("answers 404 for someone else's project and job", async () => {
    const bob = await h.signUp("bob@example.com");
    expect((await h.call(`/app/sites/${siteId}/generate`, json({ mode: "landing" }, bob.token))).status).toBe(404);
    const { job_id } = await (await generate({ kind: "template" })).json();
    expect((await h.call(`/app/jobs/${job_id}`, bearer(bob.token))).status).toBe(404);
    await followChain(h, token, job_id);
  });
});

describe("page versions", () => {
  let h: Harness;
  let token: string;
  let siteId: string;
  beforeAll(async () => {
    h = await startHarness("socket", REPOS);
    ({ token } = await h.signUp("ada@example.com"));
    siteId = (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli" }, token))).json()).id;
  });
  afterAll(() => h.close());

  it("takes custom HTML as the current version, switches back to an earlier one, and refuses over 5 MB", async () => {
    const first = await h.call(`/app/sites/${siteId}/versions`, json({ kind: "about", html: "<h1>One</h1>", name: "first" }, token));
    expect(first.status).toBe(201);
    const one = await first.json();
    expect(one).toMatchObject({ kind: "about", name: "first", source: "custom", current: true });
    const two = await (await h.call(`/app/sites/${siteId}/versions`, json({ kind: "about", html: "<h1>Two</h1>", name: "second" }, token))).json();
    expect((await (await h.call(`/app/versions/${one.id}`, bearer(token))).json())).toMatchObject({ current: false, html: "<h1>One</h1>" });

    const back = await h.call(`/app/sites/${siteId}/actual`, json({ kind: "about", version_id: one.id }, token, "PUT"));
    expect(back.status).toBe(200);
    expect(await back.json()).toMatchObject({ id: one.id, current: true });
    const list = await (await h.call(`/app/sites/${siteId}/versions?kind=about`, bearer(token))).json();
    expect(list.map((v: { id: string; current: boolean }) => [v.id, v.current])).toEqual([[two.id, false], [one.id, true]]);

    const wrongKind = await h.call(`/app/sites/${siteId}/actual`, json({ kind: "faq", version_id: one.id }, token, "PUT"));
    expect(wrongKind.status).toBe(422);
    expect(await wrongKind.json()).toMatchObject({ code: "wrong_kind" });

    const huge = await h.call(`/app/sites/${siteId}/versions`, json({ kind: "about", html: "x".repeat(5 * 1024 * 1024 + 1), name: "huge" }, token));
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ code: "html_too_large" });
    expect((await h.call(`/app/sites/${siteId}/versions`, json({ kind: "menu", html: "<p>x</p>", name: "x" }, token))).status).toBe(422);
  });

  it("hides versions from other accounts", async () => {
    const mine = await (await h.call(`/app/sites/${siteId}/versions`, json({ kind: "faq", html: "<p>x</p>", name: "x" }, token))).json();
    const bob = await h.signUp("bob@example.com");
    expect((await h.call(`/app/versions/${mine.id}`, bearer(bob.token))).status).toBe(404);
    expect((await h.call(`/app/sites/${siteId}/versions`, bearer(bob.token))).status).toBe(404);
  });
});

describe("generation with the AI author, limits and cancel", () => {
  let h: Harness;
  let openai: FakeOpenAI;
  let token: string;
  let siteId: string;

  const landing = {
    kind: "template",
    meta: { title: "Rocket CLI", description: "Launch rockets from your terminal." },
    hero: { title: "Launch from your terminal", subtitle: "Countdown, abort and plugins.", primary_cta: { label: "Open the app" } },
    features: [
      { title: "Countdown", body: "Abort at any second." },
      { title: "Offline", body: "Works without a network." },
      { title: "Plugins", body: "Every launch pad." },
    ],
    sections: [],
    closing: { title: "Ready?", body: "Open the app.", cta: { label: "Open the app" } },
  };

  beforeAll(async () => {
    openai = await startFakeOpenAI({ replies: [JSON.stringify(landing)], chunkSize: 8, delayMs: 15 });
    h = await startHarness("socket", REPOS, {
      // saas sites need app hosting: a container runtime is registered.
      containerRuntime: createMemoryContainerRuntime(),
      languageModel: createOpenAILanguageModel({ apiKey: "sk-test", baseURL: openai.url, model: "test-model", maxRetries: 0 }),
    });
    ({ token } = await h.signUp("ada@example.com"));
    siteId = (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli" }, token))).json()).id;
  });
  afterAll(async () => {
    await h.close();
    await openai.close();
  });

  it("asks the model with the README and the page's wishes, and renders a saas page whose buttons open /app/", async () => {
    const { job_id, mode } = await (await h.call(`/app/sites/${siteId}/generate`, json({ mode: "saas", pages: [], instructions: "Landing: mention plugins." }, token))).json();
    expect(mode).toBe("saas");
    const [job] = await followChain(h, token, job_id);
    expect(job!.status).toBe("done");
    const request = openai.requests.at(-1)!;
    const prompt = JSON.stringify(request.body);
    expect(prompt).toContain("rocket launch --pad 39A");
    expect(prompt).toContain("mention plugins");
    const page = await (await h.call(`/app/versions/${job!.version_id}`, bearer(token))).json();
    expect(page.html).toContain("Launch from your terminal");
    expect(page.html).toContain('href="/app/"');
  });

  it("allows 2 generations at a time (429 generation_limit), and cancelling keeps pages finished before", async () => {
    const first = await (await h.call(`/app/sites/${siteId}/generate`, json({ kind: "template" }, token))).json();
    const second = await (await h.call(`/app/sites/${siteId}/generate`, json({ kind: "template" }, token))).json();
    const third = await h.call(`/app/sites/${siteId}/generate`, json({ kind: "template" }, token));
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ code: "generation_limit" });

    const before = await (await h.call(`/app/sites/${siteId}/versions?kind=template`, bearer(token))).json();
    const cancelled = await (await h.call(`/app/jobs/${second.job_id}/cancel`, { method: "POST", headers: { authorization: `Bearer ${token}` } })).json();
    expect(cancelled.status).toBe("cancelled");
    await followChain(h, token, first.job_id);
    const after = await (await h.call(`/app/sites/${siteId}/versions?kind=template`, bearer(token))).json();
    expect(after.length).toBe(before.length + 1);
    expect(openai.requests.some((request) => request.aborted)).toBe(true);
    expect((await h.call(`/app/sites/${siteId}/generate`, json({ kind: "template" }, token))).status).toBe(202);
  });
});
