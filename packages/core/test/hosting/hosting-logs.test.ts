import { Readable } from "node:stream";
import { createMemoryContainerRuntime, readTar } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BuildFailure, createSecretMasker, RUN_LOG_LIMITS, STORAGE, type BuildRequest, type RecordStorage } from "../../src/index.js";
import { startHostingHarness, type HostingHarness } from "./hosting-harness.js";

const SECRET = "sk_live_93b1f0aa77";
const MULTILINE = "-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\n-----END KEY-----";

/** Everything storage holds, as one string: no record may carry a secret in the clear. */
async function everything(storage: RecordStorage): Promise<string> {
  const keys = await storage.getKeys();
  return JSON.stringify(await Promise.all(keys.map(async (key) => [key, await storage.getItem(key)])));
}

describe("env values never leave the pipeline", () => {
  let h: HostingHarness;
  let owner: string;
  const files: Record<string, string> = {
    // A build that prints the value (as a misconfigured script would) and an app that logs it at start.
    Dockerfile: `FROM node:22\nRUN echo connecting with ${SECRET} now\nRUN echo key=${encodeURIComponent(SECRET)}\n# reposite-test: run log started with token ${SECRET}\nCMD ["node", "server.js"]\n`,
    "failing.Dockerfile": `FROM node:22\nRUN echo line one of the key: MIIBOgIBAAJBAKj34GkxFhD9\nRUN exit 2\n`,
    "secret-image.Dockerfile": `FROM registry.example/${SECRET}:1\n`,
  };

  beforeAll(async () => {
    h = await startHostingHarness({
      repos: [{ owner: "acme", name: "web", files }],
      runtime: createMemoryContainerRuntime({ baseImages: ["node:22"] }),
    });
    owner = await h.account("ada@example.com");
  });
  afterAll(() => h.close());

  it("masks them in build and start lines: in the job stream, the stored deltas and the run's kept log", async () => {
    const site = await h.project(owner);
    await h.reposite.hosting.setup(owner, site, {});
    await h.reposite.hosting.setEnv(owner, site, { env: { API_KEY: SECRET, SHORT: "on" } });
    const started = await h.reposite.hosting.deploy(owner, site);
    const { job, text } = await h.finish(owner, started.job_id);
    expect(job.status).toBe("done");
    expect(text).toContain("connecting with *** now");
    expect(text).toContain("key=***");
    expect(text).toContain("started with token ***");
    expect(text).not.toContain(SECRET);
    const run = await h.reposite.hosting.getRun(owner, site, started.run_id);
    expect(run.log_tail).toContain("connecting with *** now");
    expect(run.log_tail).not.toContain(SECRET);
    expect(await everything(h.reposite.container.resolve<RecordStorage>(STORAGE))).not.toContain(SECRET);
  });

  it("masks them in a failed run's reason and the job's error, multi-line values line by line", async () => {
    const site = await h.project(owner);
    await h.reposite.hosting.setup(owner, site, { dockerfile_path: "failing.Dockerfile" });
    await h.reposite.hosting.setEnv(owner, site, { env: { KEY: MULTILINE } });
    const started = await h.reposite.hosting.deploy(owner, site);
    const { text } = await h.finish(owner, started.job_id);
    expect(text).toContain("line one of the key: ***");

    await h.reposite.hosting.setup(owner, site, { dockerfile_path: "secret-image.Dockerfile" });
    await h.reposite.hosting.setEnv(owner, site, { env: { IMAGE_TOKEN: SECRET } });
    const second = await h.reposite.hosting.deploy(owner, site);
    const { job } = await h.finish(owner, second.job_id);
    expect(job.status).toBe("error");
    expect(job.error).toContain("pull access denied for registry.example/***:1");
    expect(job.error).not.toContain(SECRET);
    expect((await h.reposite.hosting.read(owner, site)).last_run?.reason).not.toContain(SECRET);
    expect(await everything(h.reposite.container.resolve<RecordStorage>(STORAGE))).not.toContain(SECRET);
    expect(await everything(h.reposite.container.resolve<RecordStorage>(STORAGE))).not.toContain("MIIBOgIBAAJBAKj34GkxFhD9");
  });

  it("leaves values shorter than 4 characters alone, since they cannot be told from ordinary output", () => {
    const mask = createSecretMasker(["on", "abcd", "a b\nsecond-line"]);
    expect(mask("Step 1/5 : on abcd xabcdx second-line")).toBe("Step 1/5 : on *** x***x ***");
  });
});

