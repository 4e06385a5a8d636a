import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createMemoryContainerRuntime } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeploymentStore, imageTag, networkName, volumeName } from "../../src/index.js";
import { eventually, get, startHostingHarness, WEB_APP, type HostingHarness } from "./hosting-harness.js";

describe("a deploy", () => {
  let h: HostingHarness;
  const files: Record<string, string> = { ...WEB_APP };
  let owner: string;

  beforeAll(async () => {
    // A long drain: only a request held open keeps an old container, and the drain test releases it.
    h = await startHostingHarness({ repos: [{ owner: "acme", name: "web", files }], hosting: { drainTimeoutMs: 20_000 } });
    owner = await h.account("ada@example.com");
  });
  afterAll(() => h.close());

  it("builds, starts, health-checks and routes /app/ to the new container; the job streams the log and ends with finished_at and run_id", async () => {
    const site = await h.project(owner, "web", "Rocket Web");
    const { job, runId, text } = await h.deploy(owner, site);
    expect(job).toMatchObject({ type: "deploy", status: "done", run_id: runId, site_id: site });
    expect(job.finished_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(text).toContain("Reading https://github.com/acme/web at HEAD");
    expect(text).toContain("Step 1/3 : FROM node:22");
    expect(text).toContain("The app answered / with 200.");
    expect(text).toContain("Live at https://rocket-web.sites.example/app/");

    const deployment = await h.reposite.hosting.read(owner, site);
    expect(deployment).toMatchObject({
      status: "running",
      slug: "rocket-web",
      url: "https://rocket-web.sites.example/app/",
      build_mode: "dockerfile",
      port: 3000,
      last_run: { run_id: runId, status: "done", reason: null, diagnosis: null },
      last_exit_oom: false,
    });
    const route = h.reposite.appRoutes.get(site)!;
    expect(route.status).toBe("running");
    const answer = await get(route.target!);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('"PORT":"3000"');
    // The project read and list show the app too.
    expect((await h.reposite.projects.get(owner, site)).deployment).toEqual({ status: "running", url: "https://rocket-web.sites.example/app/" });
    expect((await h.reposite.projects.list(owner)).find((project) => project.id === site)?.app_status).toBe("running");
    const runs = await h.reposite.hosting.listRuns(owner, site);
    expect(runs).toMatchObject([{ run_id: runId, status: "done", job_id: job.job_id, ref: "HEAD", build_mode: "dockerfile" }]);
    const container = (await h.runtime!.listContainers({ "dev.reposite.site": site }))[0]!;
    expect(container.labels).toMatchObject({ "dev.reposite.role": "app", "dev.reposite.run": runId });
    expect(h.runtime!.networks()).toContain(networkName(site));
  });

  it("keeps the previous container serving when the new build fails, and says why", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site);
    const before = h.reposite.appRoutes.get(site)!.target!;
    files["broken.Dockerfile"] = "FROM node:22\nRUN exit 3\n";
    const failed = await h.deploy(owner, site, { dockerfile_path: "broken.Dockerfile" });
    expect(failed.job).toMatchObject({ status: "error", error: expect.stringContaining("exit code 3") });
    expect(h.reposite.appRoutes.get(site)).toEqual({ status: "running", target: before });
    expect((await get(before)).status).toBe(200);
    const deployment = await h.reposite.hosting.read(owner, site);
    expect(deployment.status).toBe("running");
    expect(deployment.last_run).toMatchObject({ run_id: failed.runId, status: "failed", reason: expect.stringContaining("The build failed (exit code 3)") });
    // The failed run's image is gone; the serving one stays.
    expect(await h.runtime!.imageSize(imageTag(site, failed.runId))).toBeNull();
  });

  it("keeps the previous container serving when the new one does not come up; an OOM-killed start sets last_exit_oom", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site, { dockerfile_path: "Dockerfile" });
    const before = h.reposite.appRoutes.get(site)!.target!;
    files["oom.Dockerfile"] = "FROM node:22\n# reposite-test: run oom\n";
    const failed = await h.deploy(owner, site, { dockerfile_path: "oom.Dockerfile" });
    expect(failed.job.status).toBe("error");
    expect(failed.text).toContain("killed for using more memory than its limit");
    expect(h.reposite.appRoutes.get(site)).toEqual({ status: "running", target: before });
    const deployment = await h.reposite.hosting.read(owner, site);
    expect(deployment).toMatchObject({ status: "running", last_exit_oom: true, last_run: { status: "failed" } });
    expect(await h.runtime!.listContainers({ "dev.reposite.site": site, "dev.reposite.run": failed.runId })).toEqual([]);
  });

  it("switches traffic at the new container's first answer, and back to the old one when it dies right after", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site, { dockerfile_path: "Dockerfile" });
    const before = h.reposite.appRoutes.get(site)!.target!;
    const oldId = (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!.id;
    // Answers at once, exits 40 ms later: within the 100 ms the new container must stay up.
    files["dies.Dockerfile"] = "FROM node:22\n# reposite-test: run exit 3 after 40\n";
    await h.reposite.hosting.setup(owner, site, { dockerfile_path: "dies.Dockerfile" });
    const started = await h.reposite.hosting.deploy(owner, site);
    const targets = new Set<number>();
    const watching = setInterval(() => {
      const port = h.reposite.appRoutes.get(site)?.target?.port;
      if (port) targets.add(port);
    }, 2);
    const failed = await h.finish(owner, started.job_id).finally(() => clearInterval(watching));
    expect(failed.job.status).toBe("error");
    expect(failed.text).toContain("The app's container exited with code 3 right after it answered.");
    // Traffic went to the new container at its first answer, and came back.
    expect([...targets].filter((port) => port !== before.port)).toHaveLength(1);
    expect(h.reposite.appRoutes.get(site)).toEqual({ status: "running", target: before });
    expect((await get(before)).status).toBe(200);
    expect((await h.runtime!.inspectContainer(oldId))?.running).toBe(true);
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", last_run: { status: "failed" } });
    expect(await h.runtime!.listContainers({ "dev.reposite.site": site, "dev.reposite.run": started.run_id })).toEqual([]);
    expect(await h.runtime!.imageSize(imageTag(site, started.run_id))).toBeNull();
  });

  it("a first deploy that never answers its health path ends failed, and /app/ shows the app failed", async () => {
    const site = await h.project(owner);
    files["silent.Dockerfile"] = "FROM node:22\n# reposite-test: run no-http\n";
    const failed = await h.deploy(owner, site, { dockerfile_path: "silent.Dockerfile", health_path: "/healthz" });
    expect(failed.job.error).toMatch(/did not answer \/healthz within 2 s/);
    expect(h.reposite.appRoutes.get(site)).toEqual({ status: "failed", target: null });
    expect((await h.reposite.hosting.read(owner, site)).status).toBe("failed");
    expect((await h.reposite.projects.list(owner)).find((project) => project.id === site)?.app_status).toBe("failed");
  });

  it("a missing Dockerfile fails the run with a reason naming the path", async () => {
    const site = await h.project(owner);
    const failed = await h.deploy(owner, site, { dockerfile_path: "docker/nope.Dockerfile" });
    expect(failed.job.error).toMatch(/no Dockerfile at docker\/nope\.Dockerfile/);
  });

  it("drains the old container before it stops: a request under way keeps it until it ends, and the run ends without waiting for it", async () => {
    const site = await h.project(owner);
    const { runId: firstRun } = await h.deploy(owner, site);
    const old = h.reposite.appRoutes.get(site)!.target!;
    const oldId = (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!.id;
    const lease = h.reposite.appRoutes.acquire(site)!;
    await h.reposite.hosting.setup(owner, site, {});
    const started = await h.reposite.hosting.deploy(owner, site);
    // The run ends once traffic has moved, while the old container still serves the request under way.
    const { job } = await h.finish(owner, started.job_id);
    expect(job.status).toBe("done");
    expect(h.reposite.appRoutes.get(site)?.target?.port).not.toBe(old.port);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await h.runtime!.inspectContainer(oldId))?.running).toBe(true);
    const released = Date.now();
    lease.release();
    // The release ends the drain (not its 20 s limit): the old container goes, with its image.
    await eventually(async () => (await h.runtime!.inspectContainer(oldId)) === null);
    await eventually(async () => (await h.runtime!.imageSize(imageTag(site, firstRun))) === null);
    // Well under the drain's 20 s limit, with room for a busy machine's slow removals: a failure
    // means the old container waited out the limit instead of going when the request ended.
    expect(Date.now() - released).toBeLessThan(15_000);
  });

  it("stop, start and restart: stopped shows at /app/, start and restart make a new container from the same image", async () => {
    const site = await h.project(owner);
    const { runId } = await h.deploy(owner, site);
    const first = (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;
    expect(await h.reposite.hosting.stop(owner, site)).toMatchObject({ status: "stopped" });
    expect(h.reposite.appRoutes.get(site)).toEqual({ status: "stopped", target: null });
    expect((await h.runtime!.inspectContainer(first.id))?.running).toBe(false);

    expect(await h.reposite.hosting.start(owner, site)).toMatchObject({ status: "running" });
    const second = (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;
    expect(second.id).not.toBe(first.id);
    expect(second.image).toBe(imageTag(site, runId));
    // The old container goes after the answer, in the background.
    await eventually(async () => (await h.runtime!.inspectContainer(first.id)) === null);
    expect((await get(h.reposite.appRoutes.get(site)!.target!)).status).toBe(200);

    expect(await h.reposite.hosting.restart(owner, site)).toMatchObject({ status: "running" });
    const third = (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;
    expect(third.id).not.toBe(second.id);
    await eventually(async () => (await h.runtime!.inspectContainer(second.id)) === null);
    // The image stays: the new container runs it.
    expect(await h.runtime!.imageSize(third.image)).not.toBeNull();
  });

  it("a crashed app shows failed at the next read, with last_exit_oom when it ran out of memory", async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site);
    const container = (await h.reposite.container.resolve(DeploymentStore).get(site))!.container!;
    await h.runtime!.exit(container.id, 137, { oomKilled: true });
    expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "failed", last_exit_oom: true });
    expect(h.reposite.appRoutes.get(site)).toEqual({ status: "failed", target: null });
  });

  it("DELETE …/deployment removes the container, the images, the data volume, the network and the runs", async () => {
    const site = await h.project(owner);
    const { runId } = await h.deploy(owner, site, { volume_path: "/data" });
    const target = h.reposite.appRoutes.get(site)!.target!;
    // The test app keeps files in the volume.
    expect((await get(target, "/files/a", "PUT", "kept")).status).toBe(204);
    expect(await h.runtime!.volumeSize(volumeName(site))).toBe(4);
    await h.reposite.hosting.remove(owner, site);
    expect(await h.runtime!.listContainers({ "dev.reposite.site": site })).toEqual([]);
    expect(await h.runtime!.imageSize(imageTag(site, runId))).toBeNull();
    expect(await h.runtime!.volumeSize(volumeName(site))).toBeNull();
    expect(h.runtime!.networks()).not.toContain(networkName(site));
    expect(h.reposite.appRoutes.get(site)).toBeUndefined();
    expect((await h.reposite.projects.get(owner, site)).deployment).toBeNull();
    await expect(h.reposite.hosting.listRuns(owner, site)).rejects.toMatchObject({ status: 409, code: "not_configured" });
  });
});

