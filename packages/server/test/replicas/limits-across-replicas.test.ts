import { join } from "node:path";
import { GENERATIONS_AT_A_TIME, SIGN_IN_EMAILS_PER_CLIENT_PER_HOUR } from "@reposite/core";
import { postgresForTests, readOutbox, startFakeOpenAI, type FakeOpenAI } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "../harness.js";
import { startReplicaSet, type ReplicaSet } from "./replica-set.js";
import { MODEL_LANDING } from "../model-landing.js";

// The limits are counted in records under the LOCKS port, so they hold across replicas sharing
// PostgreSQL: proved with requests spread over three replicas by a round-robin balancer.

const postgres = postgresForTests();


describe.skipIf(!postgres.available)("limits across three replicas on one PostgreSQL", () => {
  let set: ReplicaSet;
  let openai: FakeOpenAI;
  let token: string;
  const call = (path: string, init: RequestInit = {}) => fetch(`${set.balancer.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });

  beforeAll(async () => {
    // A slow model: a page takes seconds, so generations stay under way while the test races them.
    openai = await startFakeOpenAI({ replies: [JSON.stringify(MODEL_LANDING)], chunkSize: 4, delayMs: 100 });
    set = await startReplicaSet(3, { OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "sk-test" });
    ({ token } = await set.signUp("racer@example.com"));
  });
  afterAll(async () => {
    await set?.stopAll();
    await openai?.close();
  });

  it(`six racing generations spread over three replicas start exactly ${GENERATIONS_AT_A_TIME}`, async () => {
    const created = await call("/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli" }, token));
    expect(created.status).toBe(201);
    const siteId = ((await created.json()) as { id: string }).id;
    const generate = () => call(`/app/sites/${siteId}/generate`, json({ mode: "landing", regenerate: true }, token));
    const servedBefore = set.balancer.served.length;

    const answers = await Promise.all(Array.from({ length: 6 }, generate));
    // Each replica took two of the six.
    expect(new Set(set.balancer.served.slice(servedBefore))).toEqual(new Set([0, 1, 2]));
    const started = answers.filter((response) => response.status === 202);
    expect(started).toHaveLength(GENERATIONS_AT_A_TIME);
    for (const refused of answers.filter((response) => response.status !== 202)) {
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: "generation_limit" });
    }
    const jobs = await Promise.all(started.map(async (response) => ((await response.json()) as { job_id: string }).job_id));
    for (const jobId of jobs) expect(((await (await call(`/app/jobs/${jobId}`)).json()) as { status: string }).status).toBe("running");
    // Cancelled through whichever replica the balancer picks, not necessarily the one running it.
    for (const jobId of jobs) expect(((await (await call(`/app/jobs/${jobId}/cancel`, { method: "POST" })).json()) as { status: string }).status).toBe("cancelled");
  });

  it(`sign-in mail: at most ${SIGN_IN_EMAILS_PER_CLIENT_PER_HOUR} people an hour for one address, counted on every replica together`, async () => {
    const signIn = (email: string) =>
      fetch(`${set.balancer.url}/account/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { origin: set.balancer.url, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email }).toString(),
      });
    const answers = await Promise.all(Array.from({ length: SIGN_IN_EMAILS_PER_CLIENT_PER_HOUR + 3 }, (_, i) => signIn(`person${i}@example.com`)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 303)).toHaveLength(SIGN_IN_EMAILS_PER_CLIENT_PER_HOUR);
    expect(statuses.filter((status) => status === 429)).toHaveLength(3);
    // Every replica writes its own outbox (mail is not shared): together they sent the allowed number.
    const outboxes = await Promise.all(set.replicas.map((replica) => readOutbox(join(replica.dataDir, "outbox"))));
    expect(outboxes.flat()).toHaveLength(SIGN_IN_EMAILS_PER_CLIENT_PER_HOUR);
  });
});
