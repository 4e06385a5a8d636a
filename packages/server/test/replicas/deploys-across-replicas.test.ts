import { randomBytes } from "node:crypto";
import { SERVER_STOPPED_REASON } from "@reposite/core";
import { buildLocalBaseImages, dockerForTests, postgresForTests, removeLabelled, startFakeGitHub, type FakeRepo } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "../harness.js";
import { requestHost, SITES_DOMAIN, startReplicaSet, timeUntil, type ReplicaSet } from "./replica-set.js";

// Two `reposite serve` replicas on one PostgreSQL and the same Docker Engine. Each run belongs to
// the replica whose work waits for it or runs it, and each replica renews a lease: replica A is
// killed with SIGKILL in the middle of a build, and replica B ends that run `failed` with the
// reason within the lease, takes A's queued run over and deploys it, while the app deployed
// earlier through A keeps answering through B.

const engine = await dockerForTests();
const postgres = postgresForTests();
const RUN_LABEL = "reposite-test.run";
const run = `replicas-${randomBytes(4).toString("hex")}`;
/** Short, so the test is quick; the default is 15 s. */
const LEASE_SECONDS = 3;

const appJs = (name: string) =>
  `require("node:http").createServer((req, res) => res.end("hello from ${name}")).listen(Number(process.env.PORT) || 3000, "0.0.0.0");\nprocess.on("SIGTERM", () => process.exit(0));\n`;
const appRepo = (name: string, node: string, steps: string[] = []): FakeRepo => ({
  owner: "acme",
  name: `${name}-${run.slice(-8)}`,
  files: { Dockerfile: [`FROM ${node}`, `LABEL ${RUN_LABEL}=${run}`, "WORKDIR /app", ...steps, "COPY app.js ./", 'CMD ["node", "app.js"]', ""].join("\n"), "app.js": appJs(name) },
});

interface RunView {
  status: string;
  finished_at: string | null;
  diagnosis?: { title: string } | null;
}

