import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPostgresPorts } from "@reposite/provider-postgres";
import { dockerForTests, freePort, postgresForTests, startPostgres, type TestPostgres } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, startServerProcess, type ServerProcess } from "../server-process.js";

// The previous release's data directory (`fixtures/previous-release`, project records with their
// app, plan and current pages embedded) moved to PostgreSQL by `reposite admin migrate-storage`,
// which leaves the database in the current shape (the embedded fields in their own records, the
// split marked done, its counts checked) without changing the data directory, copies nothing when
// run again, and a replica started on the database answers what that release answered.

const engine = await dockerForTests();
const postgres = postgresForTests();
const FIXTURE = join(import.meta.dirname, "fixtures/previous-release");

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

/** The counts `migrate-storage` printed: prefix → [files, database]. */
const countsIn = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => line.split("\t"))
      .map(([prefix, files, database]) => [prefix, [Number(files), Number(database)]]),
  );

describe.skipIf(!engine.available || !postgres.available)("the previous release's records moved to PostgreSQL", () => {
  let database: TestPostgres;
  let dataDir: string;
  let replicaDir: string;
  let server: ServerProcess | undefined;
  const captured = { token: "", secretKey: "", app: "", plain: "", env: {} as Record<string, string>, answers: {} as Record<string, unknown> };

  beforeAll(async () => {
    Object.assign(captured, JSON.parse(await readFile(join(FIXTURE, "answers.json"), "utf8")));
    database = await startPostgres();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-previous-to-pg-"));
    replicaDir = await mkdtemp(join(tmpdir(), "reposite-previous-to-pg-replica-"));
    await cp(join(FIXTURE, "records"), join(dataDir, "records"), { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await database?.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(replicaDir, { recursive: true, force: true });
  });

  it("is moved in its final shape, copies nothing the second time, and is served the same by a replica on the database", async () => {
    const fileBefore = await readFile(join(dataDir, "records/projects", captured.app), "utf8");
    const copied = await cli(["admin", "migrate-storage", "--from", dataDir, "--to", database.url]);
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stderr).toContain("Moved 6 fields embedded in project records (deployment, wizard, current_pages) to their own records.");
    const shape = async () => {
      const ports = createPostgresPorts({ url: database.url });
      try {
        const embedded: string[] = [];
        for (const id of [captured.app, captured.plain]) {
          const project = await ports.storage.getItem<Record<string, unknown>>(`projects:${id}`);
          embedded.push(...["deployment", "wizard", "current_pages"].filter((field) => field in project!).map((field) => `${id}.${field}`));
        }
        return {
          embedded,
          app: await ports.storage.getItem(`deployments:${captured.app}`),
          plan: await ports.storage.hasItem(`plans:${captured.plain}`),
          pages: [await ports.storage.hasItem(`current-pages:${captured.app}`), await ports.storage.hasItem(`current-pages:${captured.plain}`)],
          done: (await ports.storage.getKeys("migrations:project-records")).sort(),
        };
      } finally {
        await ports.storage.dispose();
      }
    };
    const final = {
      embedded: [],
      app: expect.objectContaining({ status: "configured", setup: expect.objectContaining({ port: 8080 }) }),
      plan: true,
      pages: [true, true],
      done: ["migrations:project-records:current_pages", "migrations:project-records:deployment", "migrations:project-records:wizard"],
    };
    // In the database before any replica ran; the data directory is as it was.
    expect(await shape()).toEqual(final);
    expect(await readFile(join(dataDir, "records/projects", captured.app), "utf8")).toBe(fileBefore);
    const counts = countsIn(copied.stdout);
    expect(counts.projects).toEqual([2, 2]);
    expect(counts.deployments).toEqual([1, 1]);
    expect(counts["current-pages"]).toEqual([2, 2]);
    expect(counts.plans).toEqual([1, 1]);

    // Run again: every record is there already, byte for byte.
    const again = await cli(["admin", "migrate-storage", "--from", dataDir, "--to", database.url]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Copied 0 records to .*; \d+ were there already\./);
    expect(countsIn(again.stdout)).toEqual(counts);
    expect(await shape()).toEqual(final);

    server = await startServerProcess(await freePort(), {
      REPOSITE_DATABASE_URL: database.url,
      REPOSITE_DATA_DIR: replicaDir,
      REPOSITE_SECRET_KEY: captured.secretKey,
      REPOSITE_HOSTING: "docker",
      REPOSITE_APP_LABELS: `reposite-test.run=previous-pg-${randomBytes(4).toString("hex")}`,
      REPOSITE_SITES_DOMAIN: captured.env.REPOSITE_SITES_DOMAIN!,
      REPOSITE_BASE_URL: captured.env.REPOSITE_BASE_URL!,
      REPOSITE_GITHUB_API_URL: "http://127.0.0.1:9",
    });
    const get = async (path: string) => {
      const response = await fetch(`${server!.url}${path}`, { headers: { authorization: `Bearer ${captured.token}` } });
      expect(response.status, path).toBe(200);
      return response.json();
    };
    expect({
      list: await get("/app/sites"),
      app: await get(`/app/sites/${captured.app}`),
      plain: await get(`/app/sites/${captured.plain}`),
      deployment: await get(`/app/sites/${captured.app}/deployment`),
      env: await get(`/app/sites/${captured.app}/deployment/env`),
      versions: await get(`/app/sites/${captured.plain}/versions`),
    }).toEqual(captured.answers);
    expect(await shape()).toEqual(final);
  }, 120_000);
});
