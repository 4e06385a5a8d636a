import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { createPostgresPorts, MIGRATIONS, openPool } from "@reposite/provider-postgres";
import { freePort, postgresForTests, startFakeGitHub, startPostgres, type FakeGitHub, type TestPostgres } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingsFromEnv } from "../src/config-from-env.js";
import { bearer, DEFAULT_REPOS, json } from "./harness.js";
import { startServerProcess, type ServerProcess } from "./server-process.js";

// REPOSITE_DATABASE_URL puts records, locks and job events on PostgreSQL: two `reposite serve`
// processes with data directories of their own serve the same accounts and projects.

const postgres = postgresForTests();

describe("REPOSITE_DATABASE_URL", () => {
  it("must be a PostgreSQL address, and the start-up error does not repeat its password", () => {
    expect(() => settingsFromEnv({ REPOSITE_DATABASE_URL: "mysql://root:hunter2@db/reposite" })).toThrow(/REPOSITE_DATABASE_URL must be a PostgreSQL address/);
    expect(() => settingsFromEnv({ REPOSITE_DATABASE_URL: "mysql://root:hunter2@db/reposite" })).not.toThrow(/hunter2/);
    expect(() => settingsFromEnv({ REPOSITE_DATABASE_URL: "not a url" })).toThrow(/REPOSITE_DATABASE_URL/);
    const settings = settingsFromEnv({ REPOSITE_DATABASE_URL: "postgres://reposite@127.0.0.1:1/reposite" });
    expect(settings.reposite.storage?.getMount("").driver.name).toBe("postgres");
    void settings.reposite.storage?.dispose();
  });
});

describe.skipIf(!postgres.available)("two server processes on one PostgreSQL database", () => {
  let database: TestPostgres;
  let github: FakeGitHub;
  const dataDirs: string[] = [];
  const replicas: ServerProcess[] = [];
  let token: string;

  beforeAll(async () => {
    [database, github] = await Promise.all([startPostgres(), startFakeGitHub({ repos: DEFAULT_REPOS })]);
    const secretKey = randomBytes(32).toString("base64");
    const dataDir = async () => {
      const dir = await mkdtemp(join(tmpdir(), "reposite-replica-"));
      dataDirs.push(dir);
      return dir;
    };
    // The account and its token are made on the database, by neither replica.
    const reposite = createReposite({ config: { dataDir: await dataDir() }, repoHosts: [], secretKey, ...createPostgresPorts({ url: database.url }) });
    const { account } = await reposite.accounts.findOrCreate("owner@example.com");
    token = (await reposite.tokens.create(account.id, { name: "test", lifetime: "30d" })).secret;
    await reposite.close();
    for (let i = 0; i < 2; i++) {
      replicas.push(
        await startServerProcess(await freePort(), {
          REPOSITE_DATABASE_URL: database.url,
          REPOSITE_DATA_DIR: await dataDir(),
          REPOSITE_SECRET_KEY: secretKey,
          REPOSITE_HOSTING: "off",
          REPOSITE_GITHUB_API_URL: github.url,
        }),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await github?.close();
    await database?.stop();
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it("serves a project made through one replica from the other, from records in the database", async () => {
    const [a, b] = replicas as [ServerProcess, ServerProcess];
    const created = await fetch(`${a.url}/app/sites`, json({ repohost_url: "https://github.com/acme/rocket-cli" }, token));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const listed = await fetch(`${b.url}/app/sites`, bearer(token));
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { id: string }[]).map((site) => site.id)).toContain(id);
    expect((await fetch(`${b.url}/app/sites/${id}`, bearer(token))).status).toBe(200);

    const client = openPool({ url: database.url, max: 1 });
    try {
      const { rows } = await client.query<{ key: string }>("SELECT key FROM reposite_records WHERE key LIKE 'projects:%'");
      expect(rows.map((row) => row.key)).toContain(`projects:${id}`);
      const { rows: migrations } = await client.query<{ version: number }>("SELECT version FROM reposite_schema_migrations");
      expect(migrations.map((row) => row.version)).toEqual(MIGRATIONS.map((step) => step.version));
    } finally {
      await client.end();
    }
  });
});
