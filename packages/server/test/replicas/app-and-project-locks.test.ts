import { randomBytes } from "node:crypto";
import { LOCKS, type Locks } from "@reposite/core";
import { dockerForTests, postgresForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "../harness.js";
import { startReplicaSet, timeUntil, type ReplicaSet } from "./replica-set.js";

// The app of a project is hosting's record (`deployments:<site_id>`), under a lock of its own:
// a deploy on replica A and a generation on replica B of the same project do not wait on one lock
// key. Shown with two `reposite serve` replicas on one PostgreSQL: while the test process holds
// the lock an app write waits on (an env change through A stays pending), a generation of the
// same project through B runs to its end and its plan is stored. On the release before the split,
// both wrote the project record under `projects:<site_id>`, so holding that one lock stopped both.

const engine = await dockerForTests();
const postgres = postgresForTests();
const run = `locks-${randomBytes(4).toString("hex")}`;

describe.skipIf(!engine.available || !postgres.available)("an app's lock and its project's, across two replicas", () => {
  let set: ReplicaSet;
  let token: string;

  const api = async <T>(replica: number, path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`${set.replicas[replica]!.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  };

  beforeAll(async () => {
    // Hosting on (the env write needs a runtime); no app is deployed, and recovery looks only at this run's label.
    set = await startReplicaSet(2, { REPOSITE_HOSTING: "docker", REPOSITE_APP_LABELS: `reposite-test.run=${run}` });
    token = (await set.signUp("ada@example.com")).token;
  }, 120_000);
  afterAll(async () => {
    await set?.stopAll();
  }, 60_000);

  it("runs a generation through B to its end while the app's lock is held and an env change through A waits on it", async () => {
    const { id } = await api<{ id: string }>(0, "/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli", name: "Rocket" }, token));
    await api(0, `/app/sites/${id}/deployment`, json({}, token, "PUT"));
    const locks = (await set.direct()).container.resolve<Locks>(LOCKS);

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const taken = new Promise<void>((resolve) => (holding = resolve));
    const holder = locks.withLock(`deployments:${id}`, async () => {
      holding();
      await held;
    });
    await taken;
    try {
      let envDone = false;
      const envWrite = api(0, `/app/sites/${id}/deployment/env`, json({ env: { MODE: "prod" } }, token, "PUT")).then(() => (envDone = true));

      const started = performance.now();
      const generation = await api<{ job_id: string }>(1, `/app/sites/${id}/generate`, json({ mode: "website", pages: ["about"] }, token));
      await timeUntil(async () => (await api<{ status: string }>(1, `/app/jobs/${generation.job_id}`)).status !== "running", 60_000);
      expect((await api<{ status: string }>(1, `/app/jobs/${generation.job_id}`)).status).toBe("done");
      const project = await api<{ wizard: { mode: string; pages: string[] } | null }>(1, `/app/sites/${id}`);
      expect(project.wizard).toMatchObject({ mode: "website", pages: ["about"] });
      console.log(`[replicas] a generation ran through B in ${Math.round(performance.now() - started)} ms while the app's lock was held`);
      // The app's write is the one that waits: it is under the held lock.
      expect(envDone).toBe(false);

      release();
      await holder;
      await envWrite;
      expect(await api<{ env: Record<string, string> }>(0, `/app/sites/${id}/deployment/env`)).toEqual({ env: { MODE: expect.any(String) } });
    } finally {
      release();
      await holder.catch(() => undefined);
    }
  }, 120_000);
});
