import { createOpenAILanguageModel } from "@reposite/provider-ai";
import { dockerForTests, startFakeOpenAI, type FakeOpenAI, type FakeOpenAIRequest } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEngineHarness, type EngineHarness } from "./engine-harness.js";
import { DeploymentStore } from "@reposite/core";

const engine = await dockerForTests();

const SECRET = "sk_engine_fix_4711";

/** The user message of a chat completion request the fake received. */
const promptOf = (request: FakeOpenAIRequest) => (request.body!.messages as { role: string; content: string }[]).find((message) => message.role === "user")!.content;

/**
 * The fix with a language model on the Docker Engine: the real AI SDK client against the loopback
 * OpenAI, whose answers are Dockerfiles built for real. A Dockerfile with a typo in a RUN step
 * fails; the model's answer builds and runs, is kept, and later deploys build it until the
 * override is removed. A second project's first answer fails too, and its second works.
 */
// A failed first deploy, then one or two fix attempts, on a loaded machine: more than the usual 30 s.
describe.skipIf(!engine.available)("the fix with a model on the Engine", { timeout: 120_000 }, () => {
  let h: EngineHarness;
  let openai: FakeOpenAI;
  /** The fixture's Dockerfile; `step` is its fourth line. */
  const dockerfile = (step: string) =>
    [`FROM ${h.images.node}`, h.label, `RUN echo "building with ${SECRET}"`, step, "COPY server.js /app/server.js", 'CMD ["node", "/app/server.js"]', ""].join("\n");
  const files = (extra: Record<string, string> = {}) => ({
    Dockerfile: dockerfile('RUN ech "preparing"'),
    "server.js": "require('node:http').createServer((q, s) => s.end('fixed')).listen(process.env.PORT);\n",
    ...extra,
  });

  beforeAll(async () => {
    openai = await startFakeOpenAI({
      // The second project (it has a SECOND file) gets a Dockerfile that still fails at its first attempt.
      replies: (request) => {
        const prompt = promptOf(request);
        const step = prompt.includes("SECOND") && prompt.includes("Fix attempt 1 of 3.") ? 'RUN ech2 "preparing"' : 'RUN echo "preparing"';
        return `The fourth line has a typo.\n\n\`\`\`dockerfile\n${dockerfile(step).replace(`RUN echo "building with ${SECRET}"`, 'RUN echo "building"')}\`\`\`\n`;
      },
    });
    h = await startEngineHarness({
      hosting: { healthTimeoutMs: 10_000, buildConcurrency: 4 },
      languageModel: createOpenAILanguageModel({ apiKey: "sk-openai-test", baseURL: openai.url, model: "fixer-model", maxRetries: 0 }),
    });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await openai?.close();
  }, 60_000);

  async function failedApp(name: string, extra: Record<string, string> = {}) {
    const owner = await h.account();
    const site = await h.project(owner, name, files(extra));
    await h.reposite.hosting.setup(owner, site, {});
    await h.reposite.hosting.setEnv(owner, site, { env: { API_KEY: SECRET } });
    const { job } = await h.finish(owner, (await h.reposite.hosting.deploy(owner, site)).job_id);
    expect(job.status).toBe("error");
    return { owner, site };
  }
  const deployAgain = async (owner: string, site: string) => {
    const started = await h.reposite.hosting.deploy(owner, site);
    await h.finish(owner, started.job_id);
    return h.reposite.hosting.getRun(owner, site, started.run_id);
  };

  it.concurrent("a RUN with a typo: the model reads the Dockerfile, the diagnosis and the masked log; its Dockerfile runs and is kept until DELETE override", async () => {
    const { owner, site } = await failedApp("fix-typo");
    const failed = await h.reposite.hosting.read(owner, site);
    expect(failed.last_run!.diagnosis).toMatchObject({ kind: "build_step_failed", evidence: { dockerfile_line: 4 } });
    const started = await h.reposite.appFixer.fix(owner, site);
    expect(started.writer).toBe("model");
    const { job, text } = await h.finish(owner, started.job_id);
    expect(job.status, text).toBe("done");

    // The other test's project asks too (it has a SECOND file).
    const asked = openai.requests.filter((request) => !promptOf(request).includes("SECOND"));
    expect(asked).toHaveLength(1);
    const prompt = promptOf(asked[0]!);
    expect(prompt).toContain('RUN ech "preparing"');
    expect(prompt).toContain("failed at Dockerfile line 4");
    expect(prompt).toContain("kind: build_step_failed");
    expect(prompt).toContain("building with ***");
    expect(prompt).toMatch(/ech: not found/);
    expect(JSON.stringify(openai.requests)).not.toContain(SECRET);

    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", override: true, last_run: { status: "done" } });
    const override = (await h.reposite.container.resolve(DeploymentStore).get(site))!.override!;
    expect(override.dockerfile).toContain('RUN echo "preparing"');
    const [fixed] = await h.reposite.hosting.listRuns(owner, site);
    expect(fixed).toMatchObject({ status: "done", dockerfile_source: "fix", run_id: override.run_id });

    expect(await deployAgain(owner, site)).toMatchObject({ status: "done", dockerfile_source: "override" });
    expect(await h.reposite.appFixer.removeOverride(owner, site)).toMatchObject({ override: false, status: "running" });
    const repository = await deployAgain(owner, site);
    expect(repository).toMatchObject({ status: "failed", dockerfile_source: "repository", diagnosis: { kind: "build_step_failed" } });
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", override: false });
  });

  it.concurrent("the model's first Dockerfile fails too: the second attempt gets its diagnosis and log, works, and is kept (two runs)", async () => {
    const { owner, site } = await failedApp("fix-twice", { SECOND: "" });
    const { job, text } = await h.finish(owner, (await h.reposite.appFixer.fix(owner, site)).job_id);
    expect(job.status, text).toBe("done");
    const runs = await h.reposite.hosting.listRuns(owner, site);
    expect(runs.map((run) => [run.status, run.dockerfile_source])).toEqual([
      ["done", "fix"],
      ["failed", "fix"],
      ["failed", "repository"],
    ]);
    const second = openai.requests.map(promptOf).filter((prompt) => prompt.includes("SECOND") && prompt.includes("Fix attempt 2 of 3."));
    expect(second).toHaveLength(1);
    expect(second[0]).toContain("The Dockerfile that failed (the Dockerfile attempt 1 wrote)");
    expect(second[0]).toContain('RUN ech2 "preparing"');
    expect(second[0]).toMatch(/ech2: not found/);
    expect((await h.reposite.container.resolve(DeploymentStore).get(site))!.override!.run_id).toBe(runs[0]!.run_id);
  });
});
