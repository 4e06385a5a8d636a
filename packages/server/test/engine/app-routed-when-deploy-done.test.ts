import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { buildLocalBaseImages, dockerForTests, freePort, getWithHost, removeLabelled, startFakeGitHub, type FakeGitHub, type FakeRepo } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "../harness.js";
import { fetchThroughReloads, startServerProcess, stopLeftNginx, type ServerProcess } from "../server-process.js";

/**
 * A deploy that says `done` is routed already: `/app/` answers from the new container the moment
 * the job says `done`, with no 404 or 503 in between (a real-server test once saw
 * `/app/` answer 404 right after a first deploy ended). Through `reposite serve` in its own process.
 */
const engine = await dockerForTests();
const nginxHere = await new Promise<boolean>((resolve) => execFile("nginx", ["-v"], (error) => resolve(!error)));
if (process.env.REPOSITE_REQUIRE_DOCKER === "1" && !nginxHere) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but nginx is not installed (apt-get install nginx)");
const RUN_LABEL = "reposite-test.run";
const runs = `routed-${randomBytes(4).toString("hex")}`;
/** Requests sent right after each `done` frame. */
const ASKS = 40;

// Node alone, and nginx in front (REPOSITE_EDGE=nginx), which sends /app/ straight to containers.
describe.each([
  { shape: "node", edge: {} as Record<string, string> },
  { shape: "nginx", edge: { REPOSITE_EDGE: "nginx" } as Record<string, string> },
])("/app/ answers from the new container as soon as a deploy is done ($shape)", ({ shape, edge }) => {
  const run = `${runs}-${shape}`;
  let github: FakeGitHub;
  let server: ServerProcess;
  let dataDir: string;
  let port: number;
  let token: string;
  let node = "";
  let site = "";
  let host = "";

  const repo = (mark: string): FakeRepo => ({
    owner: "acme",
    name: `routed-${run.slice(-8)}`,
    files: {
      Dockerfile: [`FROM ${node}`, "WORKDIR /app", "COPY . .", "USER node", 'CMD ["node", "server.js"]', ""].join("\n"),
      "server.js": "require('node:http').createServer((q, s) => s.end(require('node:fs').readFileSync(__dirname + '/mark.txt'))).listen(process.env.PORT);\n",
      "mark.txt": mark,
    },
  });
  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetchThroughReloads(`http://127.0.0.1:${port}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  };

  /** Deploys `mark` and, the moment the job says it ended, asks /app/ ASKS times (one after another, then all at once). */
  const deployAndAsk = async (mark: string) => {
    github.addRepo(repo(mark));
    const { job_id } = await api<{ job_id: string }>(`/app/sites/${site}/deployment/deploy`, { method: "POST" });
    // Asked every 20 ms (through nginx a job stream is cut at a reload, which is the edge's own matter).
    let job = await api<{ status: string; finished_at: string | null }>(`/app/jobs/${job_id}`);
    for (const deadline = Date.now() + 120_000; !job.finished_at && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
      job = await api(`/app/jobs/${job_id}`);
    }
    const answers = [];
    for (let i = 0; i < ASKS / 2; i++) answers.push(await getWithHost(`http://127.0.0.1:${port}/app/`, host));
    answers.push(...(await Promise.all(Array.from({ length: ASKS / 2 }, () => getWithHost(`http://127.0.0.1:${port}/app/`, host)))));
    return { ended: job.status, answers };
  };

  beforeAll(async () => {
    if (!engine.available || (shape === "nginx" && !nginxHere)) return;
    node = (await buildLocalBaseImages()).node;
    github = await startFakeGitHub({ repos: [repo("setup")] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-routed-"));
    port = await freePort();
    const setup = createReposite({ config: { dataDir }, repoHosts: [] });
    const { account } = await setup.accounts.findOrCreate(`owner-${run}@example.com`);
    token = (await setup.tokens.create(account.id, { name: "routed", lifetime: "30d" })).secret;
    await setup.close();
    server = await startServerProcess(port, {
      REPOSITE_DATA_DIR: dataDir,
      REPOSITE_BASE_URL: `http://127.0.0.1:${port}`,
      REPOSITE_GITHUB_API_URL: github.url,
      REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
      REPOSITE_NETWORK_HOLDER_IMAGE: "off",
      ...edge,
    });
    const { owner, name } = repo("setup");
    site = (await api<{ id: string }>("/app/sites", json({ repohost_url: `https://github.com/${owner}/${name}`, name }))).id;
    const deployment = await api<{ slug: string }>(`/app/sites/${site}/deployment`, json({}, undefined, "PUT"));
    host = `${deployment.slug}.localhost:${port}`;
    // Asked before any deploy, as a person opening the address early does: not running yet.
    expect((await getWithHost(`http://127.0.0.1:${port}/app/`, host)).status).toBe(503);
  }, 300_000);

  afterAll(async () => {
    await server?.kill();
    if (dataDir) await stopLeftNginx(dataDir);
    await github?.close();
    await removeLabelled(RUN_LABEL, run);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 120_000);

  const needs = engine.available && (shape === "node" || nginxHere);
  it.runIf(needs)("the first deploy: every request after it is done gets the app's answer", async () => {
    const { ended, answers } = await deployAndAsk("one");
    expect(ended).toBe("done");
    expect(answers.filter((answer) => answer.status !== 200 || answer.body !== "one")).toEqual([]);
  }, 180_000);

  it.runIf(needs)("a redeploy: every request after it is done gets the new container's answer", async () => {
    const { ended, answers } = await deployAndAsk("two");
    expect(ended).toBe("done");
    expect(answers.filter((answer) => answer.status !== 200 || answer.body !== "two")).toEqual([]);
  }, 180_000);
});
