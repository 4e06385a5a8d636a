import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildLocalBaseImages, buildLocalNginxImage, docker, dockerForTests, ensureSwarm, freePort, removeDataDir, removeLabelled, startFakeGitHub, startRegistry, type FakeGitHub, type FakeRepo, type TestRegistry } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { DEPLOYMENT_ROUTES } from "./deployment-routes.js";
import { json } from "./harness.js";
import { startServerProcess, type ServerProcess } from "./server-process.js";
import { accountTokens, refusedStart, swarmAppRepo, swarmHostingClient, type Deployment, type Job } from "./swarm-hosting-client.js";

// App hosting end to end on Docker Swarm: the built `reposite serve` in its own process with
// REPOSITE_RUNTIME=swarm, the machine's single-node swarm and Debian's docker-registry on loopback.
// The cases of hosting-e2e.test.ts that say what a runtime must do, checked on Swarm's own terms
// (services, tasks, images in the registry). They run in two shapes: Reposite's own /app/ proxy,
// reaching apps through the gateway bridge (it cannot join overlay networks), and REPOSITE_EDGE=nginx
// with nginx in a container that joins each app's overlay network (network reach, the default with
// the edge) and reaches Reposite on a Unix socket. One server and one set of apps per shape are
// shared by the tests below, in order; everything carries this run's label and a reposite-swarmtest-
// name (the edge container is reposite-edge-<port>, labelled), and goes at the end.

const engine = await dockerForTests();

const RUN_LABEL = "reposite-test.run";
const run = `reposite-swarmtest-${randomBytes(4).toString("hex")}`;
const LABEL_SITE = "dev.reposite.site";
const lower = (id: string) => id.toLowerCase().replace(/[^a-z0-9_.-]/g, "-");

/** The test app, its image labelled with this run. */
const dockerRepo = (version: string, steps: string[] = [], cmd?: string): FakeRepo => swarmAppRepo(`${RUN_LABEL}=${run}`, version, steps, cmd);

/** Grows past any memory limit as it starts: an OOM kill before it ever answers. */
const hungryRepo: FakeRepo = {
  owner: "acme",
  name: "swarm-hungry",
  files: {
    Dockerfile: ["FROM reposite-test/node:local", `LABEL ${RUN_LABEL}=${run}`, "WORKDIR /app", "COPY server.js ./", 'CMD ["node", "server.js"]', ""].join("\n"),
    "server.js": "const kept = []; setInterval(() => kept.push(Buffer.alloc(32 * 1024 * 1024, 1)), 10);\n",
  },
};

/** Services of this run for one site (or every one). */
async function servicesOf(siteId?: string): Promise<string[]> {
  const filters = ["--filter", `label=${RUN_LABEL}=${run}`, ...(siteId ? ["--filter", `label=${LABEL_SITE}=${siteId}`] : [])];
  return (await docker(["service", "ls", "-q", ...filters])).stdout.split("\n").filter(Boolean);
}

/** Removes this run's services first (their tasks hold the networks and volumes), then everything labelled. */
async function removeEverything(): Promise<void> {
  const services = await servicesOf();
  if (services.length) await docker(["service", "rm", ...services]).catch(() => undefined);
  for (let tries = 0; tries < 60 && (await docker(["ps", "-aq", "--filter", `label=${RUN_LABEL}=${run}`])).stdout.trim(); tries++) await new Promise((resolve) => setTimeout(resolve, 500));
  await removeLabelled(RUN_LABEL, run).catch(() => undefined);
}

