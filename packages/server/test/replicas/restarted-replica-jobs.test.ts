import { RepositeClient } from "@reposite/sdk";
import { freePort, postgresForTests, startFakeOpenAI, type FakeOpenAI } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, json } from "../harness.js";
import { MODEL_LANDING } from "../model-landing.js";
import { startServerProcess, type ServerProcess } from "../server-process.js";
import { startReplicaSet, type ReplicaSet } from "./replica-set.js";

// A replica killed with SIGKILL and started again on its own data directory is the same replica
// (hosting/replica-identity's id): at start it ends the jobs it ran before the crash at once, as
// `aborted`, instead of leaving them `running` for the minute a heartbeat takes to go stale (its
// lease, renewed by the new process, says it is alive). The account's generation slots free with them.

const postgres = postgresForTests();

describe.skipIf(!postgres.available)("a replica restarted on its own data directory after SIGKILL", () => {
  let set: ReplicaSet;
  let openai: FakeOpenAI;
  let restarted: ServerProcess | undefined;
  let token: string;
  let siteId: string;

  beforeAll(async () => {
    // A slow model: a page takes about 15 s, so the generations are under way when the replica dies.
    openai = await startFakeOpenAI({ replies: [JSON.stringify(MODEL_LANDING)], chunkSize: 4, delayMs: 60 });
    set = await startReplicaSet(1, { OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "sk-test" });
    ({ token } = await set.signUp("restarted@example.com"));
    const created = await fetch(`${set.replicas[0]!.url}/app/sites`, json({ repohost_url: "https://github.com/acme/rocket-cli" }, token));
    siteId = ((await created.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await restarted?.stop();
    await set?.stopAll();
    await openai?.close();
  });

  it("ends its jobs from before the crash at start, and the account may generate again at once", async () => {
    const replica = set.replicas[0]!;
    const generate = (url: string) => fetch(`${url}/app/sites/${siteId}/generate`, json({ mode: "landing", regenerate: true }, token));
    const jobIds: string[] = [];
    for (let n = 0; n < 2; n++) {
      const started = await generate(replica.url);
      expect(started.status).toBe(202);
      jobIds.push(((await started.json()) as { job_id: string }).job_id);
    }
    // Both write text: they run in the replica about to die.
    const client = new RepositeClient({ baseURL: replica.url, token });
    for (const jobId of jobIds) {
      for await (const event of client.jobs.stream(jobId)) if (event.type === "delta") break;
    }
    await replica.kill();

    const killedAt = performance.now();
    restarted = await startServerProcess(await freePort(), {
      REPOSITE_DATA_DIR: replica.dataDir,
      REPOSITE_DATABASE_URL: set.database.url,
      REPOSITE_SECRET_KEY: set.secretKey,
      REPOSITE_HOSTING: "off",
      REPOSITE_GITHUB_API_URL: set.github.url,
      REPOSITE_SITES_DOMAIN: "sites.test",
      OPENAI_BASE_URL: openai.url,
      OPENAI_API_KEY: "sk-test",
    });
    const readyAfterMs = performance.now() - killedAt;
    // Ended before the restarted replica answered its first request, not a minute later.
    for (const jobId of jobIds) {
      const job = (await (await fetch(`${restarted.url}/app/jobs/${jobId}`, bearer(token))).json()) as { status: string; error: string | null };
      expect(job.status, `job ${jobId}, ${Math.round(readyAfterMs)} ms after the kill`).toBe("aborted");
      expect(job.error).toBeTruthy();
    }
    expect(restarted.output().stdout).toContain("2 jobs left running by this replica's last run ended aborted");
    // Two generations at a time per account: both slots are free again.
    for (let n = 0; n < 2; n++) expect((await generate(restarted.url)).status).toBe(202);
  }, 120_000);
});