describe("deleting the project", () => {
  it.each([false, true])("removes its app with everything it holds (purge: %s), and cancels a run under way", async (purge) => {
    const files = { ...WEB_APP };
    const h = await startHostingHarness({ repos: [{ owner: "acme", name: "web", files }] });
    try {
      const owner = await h.account("ada@example.com");
      const site = await h.project(owner);
      const { runId } = await h.deploy(owner, site, { volume_path: "/data" });
      expect(await h.runtime!.listContainers({ "dev.reposite.site": site })).toHaveLength(1);
      files.Dockerfile = "FROM node:22\nRUN sleep 30\n";
      const slow = await h.reposite.hosting.deploy(owner, site);
      await eventually(async () => (await h.reposite.hosting.read(owner, site)).status === "building");
      await h.reposite.projectRemoval.delete(owner, site, { purge });
      expect(await h.runtime!.listContainers({ "dev.reposite.site": site })).toEqual([]);
      expect(await h.runtime!.imageSize(imageTag(site, runId))).toBeNull();
      expect(await h.runtime!.volumeSize(volumeName(site))).toBeNull();
      expect(h.runtime!.networks()).not.toContain(networkName(site));
      expect(h.reposite.appRoutes.get(site)).toBeUndefined();
      expect((await h.reposite.jobs.get(owner, slow.job_id)).status).toBe("cancelled");
      // The account's build slot is free again.
      const other = await h.project(owner);
      await h.reposite.hosting.setup(owner, other, {});
      files.Dockerfile = WEB_APP.Dockerfile!;
      expect((await h.finish(owner, (await h.reposite.hosting.deploy(owner, other)).job_id)).job.status).toBe("done");
    } finally {
      await h.close();
    }
  });
});

