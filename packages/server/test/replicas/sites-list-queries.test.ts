import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createConnection, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite, type Reposite } from "@reposite/core";
import { createPostgresPorts } from "@reposite/provider-postgres";
import { freePort, postgresForTests, startFakeGitHub, startPostgres, type FakeGitHub, type TestPostgres } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, DEFAULT_REPOS, json } from "../harness.js";
import { startServerProcess, type ServerProcess } from "../server-process.js";

// `GET /app/sites` answers from memory once warm; what is left per request is the token check.
// Counted on the wire between a real `reposite serve` and PostgreSQL (a proxy that counts the
// queries the server sends): one query per request (the token's record, read every time so a
// revocation holds on every replica at once), not three (its hash's index and its account too,
// which never change once written). Where bench:replicas found the p99 of this list high.

const postgres = postgresForTests();

/** A TCP proxy to PostgreSQL counting the queries clients send (`Sync` ends an extended-protocol query, `Query` is a simple one). */
async function countingProxy(target: number): Promise<{ port: number; queries(): number; close(): Promise<void> }> {
  let queries = 0;
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: "127.0.0.1", port: target });
    let buffered = Buffer.alloc(0);
    let started = false;
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk);
      buffered = Buffer.concat([buffered, chunk]);
      // The startup message has no type byte: a length, then the rest.
      if (!started) {
        if (buffered.length < 4) return;
        const length = buffered.readInt32BE(0);
        if (buffered.length < length) return;
        buffered = buffered.subarray(length);
        started = true;
      }
      while (buffered.length >= 5) {
        const length = buffered.readInt32BE(1);
        if (buffered.length < 1 + length) break;
        const type = String.fromCharCode(buffered[0]!);
        if (type === "S" || type === "Q") queries += 1;
        buffered = buffered.subarray(1 + length);
      }
    });
    upstream.on("data", (chunk) => client.write(chunk));
    const end = () => (client.destroy(), upstream.destroy());
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    queries: () => queries,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!postgres.available)("GET /app/sites warm, on PostgreSQL", () => {
  let database: TestPostgres;
  let github: FakeGitHub;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  let server: ServerProcess;
  let direct: Reposite;
  const dirs: string[] = [];

  beforeAll(async () => {
    [database, github] = await Promise.all([startPostgres(), startFakeGitHub({ repos: DEFAULT_REPOS })]);
    proxy = await countingProxy(database.port);
    const secretKey = randomBytes(32).toString("base64");
    for (let n = 0; n < 2; n++) dirs.push(await mkdtemp(join(tmpdir(), "reposite-list-queries-")));
    direct = createReposite({ config: { dataDir: dirs[0]! }, repoHosts: [], secretKey, ...createPostgresPorts({ url: database.url }) });
    server = await startServerProcess(await freePort(), {
      REPOSITE_DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`,
      REPOSITE_DATA_DIR: dirs[1]!,
      REPOSITE_SECRET_KEY: secretKey,
      REPOSITE_HOSTING: "off",
      REPOSITE_GITHUB_API_URL: github.url,
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await direct?.close();
    await proxy?.close();
    await github?.close();
    await database?.stop();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it("costs one database query per request once warm: the token's record", async () => {
    const { account } = await direct.accounts.findOrCreate("lister@example.com");
    const token = (await direct.tokens.create(account.id, { name: "list", lifetime: "30d" })).secret;
    for (let n = 0; n < 3; n++) expect((await fetch(`${server.url}/app/sites`, json({ repohost_url: "https://github.com/acme/rocket-cli" }, token))).status).toBe(201);
    const list = () => fetch(`${server.url}/app/sites`, bearer(token));
    for (let n = 0; n < 5; n++) expect((await list()).status).toBe(200);

    const requests = 100;
    const before = proxy.queries();
    for (let n = 0; n < requests; n++) {
      const answer = await list();
      expect(answer.status).toBe(200);
      expect(await answer.json()).toHaveLength(3);
    }
    const perRequest = (proxy.queries() - before) / requests;
    // A little room for the replica's own lease renewal (every 5 s) during the run.
    expect(perRequest, `${perRequest} queries per request`).toBeLessThanOrEqual(1.15);
    expect(perRequest).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
