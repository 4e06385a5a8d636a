import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { freePort, startFakeGitHub, type FakeGitHub, type FakeRepo } from "@reposite/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "./server-process.js";

// `reposite serve` pointed at an API that is not api.github.com (a mirror, a proxy, GitHub
// Enterprise): links are judged by the web address, and generation reads through the same host.
const ROCKET: FakeRepo = {
  owner: "acme",
  name: "rocket-cli",
  description: "Launch rockets from your terminal",
  topics: ["cli"],
  readme: "# Rocket CLI\n\nLaunch rockets from your terminal.\n",
};

let github: FakeGitHub | undefined;
let server: ServerProcess | undefined;
let dataDir: string | undefined;

afterEach(async () => {
  await server?.stop();
  await github?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  server = github = dataDir = undefined;
});

/** A token for a new account, written to the data directory before the server starts. */
async function tokenIn(dir: string): Promise<string> {
  const reposite = createReposite({ config: { dataDir: dir }, repoHosts: [] });
  try {
    const { account } = await reposite.accounts.findOrCreate("pat@example.com");
    return (await reposite.tokens.create(account.id, { name: "test", lifetime: "30d" })).secret;
  } finally {
    await reposite.close();
  }
}

async function serve(env: Record<string, string>): Promise<{ api: (path: string, body?: unknown) => Promise<{ status: number; body: any }> }> {
  dataDir = await mkdtemp(join(tmpdir(), "reposite-webhost-"));
  const token = await tokenIn(dataDir);
  server = await startServerProcess(await freePort(), { REPOSITE_DATA_DIR: dataDir, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", ...env });
  const base = server.url;
  return {
    async api(path, body) {
      const response = await fetch(`${base}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: await response.json() };
    },
  };
}

/** Starts a landing page and waits for its job to end. */
async function generate(api: Awaited<ReturnType<typeof serve>>["api"], siteId: string) {
  const started = await api(`/app/sites/${siteId}/generate`, { mode: "landing" });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  for (let attempt = 0; attempt < 200; attempt++) {
    const { body: job } = await api(`/app/jobs/${started.body.job_id}`);
    if (job.status !== "running") return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the generation job did not end");
}

describe("serve with REPOSITE_GITHUB_API_URL elsewhere", () => {
  it("accepts github.com links, creates and generates through the configured API", async () => {
    github = await startFakeGitHub({ repos: [ROCKET] });
    const { api } = await serve({ REPOSITE_GITHUB_API_URL: github.url });

    const created = await api("/app/sites", { repohost_url: "https://github.com/acme/rocket-cli" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.repohost_url).toBe("https://github.com/acme/rocket-cli");
    const job = await generate(api, created.body.id);
    expect(job).toMatchObject({ status: "done", error: null });
    expect(github.requests.filter((request) => request.path === "/repos/acme/rocket-cli").length).toBeGreaterThanOrEqual(2);

    // A link on the API's own host is not a repository link.
    const refused = await api("/app/sites", { repohost_url: `${github.url}/acme/rocket-cli` });
    expect(refused).toMatchObject({ status: 422, body: { code: "invalid_repo_url" } });
    expect(refused.body.error).toContain("Use a link like https://github.com/owner/repository.");
  });

  it("with REPOSITE_GITHUB_WEB_URL (GitHub Enterprise) accepts that host's links, stores them in its form and generates", async () => {
    // The fake names its own loopback origin in html_url: what the stored address must not follow.
    github = await startFakeGitHub({ repos: [ROCKET], pathPrefix: "/api/v3", webHost: "self" });
    const { api } = await serve({ REPOSITE_GITHUB_API_URL: github.url, REPOSITE_GITHUB_WEB_URL: "https://ghe.example.com" });

    const created = await api("/app/sites", { repohost_url: "ghe.example.com/acme/rocket-cli" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.repohost_url).toBe("https://ghe.example.com/acme/rocket-cli");
    expect((await api(`/app/sites/${created.body.id}`)).body.repohost_url).toBe("https://ghe.example.com/acme/rocket-cli");
    expect(await generate(api, created.body.id)).toMatchObject({ status: "done", error: null });
    expect(github.requests.some((request) => request.path.startsWith("/api/v3/repos/acme/rocket-cli"))).toBe(true);

    for (const link of ["https://github.com/acme/rocket-cli", "not a link"]) {
      const refused = await api("/app/sites", { repohost_url: link });
      expect(refused).toMatchObject({ status: 422, body: { code: "invalid_repo_url" } });
      expect(refused.body.error).toContain("Use a link like https://ghe.example.com/owner/repository.");
      expect(refused.body.error).not.toContain("github.com/owner");
    }
  });
});