describe("the build log", () => {
  let h: HostingHarness;
  let owner: string;
  const files: Record<string, string> = {};

  beforeAll(async () => {
    h = await startHostingHarness({ repos: [{ owner: "acme", name: "chatty", files }], hosting: { logFlushMs: 1_000, logFlushLines: 50 } });
    owner = await h.account("ada@example.com");
  });
  afterAll(() => h.close());

  it("goes to the stream in batches, not one delta per line", async () => {
    files.Dockerfile = `FROM node:22\n${Array.from({ length: 600 }, (_, i) => `RUN echo build line ${i}`).join("\n")}\n`;
    const site = await h.project(owner, "chatty");
    const { text, deltas, job } = await h.deploy(owner, site);
    expect(job.status).toBe("done");
    // 601 steps each log "Step i/n" and 600 echo a line: over 1,200 lines in at most a few dozen deltas.
    expect(text.split("\n").filter((line) => line.startsWith("build line"))).toHaveLength(600);
    expect(deltas).toBeLessThanOrEqual(40);
  });

  it(`is capped: the first ${RUN_LOG_LIMITS.headLines} lines, a line counting what was left out, the last ${RUN_LOG_LIMITS.tailLines}; the run keeps the last ${RUN_LOG_LIMITS.recordTailLines}`, async () => {
    files.Dockerfile = `FROM node:22\n${Array.from({ length: 3_000 }, (_, i) => `RUN echo line-${i}`).join("\n")}\n`;
    const site = await h.project(owner, "chatty");
    const { text, runId } = await h.deploy(owner, site);
    const lines = text.trimEnd().split("\n");
    // After the count, the last steps that started in the lines left out: the tail reads under its step.
    expect(lines.length).toBe(RUN_LOG_LIMITS.headLines + 1 + RUN_LOG_LIMITS.leftOutSteps + RUN_LOG_LIMITS.tailLines);
    expect(lines[RUN_LOG_LIMITS.headLines]).toMatch(/^… \d+ lines left out \(a run keeps its first 1000 and last 1000 lines; the build steps that started in them follow\) …$/);
    const leftOutSteps = lines.slice(RUN_LOG_LIMITS.headLines + 1, RUN_LOG_LIMITS.headLines + 1 + RUN_LOG_LIMITS.leftOutSteps);
    expect(leftOutSteps.every((line) => /^Step \d+\/3001 : RUN echo line-\d+$/.test(line))).toBe(true);
    expect(lines).toContain("line-0");
    expect(lines).toContain("line-2999");
    expect(lines).not.toContain("line-1500");
    expect(lines.at(-1)).toMatch(/^Live at /);
    const run = await h.reposite.hosting.getRun(owner, site, runId);
    expect(run.log_lines).toBeGreaterThan(6_000);
    expect(run.log_tail.trimEnd().split("\n")).toHaveLength(RUN_LOG_LIMITS.recordTailLines);
    expect(run.log_tail).toContain("line-2999");
  });

  it("a failing step with more output than the log keeps: its start follows the count of lines left out, and the diagnosis finds its line", async () => {
    files.Dockerfile = "FROM node:22 AS build\nWORKDIR /app\nRUN ./prepare.sh\nRUN ./generate.sh\nFROM build\nCMD [\"node\", \"server.js\"]\n";
    const site = await h.project(owner, "chatty");
    const runtime = h.runtime!;
    const build = runtime.buildImage.bind(runtime);
    // Lines as provider-docker decodes BuildKit's trace; a builder that names no failing step, so the log is all there is.
    runtime.buildImage = async (request: BuildRequest) => {
      request.onLog("#4 [build 1/4] FROM docker.io/library/node:22");
      request.onLog("#5 [build 2/4] WORKDIR /app");
      request.onLog("#6 [build 3/4] RUN ./prepare.sh");
      for (let i = 0; i < 1_500; i++) request.onLog(`#6 prepared ${i}`);
      request.onLog("#7 [build 4/4] RUN ./generate.sh");
      for (let i = 0; i < 5_000; i++) request.onLog(`#7 generated page ${i}`);
      request.onLog("#7 Error: page 5000 has no title");
      request.onLog("#7 ERROR: executor failed running [/bin/sh -c ./generate.sh]: exit code: 2");
      throw new BuildFailure("executor failed running [/bin/sh -c ./generate.sh]: exit code: 2", "failed", 2);
    };
    try {
      const { text, job } = await h.deploy(owner, site);
      expect(job.status).toBe("error");
      const lines = text.trimEnd().split("\n");
      const count = lines.findIndex((line) => line.includes("lines left out"));
      // prepare.sh started in the first 1,000 lines; generate.sh in the lines left out.
      expect(lines.slice(0, count)).toContain("#6 [build 3/4] RUN ./prepare.sh");
      expect(lines.slice(count + 1, count + 3)).toEqual(["#7 [build 4/4] RUN ./generate.sh", "#7 generated page 4003"]);
      const diagnosis = (await h.reposite.hosting.read(owner, site)).last_run!.diagnosis!;
      expect(diagnosis).toMatchObject({ kind: "build_step_failed", title: "The build failed at step 4 of 4 (line 4 of the Dockerfile)", evidence: { dockerfile_line: 4, step: "RUN ./generate.sh", exit_code: 2 } });
      expect(diagnosis.detail).toContain("Step 4 of 4 of stage build (line 4 of the repository's Dockerfile: RUN ./generate.sh)");
      expect(diagnosis.detail).toContain("    Error: page 5000 has no title");
    } finally {
      runtime.buildImage = build;
    }
  });

  it("drops terminal colours and keeps a progress line's last state", async () => {
    files.Dockerfile = "FROM node:22\n";
    const site = await h.project(owner, "chatty");
    const runtime = h.runtime!;
    const build = runtime.buildImage.bind(runtime);
    runtime.buildImage = async (request: BuildRequest) => {
      request.onLog("\u001b[32mgreen\u001b[0m text");
      request.onLog("progress 10%\rprogress 50%\rprogress 100%");
      return build(request);
    };
    try {
      const { text } = await h.deploy(owner, site);
      expect(text).toContain("\ngreen text\n");
      expect(text).toContain("\nprogress 100%\n");
      expect(text).not.toContain("progress 10%");
    } finally {
      runtime.buildImage = build;
    }
  });
});