describe("REPOSITE_RUNTIME at start-up", () => {
  it("refuses to start with a runtime it does not know, or a swarm setting it cannot use, and says which", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "reposite-swarm-settings-"));
    try {
      const unknown = await refusedStart({ REPOSITE_DATA_DIR: dataDir, REPOSITE_RUNTIME: "kubernetes" });
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain('REPOSITE_RUNTIME must be docker (the default: this machine\'s Engine) or swarm (services on Docker Swarm), not "kubernetes"');
      const reach = await refusedStart({ REPOSITE_DATA_DIR: dataDir, REPOSITE_RUNTIME: "swarm", REPOSITE_SWARM_REACH: "mesh" });
      expect(reach.code).not.toBe(0);
      expect(reach.stderr).toContain('REPOSITE_SWARM_REACH must be gateway or network, not "mesh"');
      // Pairs of edge and reach that cannot work: nothing on the host joins an overlay, and nginx in a container reaches no docker_gwbridge address.
      const noEdge = await refusedStart({ REPOSITE_DATA_DIR: dataDir, REPOSITE_RUNTIME: "swarm", REPOSITE_SWARM_REACH: "network" });
      expect(noEdge.code).not.toBe(0);
      expect(noEdge.stderr).toContain("REPOSITE_SWARM_REACH=network reaches apps on their overlay networks, which Reposite's own /app/ proxy (no REPOSITE_EDGE) cannot join");
      const hostNginx = await refusedStart({ REPOSITE_DATA_DIR: dataDir, REPOSITE_RUNTIME: "swarm", REPOSITE_EDGE: "nginx", REPOSITE_EDGE_NGINX: "host", REPOSITE_SWARM_REACH: "network" });
      expect(hostNginx.code).not.toBe(0);
      expect(hostNginx.stderr).toContain("which the host's nginx (REPOSITE_EDGE_NGINX=host) cannot join: set REPOSITE_EDGE=nginx with the container edge");
      const gateway = await refusedStart({ REPOSITE_DATA_DIR: dataDir, REPOSITE_RUNTIME: "swarm", REPOSITE_EDGE: "nginx", REPOSITE_SWARM_REACH: "gateway" });
      expect(gateway.code).not.toBe(0);
      expect(gateway.stderr).toContain("REPOSITE_SWARM_REACH=gateway reaches apps at their tasks' docker_gwbridge addresses, which nginx in a container (REPOSITE_EDGE_NGINX=container, the default with REPOSITE_RUNTIME=swarm) cannot reach");
      // A swarm that does not answer is an error at start, not a server hosting nothing.
      const absent = await refusedStart({ REPOSITE_DATA_DIR: dataDir, REPOSITE_RUNTIME: "swarm", DOCKER_HOST: `unix://${join(dataDir, "no-docker.sock")}` });
      expect(absent.code).not.toBe(0);
      expect(absent.stderr).toContain(`REPOSITE_RUNTIME=swarm, but the swarm at unix://${join(dataDir, "no-docker.sock")} cannot host apps`);
    } finally {
      await removeDataDir(dataDir);
    }
  }, 90_000);
});

/** `node`: Reposite's /app/ proxy, gateway reach. `edge`: REPOSITE_EDGE=nginx in a container, network reach. */
const SHAPES = ["node", "edge"] as const;
/** How the start-up line says each shape reaches apps. */
const REACH_SAID = {
  node: /apps reached at their tasks' docker_gwbridge addresses/,
  edge: /apps reached on their overlay networks \(an edge attached to them\)/,
};