describe.skipIf(!engine.available || !postgres.available)("deploys across two replicas on the Docker Engine", () => {
  let set: ReplicaSet;
  const tokens = { ada: "", bob: "" };
  const repos: Record<"first" | "slow" | "queued" | "short" | "waiting", FakeRepo> = {} as never;

  const api = async <T>(replica: number, path: string, token: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`${set.replicas[replica]!.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  /** A project with its app set up, and its deploy started through `replica`. */
  const startDeploy = async (replica: number, token: string, repo: FakeRepo) => {
    const { id } = await api<{ id: string }>(replica, "/app/sites", token, json({ repohost_url: `https://github.com/acme/${repo.name}`, name: repo.name }));
    await api(replica, `/app/sites/${id}/deployment`, token, json({}, undefined, "PUT"));
    const started = await api<{ job_id: string; run_id: string }>(replica, `/app/sites/${id}/deployment/deploy`, token, { method: "POST" });
    return { siteId: id, ...started };
  };
  const lastRun = async (replica: number, token: string, siteId: string) => (await api<{ last_run: RunView; slug: string }>(replica, `/app/sites/${siteId}/deployment`, token)).last_run;

  beforeAll(async () => {
    const images = await buildLocalBaseImages();
    repos.first = appRepo("first", images.node);
    repos.slow = appRepo("slow", images.node, ["RUN sleep 60"]);
    repos.queued = appRepo("queued", images.node);
    repos.short = appRepo("short", images.node, ["RUN sleep 3"]);
    repos.waiting = appRepo("waiting", images.node);
    const github = await startFakeGitHub({ repos: Object.values(repos) });
    set = await startReplicaSet(
      2,
      {
        REPOSITE_HOSTING: "docker",
        REPOSITE_BASE_IMAGE_NODE: images.node,
        REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
        REPOSITE_BUILD_CONCURRENCY: "1",
        REPOSITE_BUILD_MEMORY_MB: "512",
        REPOSITE_REPLICA_LEASE_SECONDS: String(LEASE_SECONDS),
      },
      { github },
    );
    tokens.ada = (await set.signUp("ada@example.com")).token;
    tokens.bob = (await set.signUp("bob@example.com")).token;
  }, 120_000);
  afterAll(async () => {
    await set?.stopAll();
    await removeLabelled(RUN_LABEL, run);
  }, 60_000);

  it("gives the slot a build on replica A frees to the run waiting on replica B", async () => {
    const building = await startDeploy(0, tokens.ada, repos.short);
    await timeUntil(async () => (await lastRun(0, tokens.ada, building.siteId)).status === "building", 30_000);
    const waiting = await startDeploy(1, tokens.bob, repos.waiting);
    expect((await lastRun(1, tokens.bob, waiting.siteId)).status).toBe("queued");
    await timeUntil(async () => (await lastRun(0, tokens.ada, building.siteId)).status === "done", 60_000);
    const freedAt = performance.now();
    await timeUntil(async () => (await lastRun(1, tokens.bob, waiting.siteId)).status !== "queued", 5_000);
    console.log(`[replicas] a slot freed on A reached the run waiting on B after ${Math.round(performance.now() - freedAt)} ms`);
    await timeUntil(async () => (await lastRun(1, tokens.bob, waiting.siteId)).status === "done", 60_000);
  }, 120_000);

  it("serves through replica B an app deployed through replica A, and B ends A's run failed and deploys A's queued run after A is killed", async () => {
    // An app deployed through A: B's /app/ table hears of it over EVENTS.
    const first = await startDeploy(0, tokens.ada, repos.first);
    await timeUntil(async () => (await lastRun(0, tokens.ada, first.siteId)).status === "done", 90_000);
    const { slug } = await api<{ slug: string }>(0, `/app/sites/${first.siteId}/deployment`, tokens.ada);
    const appOnB = () => requestHost(set.replicas[1]!.url, `${slug}.${SITES_DOMAIN}`, "/app/");
    await timeUntil(async () => (await appOnB()).body === "hello from first", 1_000);

    // Through A: Ada's slow build takes the one slot, Bob's deploy waits behind it.
    const slow = await startDeploy(0, tokens.ada, repos.slow);
    await timeUntil(async () => (await lastRun(0, tokens.ada, slow.siteId)).status === "building", 30_000);
    const queued = await startDeploy(0, tokens.bob, repos.queued);
    expect((await lastRun(0, tokens.bob, queued.siteId)).status).toBe("queued");

    await set.replicas[0]!.kill();
    const killedAt = performance.now();
    await timeUntil(async () => (await lastRun(1, tokens.ada, slow.siteId)).status === "failed", 30_000);
    const foundMs = performance.now() - killedAt;
    const failed = await api<{ status: string; reason: string | null }>(1, `/app/sites/${slow.siteId}/deployment/runs/${slow.run_id}`, tokens.ada);
    expect(failed).toMatchObject({ status: "failed", reason: SERVER_STOPPED_REASON });
    const job = await api<{ status: string; finished_at: string | null }>(1, `/app/jobs/${slow.job_id}`, tokens.ada);
    expect(job.finished_at).not.toBeNull();
    // Found within the lease and half a lease more (the watch's period), plus a little for the work.
    console.log(`[replicas] a run of a killed replica ended failed after ${Math.round(foundMs)} ms (lease ${LEASE_SECONDS} s)`);
    expect(foundMs).toBeLessThan(LEASE_SECONDS * 1500 + 2_000);

    // Bob's queued run was taken over by B and deployed there; the earlier app still answers.
    await timeUntil(async () => (await lastRun(1, tokens.bob, queued.siteId)).status === "done", 90_000);
    const bobSlug = (await api<{ slug: string }>(1, `/app/sites/${queued.siteId}/deployment`, tokens.bob)).slug;
    expect((await requestHost(set.replicas[1]!.url, `${bobSlug}.${SITES_DOMAIN}`, "/app/")).body).toBe("hello from queued");
    expect((await appOnB()).body).toBe("hello from first");
  }, 240_000);
});
