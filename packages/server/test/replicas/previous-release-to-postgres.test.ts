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
// which copies records as they are (byte for byte, its counts checked): the first replica started
// on the database moves the embedded fields to their own records, and answers what that release
// answered.

const engine = await dockerForTests();
const postgres = postgresForTests();
const FIXTURE = join(import.meta.dirname, "fixtures/previous-release");

function cli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stderr })));
}

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

  it("is served the same by a replica on the database, which moves the embedded fields once", async () => {
    const copied = await cli(["admin", "migrate-storage", "--from", dataDir, "--to", database.url]);
    expect(copied.code, copied.stderr).toBe(0);
    const embedded = async () => {
      const ports = createPostgresPorts({ url: database.url });
      try {
        const project = await ports.storage.getItem<Record<string, unknown>>(`projects:${captured.app}`);
        return { fields: ["deployment", "wizard", "current_pages"].filter((field) => field in project!), app: await ports.storage.getItem(`deployments:${captured.app}`) };
      } finally {
        await ports.storage.dispose();
      }
    };
    expect(await embedded()).toEqual({ fields: ["deployment", "wizard", "current_pages"], app: null });

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
    expect(await embedded()).toEqual({ fields: [], app: expect.objectContaining({ status: "configured", setup: expect.objectContaining({ port: 8080 }) }) });
  }, 120_000);
});
