import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createReposite } from "@reposite/core";
import { buildLocalBaseImages, docker, dockerForTests, freePort, removeLabelled, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "./harness.js";
import { getWithHost, startServerProcess, type ServerProcess } from "./server-process.js";

// Env restarts and data resets were found through `reposite serve` on the Docker Engine (a PUT held
// 87 s; a `kill -9` right after reset-data left the app down for good), so they are proved the same
// way: the built server in its own process, killed with SIGKILL and started again on the same data.

const engine = await dockerForTests();

const RUN_LABEL = "reposite-test.run";
const run = `app-changes-${randomBytes(4).toString("hex")}`;
const LABEL_SITE = "dev.reposite.site";

/** A busybox web server on 3000 (`ok` at /); CRASH=1 exits at once, HANG=1 never listens. */
const DOCKERFILE = [
  "FROM reposite-test/busybox:local",
  `LABEL ${RUN_LABEL}=${run}`,
  "RUN mkdir -p /www && echo ok > /www/index.html",
  `CMD ["sh", "-c", "if [ \\"$CRASH\\" = 1 ]; then echo crashing; exit 3; fi; if [ \\"$HANG\\" = 1 ]; then exec sleep 3600; fi; exec httpd -f -p 3000 -h /www"]`,
  "",
].join("\n");

interface OperationView {
  kind: string;
  status: string;
  started_at: string;
  finished_at: string | null;
  reason: string | null;
  diagnosis: { kind: string; title: string } | null;
}

interface DeploymentView {
  status: string;
  slug: string;
  env_keys: string[];
  last_operation: OperationView | null;
}

describe.skipIf(!engine.available)("env restarts and data resets in a real server process on the Engine", () => {
  let github: FakeGitHub;
  let dataDir: string;
  let port: number;
  let server: ServerProcess;
  let token = "";

  const env = () => ({
    REPOSITE_DATA_DIR: dataDir,
    REPOSITE_GITHUB_API_URL: github.url,
    REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
  });
  const api = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
  const deploymentOf = async (site: string) => (await (await api(`/app/sites/${site}/deployment`)).json()) as DeploymentView;
  const appAnswer = (slug: string) => getWithHost(`${server.url}/app/`, `${slug}.localhost:${port}`).catch(() => ({ status: 0, body: "" }));

  /** The app containers of one project on the Engine (running or not). */
  async function containersOf(site: string): Promise<string[]> {
    const { stdout } = await docker(["ps", "-aq", "--no-trunc", "--filter", `label=${RUN_LABEL}=${run}`, "--filter", `label=${LABEL_SITE}=${site}`]);
    return stdout.split("\n").filter(Boolean);
  }

  async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
    for (const deadline = Date.now() + timeoutMs; ; ) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A project of the test app, set up with `setup`, deployed and serving at /app/. */
  async function deployedApp(name: string, setup: Record<string, unknown>): Promise<{ site: string; slug: string }> {
    const created = (await (await api("/app/sites", json({ repohost_url: "https://github.com/acme/keeper", name }))).json()) as { id: string };
    expect((await api(`/app/sites/${created.id}/deployment`, json(setup, undefined, "PUT"))).status).toBe(201);
    const started = (await (await api(`/app/sites/${created.id}/deployment/deploy`, { method: "POST" })).json()) as { job_id: string };
    await until("the deploy", async () => (await (await api(`/app/jobs/${started.job_id}`)).json()) as { status: string; finished_at: string | null }, (job) => job.finished_at !== null);
    const deployment = await deploymentOf(created.id);
    expect(deployment.status).toBe("running");
    expect((await appAnswer(deployment.slug)).body).toBe("ok\n");
    return { site: created.id, slug: deployment.slug };
  }

  beforeAll(async () => {
    await buildLocalBaseImages();
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "keeper", files: { Dockerfile: DOCKERFILE } }] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-app-changes-"));
    port = await freePort();
    const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
    const { account } = await reposite.accounts.findOrCreate("ada@example.com");
    token = (await reposite.tokens.create(account.id, { name: "changes", lifetime: "30d" })).secret;
    await reposite.close();
    server = await startServerProcess(port, env());
  }, 120_000);

  afterAll(async () => {
    await server?.kill();
    await github?.close();
    await removeLabelled(RUN_LABEL, run);
    if (!dataDir) return;
    // A killed server leaves its apps' volume filesystems mounted under its data directory.
    const mounts = (await readFile("/proc/mounts", "utf8").catch(() => "")).split("\n").map((line) => line.split(" ")[1] ?? "");
    for (const mount of mounts.filter((path) => path.startsWith(`${dataDir}/`))) await promisify(execFile)("umount", ["-l", mount]).catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("setup refuses system folders and files as volume_path, and env refuses __proto__, with 422 naming the field", async () => {
    const created = (await (await api("/app/sites", json({ repohost_url: "https://github.com/acme/keeper", name: "Odd Input" }))).json()) as { id: string };
    for (const path of ["/etc/hosts", "/bin", "/usr", "/var/run/docker.sock"]) {
      const answer = await api(`/app/sites/${created.id}/deployment`, json({ volume_path: path }, undefined, "PUT"));
      expect(answer.status, path).toBe(422);
      const body = (await answer.json()) as { code: string; field: string; error: string };
      expect(body, path).toMatchObject({ code: "invalid_request", field: "volume_path" });
      expect(body.error).toContain("not a system folder");
    }
    expect((await api(`/app/sites/${created.id}/deployment`, json({ volume_path: "/data" }, undefined, "PUT"))).status).toBe(201);
    // The body as a client sends it: JSON text with a "__proto__" key.
    const proto = await api(`/app/sites/${created.id}/deployment/env`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: '{"env": {"__proto__": "x", "A": "kept-out"}}',
    });
    expect(proto.status).toBe(422);
    expect(await proto.json()).toMatchObject({ code: "invalid_request", field: "env.__proto__" });
    expect(await (await api(`/app/sites/${created.id}/deployment/env`)).json()).toEqual({ env: {} });
  });

  it("kill -9 at 30, 250 and 800 ms after reset-data: the restarted server finishes the reset, the app serves again, data and records agree", async () => {
    const { site, slug } = await deployedApp("Reset Keeper", { volume_path: "/data" });
    const outcomes: string[] = [];
    let lastReset: string | null = null;
    for (const delayMs of [30, 250, 800]) {
      const [before] = await containersOf(site);
      await docker(["exec", before!, "sh", "-c", `echo precious-${delayMs} > /data/notes`]);
      const sent = api(`/app/sites/${site}/deployment/reset-data`, json({ confirm: slug })).catch(() => null);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await server.kill();
      await sent;

      server = await startServerProcess(port, env());
      // Without the owner acting: the reset is finished (or never began), and the app serves.
      const deployment = await until(
        `the app after a kill at ${delayMs} ms`,
        () => deploymentOf(site),
        (read) => read.status === "running" && read.last_operation?.status !== "under_way",
      );
      expect((await until("/app/", () => appAnswer(slug), (answer) => answer.status === 200)).body).toBe("ok\n");
      const containers = await containersOf(site);
      expect(containers).toHaveLength(1);
      const { stdout: files } = await docker(["exec", containers[0]!, "ls", "-A", "/data"]);
      const operation = deployment.last_operation;
      const resetNow = operation !== null && operation.started_at !== lastReset;
      if (resetNow) {
        // Recorded, so finished: the data is gone and the records say the reset is done.
        expect(operation).toMatchObject({ kind: "reset_data", status: "done", finished_at: expect.any(String), reason: null });
        expect(files.trim()).toBe("");
        lastReset = operation.started_at;
      } else {
        // Killed before it was recorded: nothing was reset, the data is there.
        expect((await docker(["exec", containers[0]!, "cat", "/data/notes"])).stdout).toBe(`precious-${delayMs}\n`);
      }
      outcomes.push(`${delayMs} ms: ${resetNow ? "reset finished after restart" : "reset never began"}`);
    }
    console.log(`[app-changes] kill -9 after reset-data: ${outcomes.join("; ")}`);
    // The later kills land well inside the reset: at least one of them was finished by a restarted server.
    expect(outcomes.some((outcome) => outcome.includes("finished"))).toBe(true);
  }, 240_000);

  it("PUT …/deployment/env answers at once; the restart's failure shows in last_operation while the old container keeps serving", async () => {
    const { site, slug } = await deployedApp("Env Keeper", {});
    const [serving] = await containersOf(site);

    const crashStarted = Date.now();
    const crash = await api(`/app/sites/${site}/deployment/env`, json({ env: { CRASH: "1" } }, undefined, "PUT"));
    const crashMs = Date.now() - crashStarted;
    expect(crash.status).toBe(200);
    expect(await crash.json()).toEqual({ env: { CRASH: "********" } });
    const failed = await until("the env restart", () => deploymentOf(site), (read) => read.last_operation?.status === "failed");
    expect(failed).toMatchObject({ status: "running", env_keys: ["CRASH"], last_operation: { kind: "env_restart", finished_at: expect.any(String), diagnosis: { kind: "crash_on_start" } } });
    expect(failed.last_operation!.reason).toMatch(/exited with code 3/);
    expect((await appAnswer(slug)).body).toBe("ok\n");
    expect(await containersOf(site)).toEqual([serving]);

    // An app that never answers: the request is not held for its health check (60 s here).
    const hangStarted = Date.now();
    const hang = await api(`/app/sites/${site}/deployment/env`, json({ env: { CRASH: null, HANG: "1" } }, undefined, "PUT"));
    const hangMs = Date.now() - hangStarted;
    expect(hang.status).toBe(200);
    // Far under the 60 s health check, with room for a busy machine: a failure means the request
    // waited for the health check instead of answering once the restart was under way.
    expect(hangMs).toBeLessThan(20_000);
    expect((await deploymentOf(site)).last_operation).toMatchObject({ kind: "env_restart", status: "under_way", finished_at: null });
    expect((await appAnswer(slug)).body).toBe("ok\n");
    console.log(`[app-changes] PUT env answered in ${crashMs} ms (crashing app) and ${hangMs} ms (app that never answers)`);
  }, 120_000);
});
