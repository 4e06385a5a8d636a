import { RepositeClient, type JobStreamEvent } from "@reposite/sdk";
import { postgresForTests, startBalancer, startFakeOpenAI, type Balancer, type FakeOpenAI } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, json } from "../harness.js";
import { startReplicaSet, type ReplicaSet } from "./replica-set.js";
import { MODEL_LANDING } from "../model-landing.js";

// A job runs in the replica that started it; its deltas travel over the EVENTS port (PostgreSQL's
// LISTEN/NOTIFY here) and are stored in chunks, so a stream on any replica follows it live, and a
// client whose replica is killed resumes on another with `from` and loses nothing.

const postgres = postgresForTests();


interface Followed {
  deltas: number[];
  text: string;
  end: JobStreamEvent | undefined;
}

describe.skipIf(!postgres.available)("job streams across three replicas on one PostgreSQL", () => {
  let set: ReplicaSet;
  let openai: FakeOpenAI;
  let token: string;
  let siteId: string;
  let pair: Balancer | undefined;

  const api = (replica: number, path: string, init?: RequestInit) => fetch(`${set.replicas[replica]!.url}${path}`, init);
  /** A generation started through replica A (index 0): its job runs there. */
  const startOnA = async () => {
    const answer = await api(0, `/app/sites/${siteId}/generate`, json({ mode: "landing", regenerate: true }, token));
    expect(answer.status).toBe(202);
    return ((await answer.json()) as { job_id: string }).job_id;
  };
  const follow = async (client: RepositeClient, jobId: string, onDelta?: () => void): Promise<Followed> => {
    const followed: Followed = { deltas: [], text: "", end: undefined };
    for await (const event of client.jobs.stream(jobId, { maxReconnects: 10 })) {
      if (event.type === "delta") {
        followed.deltas.push(event.i);
        followed.text += event.t;
        onDelta?.();
      } else if (event.type !== "meta") followed.end = event;
    }
    return followed;
  };

  beforeAll(async () => {
    // A slow model: about 15 s a page, in small pieces.
    openai = await startFakeOpenAI({ replies: [JSON.stringify(MODEL_LANDING)], chunkSize: 4, delayMs: 60 });
    set = await startReplicaSet(3, { OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "sk-test" });
    ({ token } = await set.signUp("streamer@example.com"));
    const created = await api(0, "/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli" }, token));
    siteId = ((await created.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await pair?.close();
    await set?.stopAll();
    await openai?.close();
  });

  it("follows, from replica B, a job running on replica A, live: deltas arrive while it runs, in order, none missing", async () => {
    const jobId = await startOnA();
    const onB = new RepositeClient({ baseURL: set.replicas[1]!.url, token });
    let statusAtFirstDelta: Promise<string> | undefined;
    const followed = await follow(onB, jobId, () => {
      statusAtFirstDelta ??= api(0, `/app/jobs/${jobId}`, bearer(token)).then(async (answer) => ((await answer.json()) as { status: string }).status);
    });
    // The first delta reached B while the job still ran on A (live, not replayed at the end).
    expect(await statusAtFirstDelta).toBe("running");
    expect(followed.deltas.length).toBeGreaterThan(10);
    expect(followed.end?.type).toBe("done");
    expect(followed.deltas).toEqual(followed.deltas.map((_, i) => i));
    // The same text as the stored one, read afterwards from replica C.
    const stored = await follow(new RepositeClient({ baseURL: set.replicas[2]!.url, token }), jobId);
    expect(followed.text).toBe(stored.text);
  });

  it("twenty streams on replicas B and C, B killed with SIGKILL mid-job: every stream resumes with `from` and loses nothing", async () => {
    const jobId = await startOnA();
    // Clients reach B and C only, in turn, through a balancer of their own (A runs the job and stays up).
    pair = await startBalancer([set.replicas[1]!.url, set.replicas[2]!.url]);
    const client = new RepositeClient({ baseURL: pair.url, token, maxRetries: 5 });
    let started = 0;
    let killed: Promise<void> | undefined;
    /** Deltas the streams received after B was killed: the job went on meanwhile. */
    let afterKill = 0;
    const streams = Array.from({ length: 20 }, () => {
      let first = true;
      return follow(client, jobId, () => {
        if (killed) afterKill += 1;
        if (!first) return;
        first = false;
        started += 1;
        // Once every stream has its first delta, B dies under half of them.
        if (started === 20) killed = set.replicas[1]!.kill();
      });
    });
    const followed = await Promise.all(streams);
    await killed;
    expect(afterKill).toBeGreaterThan(20 * 10);
    expect(set.replicas[1]!.child.signalCode).toBe("SIGKILL");
    const whole = await follow(new RepositeClient({ baseURL: set.replicas[2]!.url, token }), jobId);
    expect(whole.end?.type).toBe("done");
    for (const each of followed) {
      expect(each.end?.type).toBe("done");
      expect(each.deltas).toEqual(whole.deltas);
      expect(each.text).toBe(whole.text);
    }
  });
});