describe("the Dockerfile a run builds", () => {
  it("is refused when dockerfile_path is a link that leads out of the repository; a link inside it is followed", async () => {
    const folder = await mkdtemp(join(tmpdir(), "reposite-links-"));
    const repo = join(folder, "app");
    await mkdir(join(repo, "docker"), { recursive: true });
    await writeFile(join(repo, "docker", "web.Dockerfile"), WEB_APP.Dockerfile!);
    await writeFile(join(folder, "outside.Dockerfile"), "FROM node:22\n");
    await symlink("/etc/passwd", join(repo, "Dockerfile"));
    await symlink("../outside.Dockerfile", join(repo, "up.Dockerfile"));
    await symlink("docker/web.Dockerfile", join(repo, "inside.Dockerfile"));
    await symlink("docker", join(repo, "d"));
    const git = (...args: string[]) => promisify(execFile)("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
    await git("init", "-q");
    await git("add", "-A");
    await git("commit", "-q", "-m", "links");
    const h = await startHostingHarness({ localRepos: [folder] });
    try {
      const owner = await h.account("ada@example.com");
      const site = (await h.reposite.projects.create(owner, { repohost_url: repo })).id;
      for (const path of ["Dockerfile", "up.Dockerfile"]) {
        const { job } = await h.deploy(owner, site, { dockerfile_path: path });
        expect(job.error).toBe(`${path} is a link that leads out of the repository; Reposite builds only from files inside it.`);
      }
      for (const path of ["inside.Dockerfile", "d/web.Dockerfile"]) {
        const { job, text } = await h.deploy(owner, site, { dockerfile_path: path });
        expect(job.status).toBe("done");
        expect(text).toContain("from docker/web.Dockerfile");
      }
    } finally {
      await h.close();
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("for a bare box is the chosen base image, mapped to the server's own, kept up with nothing to serve", async () => {
    const engine = createMemoryContainerRuntime({ baseImages: ["mirror.example/alpine:3.20"] });
    const h = await startHostingHarness({ runtime: engine, hosting: { bareImages: { "alpine:3.20": "mirror.example/alpine:3.20" } } });
    try {
      const owner = await h.account("ada@example.com");
      const site = await h.project(owner);
      const { job, text } = await h.deploy(owner, site, { build_mode: "bare", base_image: "alpine:3.20" });
      expect(job.status).toBe("done");
      expect(text).toContain("Step 1/1 : FROM mirror.example/alpine:3.20");
      expect(text).toContain("The box is up.");
      expect(await h.reposite.hosting.read(owner, site)).toMatchObject({ status: "running", build_mode: "bare", base_image: "alpine:3.20" });
      // Without the mapping the spec's name is used, and this engine does not have it.
      const unmapped = await h.deploy(owner, site, { base_image: "ubuntu:24.04" });
      expect(unmapped.job.error).toContain("pull access denied for ubuntu:24.04");
    } finally {
      await h.close();
    }
  });
});