describe("auto builds", () => {
  it("get the app's env through a context file the build step reads and deletes, never as build arguments", async () => {
    const files = {
      "package.json": JSON.stringify({ name: "api", scripts: { build: "node build.js", start: "node server.js" } }),
      "build.js": "require('node:fs').writeFileSync('built.txt', String(process.env.VITE_API_URL))\n",
      "server.js": "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT)\n",
    };
    const h = await startHostingHarness({ repos: [{ owner: "acme", name: "api", files }] });
    const seen: Array<{ request: BuildRequest; context: Map<string, string> }> = [];
    const build = h.runtime!.buildImage.bind(h.runtime);
    h.runtime!.buildImage = async (request) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request.context as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
      const context = new Map(readTar(Buffer.concat(chunks)).map((entry) => [entry.path, Buffer.from(entry.content).toString("utf8")] as const));
      seen.push({ request, context });
      return build({ ...request, context: Readable.from(Buffer.concat(chunks)) });
    };
    try {
      const owner = await h.account("ada@example.com");
      const site = await h.project(owner, "api");
      await h.reposite.hosting.setup(owner, site, { build_mode: "auto" });
      await h.reposite.hosting.setEnv(owner, site, { env: { VITE_API_URL: "https://api.example", TOKEN: "tok_'abcdef" } });
      const started = await h.reposite.hosting.deploy(owner, site);
      const { job, text } = await h.finish(owner, started.job_id);
      expect(job.status).toBe("done");
      const { request, context } = seen[0]!;
      expect(request.buildArgs).toBeUndefined();
      expect(request.dockerfile).toBe(".reposite/Dockerfile");
      expect(context.get(".reposite/build-env")).toBe("export TOKEN='tok_'\\''abcdef'\nexport VITE_API_URL='https://api.example'\n");
      const dockerfile = context.get(".reposite/Dockerfile")!;
      expect(dockerfile).not.toMatch(/^ARG /m);
      expect(dockerfile).not.toContain("tok_");
      // The build step reads the file and deletes it before its command; the runtime stage copies from the build stage only.
      expect(dockerfile).toContain("RUN if [ -f .reposite/build-env ]; then . ./.reposite/build-env && rm -f .reposite/build-env; fi && (npm run build)");
      expect(dockerfile.split(/^FROM /m).at(-1)).not.toMatch(/^COPY \.\/? /m);
      expect(text).not.toContain("tok_");
    } finally {
      await h.close();
    }
  });
});
