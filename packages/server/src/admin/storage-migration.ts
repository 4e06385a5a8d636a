import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { crashSafeFsDriver, createInProcessLocks, MOVED_PROJECT_FIELDS, ProjectRecordsSplit, systemClock, type RecordStorage } from "@reposite/core";
import { copyRecords, createPostgresPorts, isPostgresUrl, migrate, MIGRATIONS, openPool } from "@reposite/provider-postgres";
import { createStorage } from "unstorage";
import { pendingChangesDriver } from "./pending-changes-driver.js";

/** Where `reposite admin …` writes, and how it says the command line is wrong (exit 2). */
export interface AdminIo {
  out(line: string): void;
  err(line: string): void;
  usageError(message: string): Error;
}

/** A database URL as it may be shown: without its password. */
const shown = (url: string) => url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:…@");

function checkedUrl(url: string | undefined, what: string, io: AdminIo): string {
  if (!url) throw io.usageError(`${what} is required: a PostgreSQL address such as postgres://reposite:secret@db.internal:5432/reposite.`);
  if (!isPostgresUrl(url)) throw io.usageError(`${what} must be a PostgreSQL address (postgres://…), not "${shown(url)}".`);
  return url;
}

/** `reposite admin migrate`: brings the schema up to date and says which steps ran. */
export async function runMigrate(databaseUrl: string | undefined, io: AdminIo): Promise<void> {
  const url = checkedUrl(databaseUrl, "--database (or REPOSITE_DATABASE_URL)", io);
  const pool = openPool({ url, max: 1 });
  try {
    const applied = await migrate(pool);
    for (const version of applied) io.out(`applied ${version}\t${MIGRATIONS.find((step) => step.version === version)?.name ?? ""}`);
    const latest = Math.max(...MIGRATIONS.map((step) => step.version));
    io.err(applied.length === 0 ? `The schema of ${shown(url)} is up to date (version ${latest}); nothing to apply.` : `The schema of ${shown(url)} is at version ${latest}.`);
  } finally {
    await pool.end();
  }
}

/**
 * `reposite admin migrate-storage --from <data dir> --to <database url>`: copies every record of a
 * single-machine installation (`<data dir>/records`) to the database in the current release's
 * shape (what earlier releases embedded in project records moved to their own records, as
 * `ProjectRecordsSplit` moves them at start, without changing the data directory), prints the
 * counts per key prefix on both sides, and fails when they differ. Run again, it copies nothing.
 */
export async function runMigrateStorage(options: { from?: string; to?: string }, io: AdminIo): Promise<void> {
  if (!options.from) throw io.usageError("--from is required: the data directory of the installation to copy (its REPOSITE_DATA_DIR).");
  const url = checkedUrl(options.to, "--to", io);
  const records = join(resolve(options.from), "records");
  if (!existsSync(records) || !statSync(records).isDirectory()) {
    throw io.usageError(`${resolve(options.from)} holds no records (no records/ folder): --from is the installation's REPOSITE_DATA_DIR.`);
  }
  const source = createStorage({ driver: pendingChangesDriver(crashSafeFsDriver({ base: records })) });
  const target = createPostgresPorts({ url });
  try {
    const moved = await new ProjectRecordsSplit(source, createInProcessLocks(), systemClock).run();
    await keepMarkersOf(target.storage, source);
    const report = await copyRecords(source, target.storage);
    io.out("prefix\tfiles\tdatabase");
    for (const count of report.counts) io.out(`${count.prefix}\t${count.source}\t${count.target}`);
    if (moved > 0) io.err(`Moved ${moved} fields embedded in project records (${MOVED_PROJECT_FIELDS.map((each) => each.field).join(", ")}) to their own records.`);
    io.err(`Copied ${report.copied} records to ${shown(url)}; ${report.unchanged} were there already.`);
    if (report.mismatched.length > 0) {
      throw new Error(
        `the counts differ for ${report.mismatched.map((count) => `${count.prefix} (${count.source} in files, ${count.target} in the database)`).join(", ")}. ` +
          "Stop every server writing to either side and run the command again; records the database holds that the files do not are never removed by it.",
      );
    }
  } finally {
    await target.close();
  }
}

/**
 * The split's "done" records hold when it ran: those the database has already are kept as they
 * are, so a second run finds every record equal and copies nothing.
 */
async function keepMarkersOf(database: RecordStorage, source: RecordStorage): Promise<void> {
  for (const key of await source.getKeys("migrations")) {
    const there = await database.getItemRaw(key);
    if (there !== null && there !== undefined) await source.setItemRaw(key, there);
  }
}
