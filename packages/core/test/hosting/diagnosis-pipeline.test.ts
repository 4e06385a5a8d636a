import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startHostingHarness, WEB_APP, type HostingHarness } from "./hosting-harness.js";

// The pipeline writes a diagnosis on every failed run, from what it knew where the run failed. The
// memory runtime cannot look inside a container (`exec: false`): those diagnoses say less.
describe("a failed run's diagnosis", () => {
  let h: HostingHarness;
  const files: Record<string, string> = { ...WEB_APP };
  let owner: string;

  beforeAll(async () => {
    h = await startHostingHarness({ repos: [{ owner: "acme", name: "web", files }], hosting: { buildMemoryMb: 1024, healthTimeoutMs: 500 } });
    owner = await h.account("ada@example.com");
  });
  afterAll(() => h.close());

  async function failedDeploy(dockerfile: string, setup: Record<string, unknown> = {}) {
    const name = `d${Object.keys(files).length}.Dockerfile`;
    files[name] = dockerfile;
    const site = await h.project(owner);
    const { job } = await h.deploy(owner, site, { dockerfile_path: name, ...setup });
    expect(job.status).toBe("error");
    return { site, name, read: await h.reposite.hosting.read(owner, site) };
  }

  it("a failed build step: the step's Dockerfile line, and the last error lines", async () => {
    const { read, name } = await failedDeploy("FROM node:22\n\n# the tests\nRUN echo checking && \\\n  echo more\nRUN exit 3\nCMD node\n");
    expect(read.last_run).toMatchObject({
      status: "failed",
      reason: expect.stringContaining("exit code 3"),
      diagnosis: { kind: "build_step_failed", title: "The build failed at step 3 of 4 (line 6 of the Dockerfile)", evidence: { dockerfile_line: 6, step: "RUN exit 3", exit_code: 3 } },
      last_exit_oom: false,
    });
    expect(read.last_run!.diagnosis!.detail).toContain(`line 6 of the repository's ${name}: RUN exit 3) ended with exit code 3`);
  });

  it("a build out of memory: memory limit above the build's, last_exit_oom on the run and the deployment", async () => {
    const { read } = await failedDeploy("FROM node:22\n# reposite-test: oom\nRUN echo big\nCMD node\n");
    expect(read.last_run).toMatchObject({ diagnosis: { kind: "build_out_of_memory", limit: { kind: "memory", needed: 2048 } }, last_exit_oom: true });
    expect(read.last_exit_oom).toBe(true);
  });

  it("an app killed for memory at start asks for 1 GB (the free 512 MB's next step)", async () => {
    const { read } = await failedDeploy("FROM node:22\n# reposite-test: run oom\nCMD node\n");
    expect(read).toMatchObject({ last_exit_oom: true, last_run: { last_exit_oom: true, diagnosis: { kind: "out_of_memory", limit: { kind: "memory", needed: 1024 } } } });
  });

  it("a crash on start: the exit code and the app's last lines, env values masked", async () => {
    const site = await h.project(owner);
    files["crash.Dockerfile"] = "FROM node:22\n# reposite-test: run log connecting to postgres://user:hunter22@db\n# reposite-test: run log Error: connection refused\n# reposite-test: run exit 2\nCMD node\n";
    await h.reposite.hosting.setup(owner, site, { dockerfile_path: "crash.Dockerfile" });
    await h.reposite.hosting.setEnv(owner, site, { env: { DATABASE_URL: "postgres://user:hunter22@db" } });
    await h.finish(owner, (await h.reposite.hosting.deploy(owner, site)).job_id);
    const diagnosis = (await h.reposite.hosting.read(owner, site)).last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({ kind: "crash_on_start", evidence: { exit_code: 2 } });
    expect(diagnosis.detail).toContain("exited with code 2");
    expect(diagnosis.detail).toContain("Error: connection refused");
    expect(diagnosis.detail).toContain("connecting to ***");
    expect(JSON.stringify(diagnosis)).not.toContain("hunter22");
  });

  it("an app that dies right after its first answer crashed on start, saying when", async () => {
    const { read } = await failedDeploy("FROM node:22\n# reposite-test: run exit 3 after 40\nCMD node\n");
    expect(read.last_run!.diagnosis).toMatchObject({ kind: "crash_on_start", evidence: { exit_code: 3 }, detail: expect.stringContaining("exited with code 3 right after it first answered GET /") });
  });

  it("an app with no CMD that exits at once has no start command, with the repository's start script", async () => {
    files["package.json"] = JSON.stringify({ scripts: { start: "node server.js" } });
    const { read } = await failedDeploy("FROM node:22\nCOPY . /app\n# reposite-test: run exit 0\n");
    expect(read.last_run!.diagnosis).toMatchObject({ kind: "no_start_command", evidence: { exit_code: 0, start_command: ["npm", "start"] } });
    delete files["package.json"];
  });

  it("nothing answering, without a look inside, is not_listening with no evidence", async () => {
    const { read } = await failedDeploy("FROM node:22\n# reposite-test: run no-http\nCMD node\n", { health_path: "/healthz" });
    expect(read.last_run!.diagnosis).toMatchObject({ kind: "not_listening", title: "Nothing answered on port 3000", detail: expect.stringContaining("within 1 s") });
    expect(read.last_run!.diagnosis!.evidence).toBeUndefined();
  });

  it("a source problem: the Dockerfile is missing", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site, { dockerfile_path: "nowhere/Dockerfile" });
    expect((await h.reposite.hosting.read(owner, site)).last_run!.diagnosis).toMatchObject({ kind: "source_problem", detail: expect.stringContaining("no Dockerfile at nowhere/Dockerfile") });
  });

  it("a cancelled run is other", async () => {
    files["slow.Dockerfile"] = "FROM node:22\nRUN sleep 5\nCMD node\n";
    const site = await h.project(owner);
    await h.reposite.hosting.setup(owner, site, { dockerfile_path: "slow.Dockerfile" });
    const started = await h.reposite.hosting.deploy(owner, site);
    await eventually(async () => (await h.reposite.hosting.read(owner, site)).status === "building");
    await h.reposite.jobs.cancel(owner, started.job_id);
    await eventually(async () => (await h.reposite.hosting.read(owner, site)).last_run?.status === "failed");
    expect((await h.reposite.hosting.read(owner, site)).last_run!.diagnosis).toMatchObject({ kind: "other", title: "The deploy was cancelled" });
  });

  it("a run that worked has none", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site, { dockerfile_path: "Dockerfile" });
    expect((await h.reposite.hosting.read(owner, site)).last_run).toMatchObject({ status: "done", diagnosis: null });
  });
});
