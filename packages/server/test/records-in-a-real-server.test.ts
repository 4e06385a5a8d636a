import { watch } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { freePort, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_REPOS, json } from "./harness.js";
import { getWithHost, startServerProcess, type ServerProcess } from "./server-process.js";

// These faults were found against `reposite serve` on its embedded fs storage, so they are proved
// the same way: the built server in its own process, killed with SIGKILL or loaded with concurrent
// clients over loopback.

let github: FakeGitHub;
let dataDir: string;
let port: number;
let token: string;
let server: ServerProcess | undefined;

const env = () => ({ REPOSITE_DATA_DIR: dataDir, REPOSITE_GITHUB_API_URL: github.url });
const auth = { authorization: "" };

beforeAll(async () => {
  github = await startFakeGitHub({ repos: DEFAULT_REPOS });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-records-"));
  port = await freePort();
  const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
  const { account } = await reposite.accounts.findOrCreate("ada@example.com");
  token = (await reposite.tokens.create(account.id, { name: "load", lifetime: "30d" })).secret;
  auth.authorization = `Bearer ${token}`;
  await reposite.close();
  server = await startServerProcess(port, env());
});
afterAll(async () => {
  await server?.kill();
  await github.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function call(path: string, init: RequestInit = {}) {
  return fetch(`${server!.url}${path}`, { ...init, headers: { ...auth, ...init.headers } });
}

async function newProject(name: string): Promise<string> {
  const created = await call("/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli", name }, token));
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

async function waitForJobs(first: string) {
  for (let id: string | null = first; id; ) {
    let job = (await (await call(`/app/jobs/${id}`)).json()) as { status: string; next_job_id: string | null };
    while (job.status === "running") {
      await new Promise((resolve) => setTimeout(resolve, 20));
      job = await (await call(`/app/jobs/${id}`)).json();
    }
    expect(job.status).toBe("done");
    id = job.next_job_id;
  }
}

/** SIGKILLs the server `delayMs` after the first change inside `folder` (or after 3 s without one). */
async function killWhenChanged(folder: string, delayMs: number) {
  const running = server!;
  await new Promise<void>((resolve) => {
    const fallback = setTimeout(done, 3_000);
    const watcher = watch(folder, () => (delayMs ? setTimeout(done, delayMs) : done()));
    function done() {
      clearTimeout(fallback);
      watcher.close();
      running.child.kill("SIGKILL");
      resolve();
    }
  });
  await running.exited;
}

describe("a real server process on the embedded storage", () => {
  it("keeps a published site serving across ten SIGKILLs in the middle of publishing", async () => {
    const site = await newProject("Crash Proof");
    const started = (await (await call(`/app/sites/${site}/generate`, json({ mode: "website", pages: ["about", "faq"] }, token))).json()) as {
      job_id: string;
    };
    await waitForJobs(started.job_id);
    expect((await call(`/app/sites/${site}/slug`, json({ slug: "crash-proof" }, token))).status).toBe(200);
    expect((await call(`/app/sites/${site}/publish`, json({}, token))).status).toBe(200);
    const host = `crash-proof.localhost:${port}`;

    for (let kill = 0; kill < 10; kill++) {
      // Publishes back to back, and the kill is aimed: it lands the moment the published site's
      // record changes on disk (later and later into the write, round by round).
      let alive = true;
      const publisher = (async () => {
        while (alive) {
          await call(`/app/sites/${site}/publish`, json({}, token)).catch(() => (alive = false));
          await call(`/app/sites/${site}/publish-page`, json({ kind: "about" }, token)).catch(() => (alive = false));
        }
      })();
      await killWhenChanged(join(dataDir, "records", "published-sites"), kill % 3);
      alive = false;
      await publisher;

      server = await startServerProcess(port, env());
      const page = await getWithHost(`${server.url}/`, host);
      expect(page.status, `the site after kill ${kill + 1}`).toBe(200);
      expect(page.body).toContain("Crash Proof");
      const about = await getWithHost(`${server.url}/about`, host);
      expect(about.status, `/about after kill ${kill + 1}`).toBe(200);
      expect((await call(`/app/sites/${site}`)).status, `the project after kill ${kill + 1}`).toBe(200);
    }
  });

  it("authenticates 300 concurrent requests with one token, every one of them", async () => {
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 300 }, () => call("/agent/me").then((response) => response.status)));
      expect(answers.filter((status) => status !== 200), `round ${round + 1}`).toEqual([]);
    }
  });

  it("answers 50 clients changing and reading one project without a 404 or a 500", async () => {
    const site = await newProject("Busy");
    const statuses = new Map<number, number>();
    const deadline = Date.now() + 3_000;
    let changes = 0;
    await Promise.all(
      Array.from({ length: 50 }, async (_, client) => {
        for (let i = 0; Date.now() < deadline; i++) {
          const response =
            client % 2 === 0
              ? await call(`/app/sites/${site}`, json({ name: `Busy ${client}-${i}` }, token, "PATCH"))
              : await call(`/app/sites/${site}`);
          if (client % 2 === 0) changes++;
          await response.arrayBuffer();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        }
      }),
    );
    expect(changes).toBeGreaterThan(50);
    expect(Object.fromEntries(statuses)).toEqual({ 200: expect.any(Number) });
    const final = (await (await call(`/app/sites/${site}`)).json()) as { name: string };
    expect(final.name).toMatch(/^Busy \d+-\d+$/);
  });
});
