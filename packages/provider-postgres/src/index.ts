export { postgresStorageDriver, type PostgresStorageOptions } from "./postgres-storage-driver.js";
export { createPostgresLocks, type PostgresLocks, type PostgresLocksOptions } from "./postgres-locks.js";
export { createPostgresEvents, type PostgresEvents, type PostgresEventsOptions } from "./postgres-events.js";
export { createPostgresPorts, type PostgresPorts, type PostgresPortsOptions } from "./postgres-ports.js";
export { migrate, MIGRATIONS } from "./migrate.js";
export { openPool, isPostgresUrl, type PostgresConnectionOptions } from "./connection.js";
export { copyRecords, type CopyReport, type PrefixCount } from "./copy-records.js";
