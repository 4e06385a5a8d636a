import { createMemoryContainerRuntime } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeployRunStore } from "../../src/hosting/deploy-run-store.js";
import { FIX_SYSTEM_PROMPT } from "../../src/hosting/fix/fix-prompt.js";
import { DeploymentStore, RepositeError, type Diagnosis, type LanguageModel, type TextStreamRequest } from "../../src/index.js";
import { startHostingHarness, WEB_APP, type HostingHarness } from "./hosting-harness.js";

const SECRET = "sk_live_abcdef123";

/** A repository whose Dockerfile fails at its third line, printing the app's secret before. */
const BROKEN: Record<string, string> = {
  Dockerfile: `FROM node:22\nRUN echo building with ${SECRET}\nRUN exit 3\nCMD ["node", "server.js"]\n`,
  "server.js": "require('node:http').createServer((q, s) => s.end('hi')).listen(process.env.PORT);\n",
  "package.json": '{"name":"broken","scripts":{"start":"node server.js"}}\n',
};
const GOOD = 'FROM node:22\nCOPY . /app\nCMD ["node", "/app/server.js"]\n';
const fenced = (dockerfile: string) => `Here is the corrected Dockerfile:\n\n\`\`\`dockerfile\n${dockerfile}\`\`\`\n\nI removed the failing step.`;

/** A LanguageModel that answers `replies` in order (the last repeating) and keeps every request; `gate` holds answers back. */
function scriptedModel() {
  const model = {
    provider: "test",
    modelId: "fixer-1",
    replies: [fenced(GOOD)] as string[],
    requests: [] as TextStreamRequest[],
    gate: null as Promise<void> | null,
    failure: null as Error | null,
    async *streamText(request: TextStreamRequest): AsyncGenerator<string> {
      model.requests.push(request);
      if (model.failure) throw model.failure;
      const reply = model.replies[Math.min(model.requests.length - 1, model.replies.length - 1)]!;
      if (model.gate) await Promise.race([model.gate, new Promise((_, reject) => request.signal?.addEventListener("abort", () => reject(request.signal!.reason)))]);
      yield reply.slice(0, 10);
      yield reply.slice(10);
    },
  };
  return model satisfies LanguageModel;
}

