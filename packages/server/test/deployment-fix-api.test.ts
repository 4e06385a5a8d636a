import { createOpenAILanguageModel } from "@reposite/provider-ai";
import { createMemoryContainerRuntime, startFakeOpenAI, type FakeOpenAI, type FakeRepo, type MemoryContainerRuntime } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, json, startHarness, type Harness, type Transport } from "./harness.js";

const SECRET = "sk_test_fix_9191919191";
const GOOD = 'FROM node:22\nCOPY . /app\nCMD ["node", "/app/server.js"]\n';
const REPOS: FakeRepo[] = [
  {
    owner: "acme",
    name: "broken",
    description: "Fails at its third step",
    topics: [],
    files: {
      Dockerfile: `FROM node:22\nRUN echo building with ${SECRET}\nRUN exit 3\nCMD ["node", "server.js"]\n`,
      "server.js": "require('node:http').createServer((q, s) => s.end('hi')).listen(process.env.PORT);\n",
    },
  },
  { owner: "acme", name: "fine", description: "Works", topics: [], files: { Dockerfile: 'FROM node:22\nCMD ["node", "server.js"]\n' } },
];

async function waitForJob(h: Harness, token: string, jobId: string): Promise<Record<string, unknown>> {
  for (;;) {
    const job = await (await h.call(`/app/jobs/${jobId}`, bearer(token))).json();
    if (job.status !== "running") return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(["in-process", "socket"] as const)("the fix over HTTP, with the AI SDK client and the loopback OpenAI (%s)", (transport: Transport) => {
  let h: Harness;
  let runtime: MemoryContainerRuntime;
  let openai: FakeOpenAI;
  let token: string;
  let paid = true;
  const site = async (repo: string) => (await (await h.call("/app/sites", json({ repohost_url: `github.com/acme/${repo}` }, token))).json()).id as string;
  const deploy = async (id: string) => {
    const started = await h.call(`/app/sites/${id}/deployment/deploy`, bearer(token, "POST"));
    expect(started.status).toBe(202);
    const { job_id } = await started.json();
    return waitForJob(h, token, job_id);
  };
  const runs = async (id: string) => (await (await h.call(`/app/sites/${id}/deployment/runs`, bearer(token))).json()) as { status: string; dockerfile_source: string }[];

  beforeAll(async () => {
    openai = await startFakeOpenAI({ replies: [`The third step exits 3; here is a Dockerfile without it:\n\n\`\`\`dockerfile\n${GOOD}\`\`\`\n`] });
    runtime = createMemoryContainerRuntime();
    h = await startHarness(transport, REPOS, {
      containerRuntime: runtime,
      hosting: { healthIntervalMs: 20, logFlushMs: 20 },
      languageModel: createOpenAILanguageModel({ apiKey: "sk-openai-test", baseURL: openai.url, model: "fixer-model", maxRetries: 0 }),
      hostingEntitlements: { mayHost: async () => paid },
    });
    ({ token } = await h.signUp("ada@example.com"));
  });
  afterAll(async () => {
    await h.close();
    await runtime.close();
    await openai.close();
  });

  it("POST fix → 202 with the fix's job; the model's Dockerfile deploys and is kept; deploys build it; DELETE override → 200, the repository's again", async () => {
    const id = await site("broken");
    expect((await h.call(`/app/sites/${id}/deployment`, json({}, token, "PUT"))).status).toBe(201);
    expect((await h.call(`/app/sites/${id}/deployment/env`, json({ env: { API_KEY: SECRET } }, token, "PUT"))).status).toBe(200);
    expect(await deploy(id)).toMatchObject({ status: "error" });
    const before = openai.requests.length;

    const answer = await h.call(`/app/sites/${id}/deployment/fix`, bearer(token, "POST"));
    expect(answer.status).toBe(202);
    const started = await answer.json();
    expect(started).toEqual({ job_id: expect.stringMatching(/^job_/), writer: "model", max_attempts: 3 });
    expect(await waitForJob(h, token, started.job_id)).toMatchObject({ status: "done", type: "deploy", kind: "fix", writer: "model", error: null });
    const stream = await (await h.call(`/app/jobs/${started.job_id}/stream`, bearer(token))).text();
    expect(stream).toContain("Attempt 1 of 3: asking the model (fixer-model)");
    expect(stream).toContain("Attempt 1 of 3 worked");
    expect(stream).not.toContain(SECRET);

    // What the model received, through the real client: one chat completion with the material.
    const asked = openai.requests.slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.path).toBe("/v1/chat/completions");
    expect(asked[0]!.body).toMatchObject({ model: "fixer-model", stream: true });
    const messages = asked[0]!.body!.messages as { role: string; content: string }[];
    expect(messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(messages[0]!.content).toContain("Write the whole corrected Dockerfile.");
    const prompt = messages[1]!.content;
    expect(prompt).toContain("RUN exit 3");
    expect(prompt).toContain("exit code 3");
    expect(prompt).toContain("building with ***");
    expect(prompt).toContain("env names set (values withheld): API_KEY");
    expect(JSON.stringify(asked[0]!.body)).not.toContain(SECRET);

    const read = await (await h.call(`/app/sites/${id}/deployment`, bearer(token))).json();
    expect(read).toMatchObject({ status: "running", override: true, last_run: { status: "done" } });
    expect((await runs(id)).map((run) => [run.status, run.dockerfile_source])).toEqual([
      ["done", "fix"],
      ["failed", "repository"],
    ]);

    expect(await deploy(id)).toMatchObject({ status: "done" });
    expect((await runs(id))[0]).toMatchObject({ status: "done", dockerfile_source: "override" });

    const removed = await h.call(`/app/sites/${id}/deployment/override`, bearer(token, "DELETE"));
    expect(removed.status).toBe(200);
    await expect(removed.json()).resolves.toMatchObject({ override: false, status: "running" });
    expect(await deploy(id)).toMatchObject({ status: "error" });
    expect((await runs(id))[0]).toMatchObject({ status: "failed", dockerfile_source: "repository" });
    expect(openai.requests.length - before).toBe(1);
  });

  it("refuses with codes: 409 run_under_way and nothing_to_fix, 402 payment_required, 404 to another account", async () => {
    const fine = await site("fine");
    await h.call(`/app/sites/${fine}/deployment`, json({}, token, "PUT"));
    const started = await (await h.call(`/app/sites/${fine}/deployment/deploy`, bearer(token, "POST"))).json();
    const underWay = await h.call(`/app/sites/${fine}/deployment/fix`, bearer(token, "POST"));
    expect(underWay.status).toBe(409);
    await expect(underWay.json()).resolves.toMatchObject({ code: "run_under_way", error: expect.any(String) });
    expect(await waitForJob(h, token, started.job_id)).toMatchObject({ status: "done" });
    const nothing = await h.call(`/app/sites/${fine}/deployment/fix`, bearer(token, "POST"));
    expect(nothing.status).toBe(409);
    await expect(nothing.json()).resolves.toMatchObject({ code: "nothing_to_fix" });

    paid = false;
    try {
      const unpaid = await h.call(`/app/sites/${fine}/deployment/fix`, bearer(token, "POST"));
      expect(unpaid.status).toBe(402);
      await expect(unpaid.json()).resolves.toMatchObject({ code: "payment_required" });
      // Forgetting a fix is always allowed.
      expect((await h.call(`/app/sites/${fine}/deployment/override`, bearer(token, "DELETE"))).status).toBe(200);
    } finally {
      paid = true;
    }
    const { token: other } = await h.signUp(`eve-${transport}@example.com`);
    for (const [method, path] of [["POST", "fix"], ["DELETE", "override"]] as const) {
      const answer = await h.call(`/app/sites/${fine}/deployment/${path}`, bearer(other, method));
      expect(answer.status).toBe(404);
    }
  });
});

describe("the fix over HTTP without a model", () => {
  it("answers 503 ai_not_configured for a failure no rule knows, and starts nothing", async () => {
    const runtime = createMemoryContainerRuntime();
    const h = await startHarness("in-process", REPOS, { containerRuntime: runtime, hosting: { healthIntervalMs: 20, logFlushMs: 20 } });
    try {
      const { token } = await h.signUp("ada@example.com");
      const id = (await (await h.call("/app/sites", json({ repohost_url: "github.com/acme/broken" }, token))).json()).id;
      await h.call(`/app/sites/${id}/deployment`, json({}, token, "PUT"));
      const { job_id } = await (await h.call(`/app/sites/${id}/deployment/deploy`, bearer(token, "POST"))).json();
      expect(await waitForJob(h, token, job_id)).toMatchObject({ status: "error" });
      const answer = await h.call(`/app/sites/${id}/deployment/fix`, bearer(token, "POST"));
      expect(answer.status).toBe(503);
      await expect(answer.json()).resolves.toMatchObject({ code: "ai_not_configured", error: expect.stringContaining("No language model is configured") });
      expect(await (await h.call(`/app/sites/${id}/deployment/runs`, bearer(token))).json()).toHaveLength(1);
    } finally {
      await h.close();
      await runtime.close();
    }
  });
});