describe.skipIf(!engine.available).each(SHAPES)("app hosting end to end on Docker Swarm (REPOSITE_RUNTIME=swarm, shape %s)", (shape) => {
  let github: FakeGitHub;
  let registry: TestRegistry;
  let dataDir: string;
  let port: number;
  let server: ServerProcess;
  const tokens = { ada: "", eve: "" };
  const sites = { app: "", hungry: "" };
  let nginxImage = "";
  const slugs = { app: `swarm-${run.slice(-8)}`, hungry: `hungry-${run.slice(-8)}` };

  const env = () => ({
    REPOSITE_DATA_DIR: dataDir,
    REPOSITE_GITHUB_API_URL: github.url,
    REPOSITE_BASE_IMAGE_NODE: "reposite-test/node:local",
    REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
    REPOSITE_BUILD_MEMORY_MB: "512",
    REPOSITE_RUNTIME: "swarm",
    REPOSITE_REGISTRY: registry.address,
    ...(shape === "edge" ? { REPOSITE_EDGE: "nginx", REPOSITE_EDGE_NGINX_IMAGE: nginxImage } : {}),
  });
  /** The edge's container (labelled dev.reposite.edge and with this run's label): its id, or "". */
  const edgeContainer = async () => (await docker(["ps", "-aq", "--filter", "label=dev.reposite.edge", "--filter", `label=${RUN_LABEL}=${run}`])).stdout.trim();
  const edgeNetworks = async () => Object.keys(JSON.parse((await docker(["inspect", "--format", "{{json .NetworkSettings.Networks}}", await edgeContainer()])).stdout) as Record<string, unknown>).sort();

  const { api, apiJson, site, appJson, deploy, underRequests, ...client } = swarmHostingClient({ server: () => server, edge: shape === "edge" });
  /** Resolves once the job's live log (its stream; a run keeps its log tail only once it ends) says `text`. */
  async function untilJobSays(jobId: string, text: string): Promise<void> {
    const stream = await api(`/app/jobs/${jobId}/stream`, tokens.ada, { signal: AbortSignal.timeout(240_000) });
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (let said = ""; !said.includes(text); ) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the job ended before its log said ${JSON.stringify(text)}: ${said.slice(-2000)}`);
      said += value;
    }
    await reader.cancel().catch(() => undefined);
  }
  /** Slow to start, but healthy in time (it listens after 7 s, before Swarm's health check counts it unhealthy): left alone, its rollout completes. */
  const slowRepo = (version: string) => dockerRepo(version, [], 'CMD ["node", "-e", "setTimeout(() => require(\\"/app/server.js\\"), 7000)"]');
  const serviceImage = async (service: string) => (await docker(["service", "inspect", "--format", "{{.Spec.TaskTemplate.ContainerSpec.Image}}", service])).stdout.trim();
  const deploymentOf = (siteId: string) => apiJson<Deployment>(`/app/sites/${siteId}/deployment`, tokens.ada);
  const publishedProject = (repo: FakeRepo, slug: string, setup: Record<string, unknown>, generate?: Record<string, unknown>) => client.publishedProject(tokens.ada, repo, slug, setup, generate);

  beforeAll(async () => {
    await ensureSwarm();
    await buildLocalBaseImages();
    if (shape === "edge") nginxImage = await buildLocalNginxImage();
    registry = await startRegistry();
    github = await startFakeGitHub({ repos: [dockerRepo("v1"), hungryRepo] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-swarm-e2e-"));
    port = await freePort();
    Object.assign(tokens, await accountTokens(dataDir, ["ada", "eve"]));
    server = await startServerProcess(port, env());
    // With a sign-in page: the members-only case below needs one.
    sites.app = await publishedProject(dockerRepo("v1"), slugs.app, { volume_path: "/data" }, { mode: "saas", pages: ["auth"] });
    sites.hungry = await publishedProject(hungryRepo, slugs.hungry, {});
  }, 240_000);

  afterAll(async () => {
    // SIGTERM: the edge stops its container (removeEverything takes it too, by label, should it stay).
    await server?.stop();
    await github?.close();
    await removeEverything();
    await registry?.stop();
    if (dataDir) await removeDataDir(dataDir);
  }, 180_000);

  it("names the swarm at start, deploys a service and answers through /app/; three later deploys roll the same service over with every request through /app/ answered", async () => {
    expect(server.output().stdout).toMatch(/app hosting: swarm \(0 apps running\); images: swarm \(registry 127\.0\.0\.1:\d+\); apps reached /);
    expect(server.output().stdout).toMatch(REACH_SAID[shape]);
    if (shape === "edge") expect(server.output().stdout).toMatch(/nginx \(.* in a container \(reposite-test\/nginx:local\)\) on 127\.0\.0\.1:\d+ in front of Reposite on \/.*\/run\/node\.sock/);
    const first = await deploy(tokens.ada, sites.app);
    expect(first.job.status, first.log).toBe("done");
    expect(first.log).toContain("Started on swarm");
    expect(await appJson(slugs.app, "/app/hello")).toMatchObject({ version: "v1", path: "/hello", prefix: "/app" });
    const [service] = await servicesOf(sites.app);
    expect(service).toBeTruthy();
    // Deployed by digest from the registry.
    expect((await docker(["service", "inspect", "--format", "{{.Spec.TaskTemplate.ContainerSpec.Image}}", service!])).stdout.trim()).toMatch(new RegExp(`^${registry.address}/.+@sha256:[0-9a-f]{64}$`));

    // Three rollouts (the last one back to v2's bytes, so to v2's digest again) with requests through /app/ all along:
    // the route follows each new task once Swarm reports it healthy.
    for (const version of ["v2", "v3", "v2"]) {
      github.addRepo(dockerRepo(version));
      const { result: rollout, seen, failures } = await underRequests(slugs.app, () => deploy(tokens.ada, sites.app));
      console.log(`[hosting-swarm-e2e] rollout to ${version} under requests through /app/ every 50 ms: ${seen.length} answered (${seen.filter((each) => each.version === version).length} by ${version}), ${failures.length} failed ${JSON.stringify([...new Set(failures)])}`);
      expect(rollout.job.status, rollout.log).toBe("done");
      expect(rollout.log).toContain("Swarm update");
      expect(rollout.log).toContain("Rolled over");
      expect(failures).toEqual([]);
      expect((await appJson(slugs.app)).version).toBe(version);
    }
    expect(await servicesOf(sites.app)).toEqual([service]);
  }, 300_000);

  it("another account gets 404 on every deployment route", async () => {
    for (const [method, path, body] of DEPLOYMENT_ROUTES) {
      const response = await api(`/app/sites/${sites.app}${path}`, tokens.eve, body === undefined ? { method } : json(body, undefined, method));
      expect(response.status, `${method} ${path}`).toBe(404);
    }
  });

  it("a failed build keeps the old version serving; a version that never becomes healthy is rolled back by Swarm, the run failed with a reason and diagnosis", async () => {
    github.addRepo(dockerRepo("v3", ["RUN exit 3"]));
    const broken = await deploy(tokens.ada, sites.app);
    expect(broken.job.status).toBe("error");
    expect((await deploymentOf(sites.app)).last_run).toMatchObject({ status: "failed", reason: expect.stringContaining("exit code 3") });
    expect((await appJson(slugs.app)).version).toBe("v2");

    // Runs, but never answers HTTP: its health check never passes.
    github.addRepo(dockerRepo("v4", [], 'CMD ["node", "-e", "setInterval(() => {}, 1000)"]'));
    let answered = 0;
    let failedRequests = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const answer = await site(slugs.app, "/app/").catch(() => null);
        if (answer?.status === 200 && (JSON.parse(answer.body) as { version: string }).version === "v2") answered += 1;
        else failedRequests += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const unhealthy = await deploy(tokens.ada, sites.app).finally(() => (polling = false));
    await poller;
    expect(unhealthy.job.status).toBe("error");
    expect(unhealthy.log).toContain("rollback");
    const deployment = await deploymentOf(sites.app);
    expect(deployment.status).toBe("running");
    expect(deployment.last_run).toMatchObject({ status: "failed", reason: expect.stringContaining("rolled back to the previous one, which keeps serving") });
    expect(deployment.last_run!.diagnosis).not.toBeNull();
    // The old version answered throughout.
    expect(failedRequests).toBe(0);
    expect(answered).toBeGreaterThan(20);
    expect((await appJson(slugs.app)).version).toBe("v2");
    github.addRepo(dockerRepo("v2"));
  }, 400_000);

  it("a deploy cancelled while Swarm rolls the new version in: Swarm rolls back, the run ends cancelled, the old version answers throughout and the new image is gone", async () => {
    const [service] = await servicesOf(sites.app);
    const specImage = () => serviceImage(service!);
    const before = await specImage();
    github.addRepo(slowRepo("v5"));
    let answered = 0;
    const failures: string[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const answer = await site(slugs.app, "/app/").catch((error: unknown) => ({ status: 0, headers: {}, body: String(error) }));
        if (answer.status === 200 && (JSON.parse(answer.body) as { version: string }).version === "v2") answered += 1;
        else failures.push(`${answer.status} ${answer.body.slice(0, 80)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      const { run_id, job_id } = await apiJson<{ run_id: string; job_id: string }>(`/app/sites/${sites.app}/deployment/deploy`, tokens.ada, { method: "POST" });
      await untilJobSays(job_id, "Swarm update updating");
      const rolledIn = await specImage();
      expect(rolledIn).not.toBe(before);
      const cancelled = await apiJson<Job>(`/app/jobs/${job_id}/cancel`, tokens.ada, { method: "POST" });
      expect(cancelled.status).toBe("cancelled");
      // The run ends once Swarm has rolled back.
      let last: Deployment["last_run"] = null;
      for (const deadline = Date.now() + 120_000; (last = (await deploymentOf(sites.app)).last_run)?.run_id !== run_id || last?.status !== "failed"; await new Promise((resolve) => setTimeout(resolve, 250))) {
        if (Date.now() > deadline) throw new Error(`the cancelled run did not end: ${JSON.stringify(last)}`);
      }
      // Ten more requests' worth after the end: the old version still answers.
      await new Promise((resolve) => setTimeout(resolve, 500));
      polling = false;
      await poller;
      console.log(`[hosting-swarm-e2e] (${shape}) a rollout cancelled mid-way: ${answered} answered by v2, ${failures.length} failed ${JSON.stringify([...new Set(failures)])}`);
      const log = (await apiJson<{ log_tail: string }>(`/app/sites/${sites.app}/deployment/runs/${run_id}`, tokens.ada)).log_tail;
      expect(last).toMatchObject({ status: "failed", reason: "The deploy was cancelled." });
      expect((await deploymentOf(sites.app)).status).toBe("running");
      expect(log).toContain("Cancelled: asking Swarm to roll back to the previous version");
      expect(log).toContain("rollback_completed");
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThan(20);
      // Nothing half-rolled: the service runs the old digest, in one task; the new image is gone here and from the registry.
      expect(await specImage()).toBe(before);
      expect((await docker(["service", "inspect", "--format", "{{.UpdateStatus.State}}", service!])).stdout.trim()).toBe("rollback_completed");
      const wanted = (await docker(["service", "ps", "--filter", "desired-state=running", "--format", "{{.Image}}", service!])).stdout.split("\n").filter(Boolean);
      expect(wanted).toHaveLength(1);
      const [repository, digest] = rolledIn.slice(registry.address.length + 1).split("@");
      await expect.poll(() => registry.has(repository!, digest!), { timeout: 10_000 }).toBe(false);
      expect((await docker(["images", "-q", "--filter", `label=dev.reposite.run=${run_id}`])).stdout.trim()).toBe("");
      expect((await appJson(slugs.app)).version).toBe("v2");
    } finally {
      polling = false;
      await poller;
      github.addRepo(dockerRepo("v2"));
    }
  }, 400_000);

  it("a server stopped (SIGTERM) while Swarm rolls a new version in rolls it back before it exits; started again, it serves the old version and the run says the server stopped", async () => {
    const [service] = await servicesOf(sites.app);
    const before = await serviceImage(service!);
    github.addRepo(slowRepo("v6"));
    try {
      const { run_id } = await apiJson<{ run_id: string }>(`/app/sites/${sites.app}/deployment/deploy`, tokens.ada, { method: "POST" });
      await untilJobSays((await apiJson<{ job_id: string }>(`/app/sites/${sites.app}/deployment/runs/${run_id}`, tokens.ada)).job_id, "Swarm update updating");
      await server.stop();
      // Nothing half-rolled is left to a server that is gone.
      expect(await serviceImage(service!)).toBe(before);
      expect((await docker(["service", "inspect", "--format", "{{.UpdateStatus.State}}", service!])).stdout.trim()).toBe("rollback_completed");
      server = await startServerProcess(port, env());
      expect((await deploymentOf(sites.app)).last_run).toMatchObject({ run_id, status: "failed", reason: "The server stopped during the run. Deploy again." });
      expect((await appJson(slugs.app)).version).toBe("v2");
    } finally {
      github.addRepo(dockerRepo("v2"));
    }
  }, 300_000);

  it("a deploy cancelled after Swarm stopped the old task (the update's monitor window): the old version runs again in a new task, and the route and the saved app follow it", async () => {
    const [service] = await servicesOf(sites.app);
    const before = await serviceImage(service!);
    github.addRepo(dockerRepo("v7"));
    let answered = 0;
    const failures: string[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const answer = await site(slugs.app, "/app/").catch((error: unknown) => ({ status: 0, headers: {}, body: String(error) }));
        if (answer.status === 200) answered += 1;
        else failures.push(`${answer.status} ${answer.body.slice(0, 80)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      const { run_id, job_id } = await apiJson<{ run_id: string; job_id: string }>(`/app/sites/${sites.app}/deployment/deploy`, tokens.ada, { method: "POST" });
      // The new version is healthy and Swarm told the old task to stop: only the update's 5 s monitor window is left.
      const tasks = async () => (await docker(["service", "ps", "--no-trunc", "--format", "{{.Image}} {{.DesiredState}} {{.CurrentState}}", service!])).stdout.split("\n").filter(Boolean);
      for (const deadline = Date.now() + 240_000; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
        const now = await tasks();
        if (now.some((task) => task.startsWith(`${before} Shutdown`)) && now.some((task) => !task.startsWith(before) && / Running Running/.test(task))) break;
        if (Date.now() > deadline) throw new Error(`the old task was never stopped: ${JSON.stringify(now)}`);
      }
      await apiJson<Job>(`/app/jobs/${job_id}/cancel`, tokens.ada, { method: "POST" });
      let last: Deployment["last_run"] = null;
      for (const deadline = Date.now() + 120_000; (last = (await deploymentOf(sites.app)).last_run)?.run_id !== run_id || last?.status === "queued" || last?.status === "building" || last?.status === "starting"; await new Promise((resolve) => setTimeout(resolve, 250))) {
        if (Date.now() > deadline) throw new Error(`the cancelled run did not end: ${JSON.stringify(last)}`);
      }
      const log = (await apiJson<{ log_tail: string }>(`/app/sites/${sites.app}/deployment/runs/${run_id}`, tokens.ada)).log_tail;
      expect(last, log).toMatchObject({ status: "failed", reason: "The deploy was cancelled." });
      expect(log).toContain("manually requested rollback");
      expect(await serviceImage(service!)).toBe(before);
      // Once the run has ended (its record published), every request reaches the old version where it runs now.
      for (let i = 0; i < 20; i++) expect((await appJson(slugs.app)).version).toBe("v2");
      polling = false;
      await poller;
      console.log(`[hosting-swarm-e2e] (${shape}) a rollout cancelled after the old task stopped: ${answered} answered, ${failures.length} failed ${JSON.stringify([...new Set(failures)])}`);
    } finally {
      polling = false;
      await poller;
      github.addRepo(dockerRepo("v2"));
    }
  }, 300_000);

  it("a first deploy that outgrows its memory is diagnosed as out of memory (last_exit_oom) and leaves no service", async () => {
    const failed = await deploy(tokens.ada, sites.hungry);
    expect(failed.job.status).toBe("error");
    const deployment = await deploymentOf(sites.hungry);
    expect(deployment).toMatchObject({ status: "failed", last_exit_oom: true, last_run: { status: "failed", diagnosis: { kind: expect.stringMatching(/memory/) } } });
    expect(await servicesOf(sites.hungry)).toEqual([]);
  }, 300_000);

  it("an env change rolls the service over with the new value", async () => {
    const secret = `s3cret-${randomBytes(6).toString("hex")}`;
    expect((await api(`/app/sites/${sites.app}/deployment/env`, tokens.ada, json({ env: { X: secret } }, undefined, "PUT"))).status).toBe(200);
    for (const deadline = Date.now() + 180_000; (await deploymentOf(sites.app)).last_operation?.status !== "done"; await new Promise((resolve) => setTimeout(resolve, 250))) {
      if (Date.now() > deadline) throw new Error(`the env restart did not finish: ${JSON.stringify((await deploymentOf(sites.app)).last_operation)}`);
    }
    expect((await appJson(slugs.app)).x).toBe(secret);
  }, 240_000);

  it("carries a WebSocket and SSE through /app/ to the service", async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/app/ws?room=7`, { headers: { host: `${slugs.app}.localhost:${port}` } });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
      socket.once("unexpected-response", (_req, res: IncomingMessage) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    const answer = new Promise<string>((resolve) => socket.once("message", (data) => resolve(String(data))));
    socket.send("hello");
    expect(await answer).toBe("echo /ws?room=7 hello");
    socket.close(1000);

    const id = randomBytes(4).toString("hex");
    const events: string[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      httpRequest(`${server.url}/app/events?id=${id}`, { headers: { host: `${slugs.app}.localhost:${port}`, accept: "text/event-stream" } }, (res) => {
        expect(res.headers["content-type"]).toBe("text/event-stream");
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => events.push(chunk));
        res.on("end", resolve);
      })
        .on("error", reject)
        .end();
    });
    for (const deadline = Date.now() + 10_000; !events.join("").includes("data: first"); await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (Date.now() > deadline) throw new Error("the first event never came");
    }
    expect((await site(slugs.app, `/app/release?id=${id}`)).body).toBe("released");
    await ended;
    expect(events.join("")).toContain("data: last");
  }, 60_000);

  it("a members-only app: a signed-out visitor is sent to sign in, a member gets in with who they are, forged identity headers and Reposite's cookie never reach the app", async () => {
    const gate = async (on: boolean) => {
      const response = await api(`/app/sites/${sites.app}`, tokens.ada, json({ auth_redirect_to_app: on }, undefined, "PATCH"));
      expect(response.status, await response.clone().text()).toBe(200);
    };
    const forged = { "x-reposite-member-id": "member_forged", "x-reposite-member-email": "boss@example.com" };
    await gate(true);
    try {
      // With the edge, nginx takes the gate at its next reload.
      await expect.poll(async () => (await site(slugs.app, "/app/reports?range=7d", { headers: forged })).status, { timeout: 10_000, interval: 100 }).toBe(302);
      expect((await site(slugs.app, "/app/reports?range=7d", { headers: forged })).headers.location).toBe("/auth?next=%2Fapp%2Freports%3Frange%3D7d");

      const origin = `http://${slugs.app}.localhost:${port}`;
      const signUp = await site(slugs.app, "/auth/sign-up", {
        method: "POST",
        headers: { origin, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: "ada.member@example.com", password: "analytical-engine" }).toString(),
      });
      expect(signUp.status, signUp.body).toBe(303);
      expect(signUp.headers.location).toBe("/app/");
      const cookie = (signUp.headers["set-cookie"] ?? []).map((line) => line.split(";")[0]!).find((pair) => pair.startsWith("reposite_member="));
      expect(cookie).toBeTruthy();
      const [member] = await apiJson<{ id: string; email: string }[]>(`/app/sites/${sites.app}/members`, tokens.ada);
      const seen = await site(slugs.app, "/app/reports", { headers: { ...forged, cookie: `${cookie}; theme=dark` } });
      expect(seen.status, seen.body).toBe(200);
      if (shape === "edge") expect(seen.headers["x-reposite-edge"], "through nginx").toBe("nginx");
      expect(JSON.parse(seen.body)).toMatchObject({ path: "/reports", member: member!.id, email: "ada.member@example.com", cookie: "theme=dark" });
    } finally {
      await gate(false);
    }
    // Open again: everyone reaches the app, and forged identities still never do.
    await expect.poll(async () => (await site(slugs.app, "/app/", { headers: forged })).status, { timeout: 10_000, interval: 100 }).toBe(200);
    expect(JSON.parse((await site(slugs.app, "/app/", { headers: forged })).body)).toMatchObject({ member: null, email: null });
  }, 60_000);

  it("stop answers 503 and scales the service to nothing; start brings it back with its env", async () => {
    expect((await apiJson<{ status: string }>(`/app/sites/${sites.app}/deployment/stop`, tokens.ada, { method: "POST" })).status).toBe("stopped");
    expect((await site(slugs.app, "/app/")).status).toBe(503);
    const [service] = await servicesOf(sites.app);
    expect((await docker(["service", "inspect", "--format", "{{.Spec.Mode.Replicated.Replicas}}", service!])).stdout.trim()).toBe("0");
    expect((await apiJson<{ status: string }>(`/app/sites/${sites.app}/deployment/start`, tokens.ada, { method: "POST" })).status).toBe("running");
    expect(await appJson(slugs.app)).toMatchObject({ version: "v2", x: expect.stringMatching(/^s3cret-/) });
  }, 240_000);

  it("reset-data empties the app's volume and serves again", async () => {
    expect((await site(slugs.app, "/app/files/kept", { method: "PUT", body: "still here" })).body).toBe("kept");
    expect((await site(slugs.app, "/app/files/kept")).body).toBe("still here");
    const reset = await api(`/app/sites/${sites.app}/deployment/reset-data`, tokens.ada, json({ confirm: slugs.app }));
    expect(reset.status, `${await reset.clone().text()}\n${server.output().stderr.slice(-3000)}`).toBe(200);
    expect((await deploymentOf(sites.app)).last_operation).toMatchObject({ kind: "reset_data", status: "done" });
    const after = await site(slugs.app, "/app/files/kept");
    expect(after).toMatchObject({ status: 404, body: "missing" });
  }, 240_000);

  it("kill -9 of the server: the service keeps running, and a new server routes /app/ to it again from its very first answer", async () => {
    await server.kill();
    // As after a reboot: the edge's container is gone too, so the new server starts a new one, which
    // must be on the app's network before it answers (every answer from the first one on is the app's).
    if (shape === "edge") await docker(["rm", "-f", await edgeContainer()]);
    const answers: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const answer = await site(slugs.app, "/app/first").catch(() => null);
        if (answer) answers.push(answer.status);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    server = await startServerProcess(port, env()).finally(() => (polling = false));
    await poller;
    console.log(`[hosting-swarm-e2e] (${shape}) answers on /app/ while the new server started: ${answers.length}, not 200: ${JSON.stringify(answers.filter((status) => status !== 200))}`);
    expect(answers.filter((status) => status !== 200)).toEqual([]);
    await expect.poll(() => server.output().stdout, { timeout: 10_000 }).toMatch(/app hosting: swarm \(1 app running\)/);
    expect((await appJson(slugs.app, "/app/back")).path).toBe("/back");
  }, 120_000);

  it("DELETE …/deployment removes the service, its images here and in the registry, its volume and its network", async () => {
    const [service] = await servicesOf(sites.app);
    const image = (await docker(["service", "inspect", "--format", "{{.Spec.TaskTemplate.ContainerSpec.Image}}", service!])).stdout.trim();
    const [repository, digest] = image.slice(registry.address.length + 1).split("@");
    expect(await registry.has(repository!, digest!)).toBe(true);
    const volume = `reposite-data-${lower(sites.app)}`;
    const network = `reposite-app-${lower(sites.app)}`;
    const lines = async (args: string[]) => (await docker(args)).stdout.split("\n").filter(Boolean);
    expect(await lines(["volume", "ls", "-q", "--filter", `name=^${volume}$`])).toEqual([volume]);

    expect((await api(`/app/sites/${sites.app}/deployment`, tokens.ada, { method: "DELETE" })).status).toBe(204);
    expect(await servicesOf(sites.app)).toEqual([]);
    expect(await registry.has(repository!, digest!)).toBe(false);
    expect(await lines(["images", "-aq", "--filter", `label=${LABEL_SITE}=${sites.app}`])).toEqual([]);
    expect(await lines(["volume", "ls", "-q", "--filter", `name=^${volume}$`])).toEqual([]);
    expect(await lines(["network", "ls", "-q", "--filter", `name=^${network}$`])).toEqual([]);
    // The edge left the app's network (it could not have been removed otherwise) and runs on.
    if (shape === "edge") expect(await edgeNetworks()).toEqual(["bridge"]);
    expect((await site(slugs.app, "/app/")).status).toBe(503);
  }, 180_000);
});
