import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { freePort, postgresForTests, startPebble, startPostgres, type Pebble, type TestPostgres } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../server-process.js";

// Two `reposite serve` replicas on one PostgreSQL with built-in ACME against Debian's pebble: the
// certificate orders and renewals run under a lease (as the sweeps do), so one replica orders for
// both and the other serves what it stored. Pebble validates HTTP-01 on replica A's port only: an
// order by B would fail there, and say so.

const HOST = "renewals.reposite.example";
const postgres = postgresForTests();
const pebbleHere = await new Promise<boolean>((resolve) => execFile("sh", ["-c", "command -v pebble"], (error) => resolve(!error)));
if (process.env.REPOSITE_REQUIRE_DOCKER === "1" && !pebbleHere) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but pebble is not installed (apt-get install pebble)");

/** The serial of the certificate a handshake with SNI `HOST` gets from 127.0.0.1:`port` (lower-case hex), or null when refused. */
function servedSerial(port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, servername: HOST, rejectUnauthorized: false, timeout: 5_000 }, () => {
      const serial = socket.getPeerCertificate().serialNumber.toLowerCase();
      socket.end();
      resolve(serial);
    });
    socket.on("error", () => resolve(null));
    socket.on("timeout", () => (socket.destroy(), resolve(null)));
  });
}

/** The serial in the replica's "got a certificate" lines, in order. */
const ordered = (server: ServerProcess) => [...server.output().stdout.matchAll(new RegExp(`got a certificate for ${HOST.replaceAll(".", "\\.")} \\(serial ([0-9A-Fa-f]+)`, "g"))].map((match) => match[1]!.toLowerCase());
/** Anything the replica said about ordering a certificate itself (a success or a failure). */
const ordersSaid = (server: ServerProcess) => `${server.output().stdout}\n${server.output().stderr}`.split("\n").filter((line) => /got a certificate|ordering a certificate/.test(line));

describe.runIf(postgres.available && pebbleHere)("certificate renewals across two replicas on one PostgreSQL", () => {
  let database: TestPostgres;
  let pebble: Pebble;
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  let ports: { a: number; b: number; httpsA: number; httpsB: number };
  const secretKey = randomBytes(32).toString("base64");

  const start = async (dir: string, port: number, httpsPort: number) => {
    const server = await startServerProcess(port, {
      REPOSITE_DATABASE_URL: database.url,
      REPOSITE_DATA_DIR: dir,
      REPOSITE_SECRET_KEY: secretKey,
      REPOSITE_HOSTING: "off",
      REPOSITE_BASE_URL: `http://127.0.0.1:${port}`,
      REPOSITE_SITES_DOMAIN: "sites.test",
      REPOSITE_HTTPS_PORT: String(httpsPort),
      REPOSITE_ACME_DIRECTORY_URL: pebble.directoryUrl,
      REPOSITE_ACME_CA_FILE: pebble.caFile,
      REPOSITE_ACME_HOSTNAMES: HOST,
      // Longer than pebble's 90 days: every check finds the certificate due for renewal.
      REPOSITE_ACME_RENEW_DAYS: "36500",
    });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    const free = new Set<number>();
    while (free.size < 4) free.add(await freePort());
    const [a, b, httpsA, httpsB] = [...free] as [number, number, number, number];
    ports = { a, b, httpsA, httpsB };
    [database, pebble] = await Promise.all([startPostgres(), startPebble({ httpPort: a })]);
    for (let n = 0; n < 2; n++) dirs.push(await mkdtemp(join(tmpdir(), "reposite-renewals-")));
  }, 60_000);
  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
    await pebble?.close();
    await database?.stop();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it("one replica orders and renews; the other orders nothing and serves each certificate it stored", async () => {
    const a = await start(dirs[0]!, ports.a, ports.httpsA);
    await expect.poll(() => ordered(a).length, { timeout: 30_000, interval: 100 }).toBe(1);
    const first = ordered(a)[0]!;
    expect(await servedSerial(ports.httpsA)).toBe(first);

    // B starts with the certificate due too, and finds it is not its turn.
    const b = await start(dirs[1]!, ports.b, ports.httpsB);
    const decided = () => ordersSaid(b).length > 0 || b.output().stdout.includes("another replica runs certificate-renewals now");
    await expect.poll(decided, { timeout: 15_000, interval: 100 }).toBe(true);
    expect(ordersSaid(b)).toEqual([]);
    expect(await servedSerial(ports.httpsB)).toBe(first);

    // A started again (the same replica, by its data directory) renews at its start; B serves the renewal.
    await a.stop();
    const again = await start(dirs[0]!, ports.a, ports.httpsA);
    await expect.poll(() => ordered(again).length, { timeout: 30_000, interval: 100 }).toBe(1);
    const renewed = ordered(again)[0]!;
    expect(renewed).not.toBe(first);
    await expect.poll(() => servedSerial(ports.httpsB), { timeout: 10_000, interval: 250 }).toBe(renewed);
    expect(await servedSerial(ports.httpsA)).toBe(renewed);
    expect(ordersSaid(b)).toEqual([]);
  }, 120_000);
});
