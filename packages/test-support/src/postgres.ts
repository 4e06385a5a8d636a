import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

/** Debian's PostgreSQL 15 (`apt-get install postgresql`); REPOSITE_POSTGRES_BIN points elsewhere. */
export const POSTGRES_BIN = process.env.REPOSITE_POSTGRES_BIN || "/usr/lib/postgresql/15/bin";

/** Whether Postgres tests run, and whether they had to. */
export interface PostgresForTests {
  available: boolean;
  /** `REPOSITE_REQUIRE_POSTGRES=1` (CI): missing binaries fail instead of skipping. */
  required: boolean;
  /** Why Postgres is unavailable, or null. */
  reason: string | null;
}

/**
 * Whether Postgres tests can run. Use with top-level await and `describe.skipIf(!postgres.available)`.
 * With `REPOSITE_REQUIRE_POSTGRES=1` missing binaries throw, so the test file fails instead of being skipped.
 */
export function postgresForTests(): PostgresForTests {
  const required = process.env.REPOSITE_REQUIRE_POSTGRES === "1";
  const missing = ["initdb", "pg_ctl", "postgres"].find((name) => !existsSync(join(POSTGRES_BIN, name)));
  const reason = missing ? `${join(POSTGRES_BIN, missing)} is missing (apt-get install postgresql)` : null;
  if (reason && required) throw new Error(`REPOSITE_REQUIRE_POSTGRES=1 but PostgreSQL is not available: ${reason}`);
  return { available: reason === null, required, reason };
}

export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: no password (trust on loopback). */
  url: string;
  port: number;
  /** Stops the server and removes its cluster. */
  stop(): Promise<void>;
}

/**
 * A throwaway cluster on a free loopback port in a temp directory: start once per test file and
 * stop after. Postgres refuses to run as root, so it runs as the `postgres` user when this is root.
 */
export async function startPostgres(): Promise<TestPostgres> {
  const dir = await mkdtemp(join(tmpdir(), "reposite-pg-"));
  const asRoot = userInfo().uid === 0;
  const owner = asRoot ? await postgresUser() : null;
  if (owner) {
    await chown(dir, owner.uid, owner.gid);
    await chmod(dir, 0o700);
  }
  const pgRun = (tool: string, args: string[]) =>
    run(join(POSTGRES_BIN, tool), args, { cwd: dir, ...(owner ? { uid: owner.uid, gid: owner.gid } : {}), env: { ...process.env, LC_ALL: "C" } });
  const data = join(dir, "data");
  await pgRun("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync"]);
  const port = await freePort();
  // fsync off: a test cluster is thrown away, and the machine is shared.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  await pgRun("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-o", options, "-w", "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await pgRun("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await run("id", ["-u", "postgres"]).catch(() => {
    throw new Error("running as root, PostgreSQL needs a `postgres` user (Debian's postgresql package makes it)");
  });
  const { stdout: group } = await run("id", ["-g", "postgres"]);
  return { uid: Number(stdout.trim()), gid: Number(group.trim()) };
}
