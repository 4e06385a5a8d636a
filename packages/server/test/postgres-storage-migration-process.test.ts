import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS, openPool } from "@reposite/provider-postgres";
import { freePort, getWithHost, postgresForTests, startFakeGitHub, startPostgres, type FakeGitHub, type TestPostgres } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, DEFAULT_REPOS } from "./harness.js";
import { publishSite } from "./publish-site.js";
import { BIN, startServerProcess, type ServerProcess } from "./server-process.js";

// A single-machine installation moves to PostgreSQL: `reposite admin migrate-storage` copies its
// records, and a `reposite serve` on the database serves the same site and accepts the same token.

const postgres = postgresForTests();

/** Runs the built CLI as an operator does; answers its exit code and output. */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

/** `prefix → [files, database]` from migrate-storage's table. */
const countsOf = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => line.split("\t"))
      .map(([prefix, files, database]) => [prefix!, [Number(files), Number(database)]]),
  );

describe.skipIf(!postgres.available)("reposite admin migrate and migrate-storage", () => {
  let database: TestPostgres;
  let github: FakeGitHub;
  const dirs: string[] = [];
  let fileServer: ServerProcess | undefined;
  let databaseServer: ServerProcess | undefined;
  let dataDir: string;
  let token: string;
  let siteId: string;
  let servedFromFiles: { status: number; body: string };
  const secretKey = randomBytes(32).toString("base64");
  const common = () => ({
    REPOSITE_SECRET_KEY: secretKey,
    REPOSITE_HOSTING: "off",
    REPOSITE_GITHUB_API_URL: github.url,
    REPOSITE_BASE_URL: "http://reposite.test",
    REPOSITE_SITES_DOMAIN: "sites.test",
  });
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), "reposite-migrate-storage-"));
    dirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    [database, github] = await Promise.all([startPostgres(), startFakeGitHub({ repos: DEFAULT_REPOS })]);
    dataDir = await tempDir();
    const created = await cli(["admin", "create-token", "--email", "owner@example.com", "--name", "ci"], { ...common(), REPOSITE_DATA_DIR: dataDir });
    expect(created.code, created.stderr).toBe(0);
    token = created.stdout.trim();
    fileServer = await startServerProcess(await freePort(), { ...common(), REPOSITE_DATA_DIR: dataDir });
    siteId = await publishSite({ call: (path, init) => fetch(`${fileServer!.url}${path}`, init) }, token, "rocket");
    servedFromFiles = await getWithHost(`${fileServer.url}/`, "rocket.sites.test");
    expect(servedFromFiles.status).toBe(200);
    // Records are copied from an installation that is not running (docs/deploy/postgres.md).
    await fileServer.stop();
  }, 120_000);
  afterAll(async () => {
    await fileServer?.stop();
    await databaseServer?.stop();
    await github?.close();
    await database?.stop();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it("migrate applies every step to a new database and says so, then finds nothing to do", async () => {
    const first = await cli(["admin", "migrate"], { REPOSITE_DATABASE_URL: database.url });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim().split("\n")).toEqual(MIGRATIONS.map((step) => `applied ${step.version}\t${step.name}`));
    const again = await cli(["admin", "migrate", "--database", database.url]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe("");
    expect(again.stderr).toContain(`up to date (version ${MIGRATIONS.at(-1)!.version}); nothing to apply`);
  });

  it("migrate and migrate-storage refuse a missing or wrong address with the usage (exit 2)", async () => {
    const missing = await cli(["admin", "migrate"], { REPOSITE_DATABASE_URL: "" });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--database (or REPOSITE_DATABASE_URL) is required");
    const wrong = await cli(["admin", "migrate-storage", "--from", dataDir, "--to", "mysql://root:hunter2@db/reposite"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--to must be a PostgreSQL address");
    expect(wrong.stderr).not.toContain("hunter2");
    const notAnInstallation = await cli(["admin", "migrate-storage", "--from", await tempDir(), "--to", database.url]);
    expect(notAnInstallation.code).toBe(2);
    expect(notAnInstallation.stderr).toContain("holds no records");
  });

  it("copies every record, changes nothing when run again, and a server on the database serves the same site and accepts the same token", async () => {
    const copy = await cli(["admin", "migrate-storage", "--from", dataDir, "--to", database.url]);
    expect(copy.code, copy.stderr).toBe(0);
    const counts = countsOf(copy.stdout);
    for (const prefix of ["accounts", "tokens", "token-hashes", "projects", "owner-projects", "slugs", "published-sites"]) {
      expect(counts[prefix]?.[0], `${prefix} in the files`).toBeGreaterThan(0);
    }
    for (const [prefix, [files, rows]] of Object.entries(counts)) expect(rows, prefix).toBe(files);
    expect(copy.stderr).toMatch(/Copied \d+ records .*; 0 were there already/);

    const pool = openPool({ url: database.url, max: 1 });
    try {
      const snapshot = async () => (await pool.query("SELECT key, md5(value) AS value, updated_at FROM reposite_records ORDER BY key")).rows;
      const before = await snapshot();
      const again = await cli(["admin", "migrate-storage", "--from", dataDir, "--to", database.url]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(copy.stdout);
      expect(again.stderr).toMatch(new RegExp(`Copied 0 records .*; ${before.length} were there already`));
      expect(await snapshot()).toEqual(before);
    } finally {
      await pool.end();
    }

    databaseServer = await startServerProcess(await freePort(), { ...common(), REPOSITE_DATA_DIR: await tempDir(), REPOSITE_DATABASE_URL: database.url });
    const sites = await fetch(`${databaseServer.url}/app/sites`, bearer(token));
    expect(sites.status).toBe(200);
    expect(((await sites.json()) as { id: string }[]).map((site) => site.id)).toEqual([siteId]);
    const served = await getWithHost(`${databaseServer.url}/`, "rocket.sites.test");
    expect(served).toEqual(servedFromFiles);
  });

  it("fails the count check (exit 1) when the database holds a record the files do not", async () => {
    await databaseServer?.stop();
    databaseServer = undefined;
    const pool = openPool({ url: database.url, max: 1 });
    try {
      await pool.query("INSERT INTO reposite_records (key, value) VALUES ('projects:site_notinfiles00000', '{}')");
      const mismatch = await cli(["admin", "migrate-storage", "--from", dataDir, "--to", database.url]);
      expect(mismatch.code).toBe(1);
      expect(countsOf(mismatch.stdout).projects).toEqual([1, 2]);
      expect(mismatch.stderr).toContain("projects (1 in files, 2 in the database)");
    } finally {
      await pool.end();
    }
  });
});
