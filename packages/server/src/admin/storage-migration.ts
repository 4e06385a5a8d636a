import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { crashSafeFsDriver } from "@reposite/core";
import { copyRecords, createPostgresPorts, isPostgresUrl, migrate, MIGRATIONS, openPool } from "@reposite/provider-postgres";
import { createStorage } from "unstorage";

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
 * single-machine installation (`<data dir>/records`) to the database, prints the counts per key
 * prefix on both sides, and fails when they differ.
 */
export async function runMigrateStorage(options: { from?: string; to?: string }, io: AdminIo): Promise<void> {
  if (!options.from) throw io.usageError("--from is required: the data directory of the installation to copy (its REPOSITE_DATA_DIR).");
  const url = checkedUrl(options.to, "--to", io);
  const records = join(resolve(options.from), "records");
  if (!existsSync(records) || !statSync(records).isDirectory()) {
    throw io.usageError(`${resolve(options.from)} holds no records (no records/ folder): --from is the installation's REPOSITE_DATA_DIR.`);
  }
  const source = createStorage({ driver: crashSafeFsDriver({ base: records }) });
  const target = createPostgresPorts({ url });
  try {
    const report = await copyRecords(source, target.storage);
    io.out("prefix\tfiles\tdatabase");
    for (const count of report.counts) io.out(`${count.prefix}\t${count.source}\t${count.target}`);
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
