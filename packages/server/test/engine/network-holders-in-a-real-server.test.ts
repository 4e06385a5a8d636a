import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { buildLocalBaseImages, buildLocalPauseImage, docker, dockerForTests, freePort, getWithHost, removeLabelled, startFakeGitHub, type FakeGitHub, type FakeRepo } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "../harness.js";
import { startServerProcess, type ServerProcess } from "../server-process.js";

/**
 * Redeploys through `reposite serve` in its own process, as `npm run bench:deploy` found the start
 * of a container on the app's own network slow: with REPOSITE_NETWORK_HOLDER_IMAGE the app's
 * containers start in network holders, two per app used in turn; a restarted server finds the app
 * and its port again; removing the app removes its holders.
 */
const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `holders-${randomBytes(4).toString("hex")}`;

const ids = async (args: string[]) => (await docker(args)).stdout.split("\n").filter(Boolean);
const byLabel = (...labels: string[]) => ids(["ps", "-aq", "--no-trunc", ...labels.flatMap((label) => ["--filter", `label=${label}`])]);
const networkModeOf = async (id: string) => (await docker(["inspect", "--format", "{{.HostConfig.NetworkMode}}", id])).stdout.trim();

describe.skipIf(!engine.available)("network holders through a real server process", () => {
  let github: FakeGitHub;
  let server: ServerProcess;
  let dataDir: string;
  let port: number;
  let token: string;
  let env: Record<string, string>;
  let node = "";
  let site = "";
  let host = "";

  const repo = (mark: string): FakeRepo => ({
    owner: "acme",
    name: `held-${run.slice(-8)}`,
    files: {
      Dockerfile: [`FROM ${node}`, "WORKDIR /app", "COPY . .", "USER node", 'CMD ["node", "server.js"]', ""].join("\n"),
      "server.js": "require('node:http').createServer((q, s) => s.end(require('node:fs').readFileSync(__dirname + '/mark.txt'))).listen(process.env.PORT);\n",
      "mark.txt": mark,
    },
  });
  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  };
  const deploy = async (mark: string) => {
    github.addRepo(repo(mark));
    const { job_id } = await api<{ job_id: string }>(`/app/sites/${site}/deployment/deploy`, { method: "POST" });
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const job = await api<{ status: string; finished_at: string | null }>(`/app/jobs/${job_id}`);
      if (!job.finished_at) continue;
      const deployment = await api<{ slug: string; last_run: { reason: string | null } | null }>(`/app/sites/${site}/deployment`);
      if (job.status !== "done") throw new Error(`deploy ${mark} ended ${job.status}: ${deployment.last_run?.reason}`);
      host = `${deployment.slug}.localhost:${port}`;
      return;
    }
    throw new Error(`deploy ${mark} did not finish`);
  };
  /** What /app/ answers, asked until it is `mark` (traffic switches at the new container's first answer) or 30 s passed. */
  const appAnswer = async (mark: string) => {
    let last = await getWithHost(`http://127.0.0.1:${port}/app/`, host);
    for (const deadline = Date.now() + 30_000; last.body !== mark && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      last = await getWithHost(`http://127.0.0.1:${port}/app/`, host);
    }
    return last;
  };
  /** The app's containers (not its holders) on the Engine, any state. */
  const appContainers = () => byLabel(`${RUN_LABEL}=${run}`, "dev.reposite.role=app");
  const holders = () => byLabel(`${RUN_LABEL}=${run}`, "dev.reposite.role=network-holder");
  /** Old containers are retired in the background after traffic switched: waits until one is left. */
  const oneContainerLeft = async () => {
    for (let tries = 0; tries < 100 && (await appContainers()).length > 1; tries++) await new Promise((resolve) => setTimeout(resolve, 200));
    return appContainers();
  };

  beforeAll(async () => {
    node = (await buildLocalBaseImages()).node;
    const pause = await buildLocalPauseImage();
    github = await startFakeGitHub({ repos: [repo("setup")] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-holders-real-"));
    port = await freePort();
    const setup = createReposite({ config: { dataDir }, repoHosts: [] });
    const { account } = await setup.accounts.findOrCreate(`owner-${run}@example.com`);
    token = (await setup.tokens.create(account.id, { name: "holders", lifetime: "30d" })).secret;
    await setup.close();
    env = {
      REPOSITE_DATA_DIR: dataDir,
      REPOSITE_BASE_URL: `http://127.0.0.1:${port}`,
      REPOSITE_GITHUB_API_URL: github.url,
      REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
      REPOSITE_NETWORK_HOLDER_IMAGE: pause,
    };
    server = await startServerProcess(port, env);
    const { owner, name } = repo("setup");
    site = (await api<{ id: string }>("/app/sites", json({ repohost_url: `https://github.com/${owner}/${name}`, name }))).id;
    await api(`/app/sites/${site}/deployment`, json({}, undefined, "PUT"));
  }, 300_000);

  afterAll(async () => {
    await server?.kill();
    await github?.close();
    await removeLabelled(RUN_LABEL, run);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 120_000);

  it("three deploys: each answers at /app/, the third starts in the holder the first left; two holders, the app's containers only in the server's view", async () => {
    await deploy("one");
    expect(await appAnswer("one")).toEqual({ status: 200, body: "one" });
    const [first] = await oneContainerLeft();
    const firstHolder = await networkModeOf(first!);
    expect(firstHolder).toMatch(/^container:[0-9a-f]{64}$/);

    await deploy("two");
    expect(await appAnswer("two")).toEqual({ status: 200, body: "two" });
    const [second] = await oneContainerLeft();
    expect(await networkModeOf(second!)).not.toBe(firstHolder);

    await deploy("three");
    expect(await appAnswer("three")).toEqual({ status: 200, body: "three" });
    const [third] = await oneContainerLeft();
    expect(await networkModeOf(third!)).toBe(firstHolder);
    expect(await holders()).toHaveLength(2);
  }, 300_000);

  it("a restarted server finds the app in its holder and routes /app/ to it again", async () => {
    await server.stop();
    server = await startServerProcess(port, env);
    expect(await appAnswer("three")).toEqual({ status: 200, body: "three" });
  }, 120_000);

  it("removing the app removes its containers, its holders and its network", async () => {
    await api(`/app/sites/${site}/deployment`, { method: "DELETE" });
    expect(await appContainers()).toEqual([]);
    expect(await holders()).toEqual([]);
    expect(await ids(["network", "ls", "-q", "--filter", `label=${RUN_LABEL}=${run}`])).toEqual([]);
  }, 120_000);
});
