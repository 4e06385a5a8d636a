import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite, GENERATIONS_AT_A_TIME, SIGN_IN_EMAILS_PER_CLIENT_PER_HOUR } from "@reposite/core";
import { freePort, readOutbox, startFakeGitHub, startFakeOpenAI, type FakeGitHub, type FakeOpenAI } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_REPOS, json } from "./harness.js";
import { startServerProcess, type ServerProcess } from "./server-process.js";
import { MODEL_LANDING } from "./model-landing.js";

// These limits were found not to hold against `reposite serve` with concurrent clients, so they
// are proved the same way: the built server in its own process, over loopback.


let github: FakeGitHub;
let openai: FakeOpenAI;
let dataDir: string;
let token: string;
let server: ServerProcess | undefined;

beforeAll(async () => {
  github = await startFakeGitHub({ repos: DEFAULT_REPOS });
  // A slow model: a page takes seconds, so generations stay under way while the test races them.
  openai = await startFakeOpenAI({ replies: [JSON.stringify(MODEL_LANDING)], chunkSize: 4, delayMs: 100 });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-limits-"));
  const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
  const { account } = await reposite.accounts.findOrCreate("ada@example.com");
  token = (await reposite.tokens.create(account.id, { name: "race", lifetime: "30d" })).secret;
  await reposite.close();
  const port = await freePort();
  server = await startServerProcess(port, {
    REPOSITE_DATA_DIR: dataDir,
    REPOSITE_BASE_URL: `http://127.0.0.1:${port}`,
    REPOSITE_GITHUB_API_URL: github.url,
    OPENAI_BASE_URL: openai.url,
    OPENAI_API_KEY: "sk-test",
  });
});
afterAll(async () => {
  await server?.kill();
  await openai.close();
  await github.close();
  await rm(dataDir, { recursive: true, force: true });
});

const call = (path: string, init: RequestInit = {}) => fetch(`${server!.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });

describe(`${GENERATIONS_AT_A_TIME} generations at a time, with racing requests to a real server`, () => {
  it("starts exactly the allowed number; the others answer 429 generation_limit", async () => {
    const created = await call("/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli" }, token));
    expect(created.status).toBe(201);
    const siteId = ((await created.json()) as { id: string }).id;
    const generate = () => call(`/app/sites/${siteId}/generate`, json({ mode: "landing", regenerate: true }, token));
    const cancel = (jobId: string) => call(`/app/jobs/${jobId}/cancel`, { method: "POST" });

    const first = await Promise.all(Array.from({ length: 6 }, generate));
    const started = first.filter((response) => response.status === 202);
    const refused = first.filter((response) => response.status !== 202);
    expect(started).toHaveLength(GENERATIONS_AT_A_TIME);
    for (const response of refused) {
      expect(response.status).toBe(429);
      expect(await response.json()).toMatchObject({ code: "generation_limit" });
    }
    const running = await Promise.all(started.map(async (response) => ((await response.json()) as { job_id: string }).job_id));
    for (const jobId of running) expect((await (await call(`/app/jobs/${jobId}`)).json()).status).toBe("running");

    // One stops; with the other still under way, two racing requests start exactly one.
    expect((await (await cancel(running[0]!)).json()).status).toBe("cancelled");
    const second = await Promise.all([generate(), generate()]);
    expect(second.map((response) => response.status).sort()).toEqual([202, 429]);
    const again = (await second.find((response) => response.status === 202)!.json()) as { job_id: string };
    await Promise.all([cancel(running[1]!), cancel(again.job_id)]);
  });
});

describe("sign-in mail, limited per client address as well as per recipient", () => {
  const signIn = (email: string, headers: Record<string, string> = {}) =>
    fetch(`${server!.url}/account/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: server!.url, "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams({ email }).toString(),
    });

  it(`mails at most ${SIGN_IN_EMAILS_PER_CLIENT_PER_HOUR} different people an hour for one address, then answers 429`, async () => {
    for (let i = 0; i < SIGN_IN_EMAILS_PER_CLIENT_PER_HOUR; i++) {
      expect((await signIn(`person${i}@example.com`)).status).toBe(303);
    }
    const refused = await signIn("one-more@example.com");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.text()).toContain("Too many sign-in emails were asked for from your address");
    // Without REPOSITE_TRUST_PROXY a client cannot pick another address by saying so.
    expect((await signIn("and-another@example.com", { "x-forwarded-for": "198.51.100.23" })).status).toBe(429);
    // Agent login mails the same way and counts against the same address.
    const login = await fetch(`${server!.url}/agent/login`, json({ client: "cli", email: "agent-user@example.com" }));
    expect(login.status).toBe(201);
    expect(await login.json()).toMatchObject({ email_sent: false, email_error: expect.stringContaining("from your address") });

    const recipients = (await readOutbox(join(dataDir, "outbox"))).map((message) => message.to);
    expect(recipients).toHaveLength(SIGN_IN_EMAILS_PER_CLIENT_PER_HOUR);
    expect(recipients).not.toContain("one-more@example.com");
  });
});
