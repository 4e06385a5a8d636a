import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Leases } from "@reposite/core";
import { dockerForTests, postgresForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReplicaSet, timeUntil, type ReplicaSet } from "./replica-set.js";

// Periodic work every replica schedules but one does for all (the disk checks of running apps,
// the sweep of expired records) runs under a lease: two `reposite serve` replicas on one
// PostgreSQL and one Docker Engine, measuring apps every second; one holds the `disk-checks`
// lease and takes every turn while the other stands by; killed with SIGKILL, its lease expires
// and the other takes over within two periods and a little.

const engine = await dockerForTests();
const postgres = postgresForTests();
const run = `sweeps-${randomBytes(4).toString("hex")}`;
const PERIOD_SECONDS = 1;
/** `AppDisk`'s lease: two periods and five seconds. */
const LEASE_MS = PERIOD_SECONDS * 2_000 + 5_000;
const TAKES = /this replica \((replica_[0-9a-f]+)\) now runs disk-checks/;
const STANDS_BY = "another replica runs disk-checks now";

describe.skipIf(!engine.available || !postgres.available)("periodic disk checks across two replicas", () => {
  let set: ReplicaSet;
  let leases: Leases;
  const idOf = async (index: number) => (await readFile(join(set.replicas[index]!.dataDir, "replica-id"), "utf8")).trim();
  const stdout = (index: number) => set.replicas[index]!.output().stdout;

  beforeAll(async () => {
    set = await startReplicaSet(2, { REPOSITE_HOSTING: "docker", REPOSITE_APP_LABELS: `reposite-test.run=${run}`, REPOSITE_DISK_CHECK_SECONDS: String(PERIOD_SECONDS) });
    leases = (await set.direct()).container.resolve(Leases);
  }, 120_000);
  afterAll(async () => {
    await set?.stopAll();
  }, 60_000);

  it("are run by one replica at a time, and by the other once that one is killed", async () => {
    await timeUntil(async () => TAKES.test(stdout(0) + stdout(1)) && (stdout(0) + stdout(1)).includes(STANDS_BY), 15_000);
    const leader = TAKES.test(stdout(0)) ? 0 : 1;
    const other = 1 - leader;
    const [leaderId, otherId] = [await idOf(leader), await idOf(other)];
    expect(stdout(leader).match(TAKES)?.[1]).toBe(leaderId);
    expect(stdout(other)).toContain(STANDS_BY);
    expect(await leases.holder("disk-checks")).toBe(leaderId);

    // Several periods on, still the same one: the other never took a turn.
    await new Promise((resolve) => setTimeout(resolve, PERIOD_SECONDS * 3_000));
    expect(await leases.holder("disk-checks")).toBe(leaderId);
    expect(stdout(other)).not.toMatch(TAKES);

    await set.replicas[leader]!.kill();
    const killedAt = performance.now();
    await timeUntil(async () => TAKES.test(stdout(other)), LEASE_MS + 10_000);
    const tookOverMs = performance.now() - killedAt;
    console.log(`[replicas] the disk checks moved to the other replica ${Math.round(tookOverMs)} ms after the holder was killed (lease ${LEASE_MS} ms)`);
    expect(await leases.holder("disk-checks")).toBe(otherId);
    expect(tookOverMs).toBeLessThan(LEASE_MS + PERIOD_SECONDS * 1_000 + 3_000);
  }, 90_000);
});