describe("the fix with a language model (memory runtime)", () => {
  let h: HostingHarness;
  let paid = true;
  const model = scriptedModel();
  let accounts = 0;

  /** A new account with the broken app deployed once (failed), its secret in the env. */
  const failedApp = async () => {
    const owner = await h.account(`owner${++accounts}@example.com`);
    const site = await h.project(owner, "broken");
    await h.reposite.hosting.setup(owner, site, {});
    await h.reposite.hosting.setEnv(owner, site, { env: { API_KEY: SECRET } });
    const { job } = await h.finish(owner, (await h.reposite.hosting.deploy(owner, site)).job_id);
    expect(job.status).toBe("error");
    model.requests.length = 0;
    return { owner, site };
  };
  const deployAgain = async (owner: string, site: string) => {
    const started = await h.reposite.hosting.deploy(owner, site);
    await h.finish(owner, started.job_id);
    return h.reposite.hosting.getRun(owner, site, started.run_id);
  };

  beforeAll(async () => {
    h = await startHostingHarness({
      repos: [
        { owner: "acme", name: "broken", files: BROKEN },
        { owner: "acme", name: "web", files: WEB_APP },
      ],
      languageModel: model,
      hostingEntitlements: { mayHost: async () => paid },
    });
  });
  afterAll(() => h.close());

  it("the model reads the failing Dockerfile, the diagnosis and the masked log tail (no env value), its Dockerfile is deployed and kept; later deploys build it until the override is removed", async () => {
    const { owner, site } = await failedApp();
    model.replies = [fenced(GOOD)];
    const started = await h.reposite.appFixer.fix(owner, site);
    expect(started).toEqual({ job_id: expect.stringMatching(/^job_/), writer: "model", max_attempts: 3 });
    const { job, text } = await h.finish(owner, started.job_id);
    expect(job).toMatchObject({ status: "done", type: "deploy", kind: "fix", writer: "model", run_id: null });
    expect(text).toContain("Attempt 1 of 3: asking the model (fixer-1)");
    expect(text).toContain(`The model wrote:\n${GOOD}`);
    expect(text).toContain("Building the Dockerfile this fix attempt wrote.");
    expect(text).toContain("Attempt 1 of 3 worked");

    expect(model.requests).toHaveLength(1);
    const [request] = model.requests;
    expect(request!.system).toBe(FIX_SYSTEM_PROMPT);
    expect(request!.signal).toBeInstanceOf(AbortSignal);
    const prompt = request!.prompt;
    expect(prompt).toContain("The Dockerfile that failed (the repository's Dockerfile)");
    expect(prompt).toContain("RUN exit 3");
    expect(prompt).toMatch(/the run's reason: The build failed \(exit code 3\)/);
    expect(prompt).toContain("building with ***");
    expect(prompt).toContain("env names set (values withheld): API_KEY");
    expect(prompt).toContain('"start":"node server.js"');
    expect(prompt).toContain("server.js");
    expect(JSON.stringify(model.requests)).not.toContain(SECRET);

    const runs = await h.reposite.hosting.listRuns(owner, site);
    expect(runs.map((run) => [run.status, run.dockerfile_source])).toEqual([
      ["done", "fix"],
      ["failed", "repository"],
    ]);
    const read = await h.reposite.hosting.read(owner, site);
    expect(read).toMatchObject({ status: "running", override: true, last_run: { run_id: runs[0]!.run_id, status: "done" } });
    const kept = (await h.reposite.container.resolve(DeploymentStore).get(site))!.override;
    expect(kept).toEqual({ dockerfile: GOOD, run_id: runs[0]!.run_id, saved_at: expect.any(String) });

    // A plain deploy builds the kept Dockerfile; the repository's is never read for it.
    expect(await deployAgain(owner, site)).toMatchObject({ status: "done", dockerfile_source: "override" });

    const forgotten = await h.reposite.appFixer.removeOverride(owner, site);
    expect(forgotten).toMatchObject({ override: false, status: "running" });
    expect(await h.reposite.appFixer.removeOverride(owner, site)).toMatchObject({ override: false });
    // The repository's own Dockerfile again: it still fails, and the app keeps serving.
    expect(await deployAgain(owner, site)).toMatchObject({ status: "failed", dockerfile_source: "repository" });
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", override: false });
  });

  it("an attempt that fails too is followed by one that learns from its diagnosis and log: two runs, the second kept", async () => {
    const { owner, site } = await failedApp();
    const stillBroken = "FROM node:22\nCOPY . /app\nRUN exit 4\nCMD [\"node\", \"/app/server.js\"]\n";
    model.replies = [fenced(stillBroken), `\`\`\`\n${GOOD}\`\`\``];
    const { job, text } = await h.finish(owner, (await h.reposite.appFixer.fix(owner, site)).job_id);
    expect(job.status).toBe("done");
    expect(text).toMatch(/Attempt 1 of 3 failed: .+/);
    expect(text).toContain("Attempt 2 of 3 worked");

    const runs = await h.reposite.hosting.listRuns(owner, site);
    expect(runs.map((run) => [run.status, run.dockerfile_source])).toEqual([
      ["done", "fix"],
      ["failed", "fix"],
      ["failed", "repository"],
    ]);
    expect(runs[1]!.reason).toContain("exit code 4");
    expect(model.requests).toHaveLength(2);
    const second = model.requests[1]!.prompt;
    expect(second).toContain("Fix attempt 2 of 3.");
    expect(second).toContain("The Dockerfile that failed (the Dockerfile attempt 1 wrote)");
    expect(second).toContain("RUN exit 4");
    expect(second).not.toContain("RUN exit 3");
    expect(second).toContain("exit code 4");
    expect(second).toMatch(/Earlier attempts of this fix[^\n]*\n- attempt 1 \(the model's Dockerfile\) failed/);
    expect((await h.reposite.container.resolve(DeploymentStore).get(site))!.override).toMatchObject({ dockerfile: GOOD, run_id: runs[0]!.run_id });
  });

  it("an answer without FROM is refused without a build; after three attempts the job fails fix_failed and nothing is kept", async () => {
    const { owner, site } = await failedApp();
    model.replies = ["I am not sure what is wrong here.", fenced("FROM node:22\nRUN exit 5\n")];
    const { job, text } = await h.finish(owner, (await h.reposite.appFixer.fix(owner, site)).job_id);
    expect(job.status).toBe("error");
    expect(job.error).toMatch(/^The fix did not work in 3 attempts; the last: .*Nothing was kept/);
    expect(text).toContain("Attempt 1 of 3 failed: The model's answer has no Dockerfile in it (no FROM line), so nothing was built.");
    expect(model.requests).toHaveLength(3);
    expect(model.requests[1]!.prompt).toContain("attempt 1: your answer was refused, nothing was built");
    const runs = await h.reposite.hosting.listRuns(owner, site);
    expect(runs.map((run) => [run.status, run.dockerfile_source])).toEqual([
      ["failed", "fix"],
      ["failed", "fix"],
      ["failed", "repository"],
    ]);
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ override: false, status: "failed" });
  });

  it("refuses: another account (404), no setup (409 not_configured), not paid (402), a run under way, nothing failed, a bare box (409)", async () => {
    const { owner, site } = await failedApp();
    const other = await h.account("eve-fix@example.com");
    await expect(h.reposite.appFixer.fix(other, site)).rejects.toMatchObject({ status: 404 });
    await expect(h.reposite.appFixer.removeOverride(other, site)).rejects.toMatchObject({ status: 404 });
    const unset = await h.project(owner, "web");
    await expect(h.reposite.appFixer.fix(owner, unset)).rejects.toMatchObject({ status: 409, code: "not_configured" });
    paid = false;
    try {
      await expect(h.reposite.appFixer.fix(owner, site)).rejects.toMatchObject({ status: 402, code: "payment_required" });
    } finally {
      paid = true;
    }
    const started = await h.reposite.hosting.deploy(owner, site);
    await expect(h.reposite.appFixer.fix(owner, site)).rejects.toMatchObject({ status: 409, code: "run_under_way" });
    await h.finish(owner, started.job_id);

    const fine = await h.project(owner, "web");
    await h.deploy(owner, fine);
    await expect(h.reposite.appFixer.fix(owner, fine)).rejects.toMatchObject({ status: 409, code: "nothing_to_fix" });
    await h.reposite.hosting.setup(owner, fine, { build_mode: "bare", base_image: "alpine:3.20" });
    await expect(h.reposite.appFixer.fix(owner, fine)).rejects.toMatchObject({ status: 409, code: "nothing_to_fix" });
    expect(model.requests).toHaveLength(0);
  });

  it("a model server that fails ends the fix's job with its error, before any run", async () => {
    const { owner, site } = await failedApp();
    model.failure = new RepositeError(502, "[ai] [test] fixer-1: the model server failed (500): boom", "ai_unavailable");
    try {
      const { job } = await h.finish(owner, (await h.reposite.appFixer.fix(owner, site)).job_id);
      expect(job).toMatchObject({ status: "error", error: "[ai] [test] fixer-1: the model server failed (500): boom" });
    } finally {
      model.failure = null;
    }
    expect((await h.reposite.hosting.listRuns(owner, site)).map((run) => run.dockerfile_source)).toEqual(["repository"]);
  });

  it("one fix at a time (409 fix_under_way, the override too); cancelling the fix's job stops it before any run", async () => {
    const { owner, site } = await failedApp();
    model.replies = [fenced(GOOD)];
    let release!: () => void;
    model.gate = new Promise<void>((resolve) => (release = resolve));
    try {
      const first = await h.reposite.appFixer.fix(owner, site);
      await expect(h.reposite.appFixer.fix(owner, site)).rejects.toMatchObject({ status: 409, code: "fix_under_way" });
      await expect(h.reposite.appFixer.removeOverride(owner, site)).rejects.toMatchObject({ status: 409, code: "fix_under_way" });
      while (model.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await h.reposite.jobs.cancel(owner, first.job_id);
      const { job } = await h.finish(owner, first.job_id);
      expect(job.status).toBe("cancelled");
    } finally {
      release();
      model.gate = null;
    }
    expect((await h.reposite.hosting.listRuns(owner, site)).map((run) => run.dockerfile_source)).toEqual(["repository"]);
    // The fix let go of the app: another one may start.
    while (true) {
      try {
        const again = await h.reposite.appFixer.fix(owner, site);
        expect((await h.finish(owner, again.job_id)).job.status).toBe("done");
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== "fix_under_way") throw error;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  });
});

describe("the fix without a model: the fixes the diagnosis knows (memory runtime)", () => {
  let h: HostingHarness;
  let accounts = 0;
  // The app answers only on port 8080, or once HOST is 0.0.0.0; anything else is a 503.
  const runtime = createMemoryContainerRuntime({
    handler: (request, response, container) => {
      const ok = container.env.PORT === "8080" || container.env.HOST === "0.0.0.0";
      response.writeHead(ok ? 200 : 503).end(ok ? "hi" : "not here");
    },
  });

  /** Deploys `repo` (it fails: the handler answers 503), then gives its run the diagnosis a probe would have made. */
  const failedWith = async (repo: string, diagnosis: Diagnosis | null) => {
    const owner = await h.account(`rules${++accounts}@example.com`);
    const site = await h.project(owner, repo);
    const { job, runId } = await h.deploy(owner, site, { port: 3000 });
    expect(job.status).toBe("error");
    if (diagnosis) await h.reposite.container.resolve(DeployRunStore).modify(site, runId, (run) => ({ ...run, diagnosis }));
    return { owner, site };
  };
  const storedRun = (site: string, runId: string) => h.reposite.container.resolve(DeployRunStore).get(site, runId);

  beforeAll(async () => {
    h = await startHostingHarness({
      repos: [
        { owner: "acme", name: "web", files: WEB_APP },
        { owner: "acme", name: "broken", files: BROKEN },
        { owner: "acme", name: "no-cmd", files: { Dockerfile: "FROM node:22\nCOPY . /app\n", "package.json": '{"scripts":{"start":"node server.js"}}' } },
      ],
      runtime,
      hosting: { healthTimeoutMs: 300 },
    });
  });
  afterAll(async () => {
    await h.close();
    await runtime.close();
  });

  it("the app listens on another port: the setup's port is set to it and the app deployed plainly (no override)", async () => {
    const { owner, site } = await failedWith("web", {
      kind: "not_listening",
      title: "The app does not listen on port 3000",
      detail: "It listens on 8080.",
      fix: "Set port to 8080.",
      evidence: { listening: [{ address: "0.0.0.0", port: 8080 }] },
    });
    const started = await h.reposite.appFixer.fix(owner, site);
    expect(started.writer).toBe("rules");
    const { job, text } = await h.finish(owner, started.job_id);
    expect(job.status).toBe("done");
    expect(text).toContain("Attempt 1 of 3: set port to 8080: the app listens there, not on 3000.");
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", port: 8080, override: false });
    expect((await h.reposite.hosting.listRuns(owner, site)).map((run) => [run.status, run.dockerfile_source])).toEqual([
      ["done", "repository"],
      ["failed", "repository"],
    ]);
  });

  it("the app listens on 127.0.0.1: HOST and HOSTNAME 0.0.0.0 are added to its Dockerfile, which is kept", async () => {
    const { owner, site } = await failedWith("web", {
      kind: "listening_on_localhost",
      title: "The app listens on 127.0.0.1 only",
      detail: "",
      fix: "",
      evidence: { listening: [{ address: "127.0.0.1", port: 3000 }] },
    });
    const { job } = await h.finish(owner, (await h.reposite.appFixer.fix(owner, site)).job_id);
    expect(job.status).toBe("done");
    const [fixed] = await h.reposite.hosting.listRuns(owner, site);
    expect(fixed).toMatchObject({ status: "done", dockerfile_source: "fix" });
    const dockerfile = `${WEB_APP.Dockerfile}ENV HOST=0.0.0.0 HOSTNAME=0.0.0.0\n`;
    expect((await storedRun(site, fixed!.run_id))!.dockerfile).toBe(dockerfile);
    expect((await h.reposite.container.resolve(DeploymentStore).get(site))!.override).toMatchObject({ dockerfile, run_id: fixed!.run_id });
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", port: 3000, override: true });
  });

  it("no start command: the repository's is added as CMD; when that attempt fails in a way no rule knows, the fix stops", async () => {
    const { owner, site } = await failedWith("no-cmd", {
      kind: "no_start_command",
      title: "The image has no start command",
      detail: "",
      fix: "",
      evidence: { start_command: ["npm", "start"] },
    });
    const { job, text } = await h.finish(owner, (await h.reposite.appFixer.fix(owner, site)).job_id);
    expect(text).toContain('Attempt 1 of 3: add CMD ["npm","start"]: the repository\'s own start command.');
    const [attempt] = await h.reposite.hosting.listRuns(owner, site);
    expect(attempt).toMatchObject({ status: "failed", dockerfile_source: "fix" });
    expect((await storedRun(site, attempt!.run_id))!.dockerfile).toBe('FROM node:22\nCOPY . /app\nCMD ["npm","start"]\n');
    // This runtime answers 503 whatever the command: the next failure is no rule's business.
    expect(job).toMatchObject({ status: "error", error: expect.stringMatching(/^The fix stopped after 1 attempt: no fix without a language model applies/) });
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ override: false });
  });

  it("a failure no rule knows: 503 ai_not_configured, nothing started", async () => {
    const { owner, site } = await failedWith("broken", null);
    await expect(h.reposite.appFixer.fix(owner, site)).rejects.toMatchObject({ status: 503, code: "ai_not_configured" });
    expect(await h.reposite.hosting.listRuns(owner, site)).toHaveLength(1);
  });

  it("answers 503 hosting_unavailable on a server without a container runtime", async () => {
    const bare = await startHostingHarness({ runtime: null });
    try {
      const owner = await bare.account("nobody@example.com");
      const site = await bare.project(owner);
      await expect(bare.reposite.appFixer.fix(owner, site)).rejects.toMatchObject({ status: 503, code: "hosting_unavailable" });
      await expect(bare.reposite.appFixer.removeOverride(owner, site)).rejects.toMatchObject({ status: 503, code: "hosting_unavailable" });
    } finally {
      await bare.close();
    }
  });
});
