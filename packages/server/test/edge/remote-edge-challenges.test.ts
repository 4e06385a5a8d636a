import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getWithHost } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/index.js";

// An edge spreads what it does not serve over every control plane it lists (nginx's upstream), and
// a balancer over replicas does the same: the CA's HTTP-01 request for a challenge one replica placed
// may reach another. Two servers on one storage (as replicas on one PostgreSQL): the one that did not
// place the challenge answers it from its record.

describe("HTTP-01 challenges are records: any replica answers the one another placed", () => {
  const storage = createStorage();
  const dirs: string[] = [];
  let placing: RunningServer;
  let other: RunningServer;

  const replica = async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "reposite-challenge-replica-"));
    dirs.push(dataDir);
    return startServer({
      settings: {
        listen: { port: 0, hostname: "127.0.0.1" },
        hosting: "off",
        // Nothing is ordered (no verified domain, an http base address): the CA is never asked.
        https: { port: 0, acme: { directoryUrl: "https://127.0.0.1:9/directory" } },
        reposite: { storage, config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" } },
      },
    });
  };

  beforeAll(async () => {
    placing = await replica();
    other = await replica();
  }, 60_000);

  afterAll(async () => {
    await placing?.close();
    await other?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("answers a challenge placed by another replica, on any host, and stops once it is removed", async () => {
    await placing.certificates!.challenges.put("tok_en-2", "tok_en-2.thumbprint");
    for (const host of ["www.rocket.example", "rocket.sites.test"]) {
      expect(await getWithHost(`${other.url}/.well-known/acme-challenge/tok_en-2`, host)).toEqual({ status: 200, body: "tok_en-2.thumbprint" });
    }
    // Noted for removal a day on, should a crash keep the order from removing it.
    const noted = await Promise.all((await storage.getKeys("expiring:")).map((key) => storage.getItem(key)));
    expect(JSON.stringify(noted)).toContain("acme-challenges:tok_en-2");
    await placing.certificates!.challenges.remove("tok_en-2");
    expect((await getWithHost(`${other.url}/.well-known/acme-challenge/tok_en-2`, "www.rocket.example")).status).toBe(404);
    // A token no CA would send is never looked up.
    expect((await getWithHost(`${other.url}/.well-known/acme-challenge/..%2Fsecret`, "www.rocket.example")).status).toBe(404);
  });
});
