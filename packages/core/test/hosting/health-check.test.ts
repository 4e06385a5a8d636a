import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntilHealthy } from "../../src/hosting/health-check.js";
import type { ContainerState } from "../../src/ports/container-runtime.js";

const running: ContainerState = { id: "c1", running: true, exitCode: null, oomKilled: false, startedAt: null, finishedAt: null, hostPort: null };

/** A free port on 127.0.0.1, nothing listening on it yet. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("the health check", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** An app that starts listening `afterMs` from now and answers `status(n)` to its n-th request. */
  async function appStartingIn(afterMs: number, status: (n: number) => number = () => 200) {
    const port = await freePort();
    let requests = 0;
    const server = createServer((_req, res) => res.writeHead(status(++requests)).end());
    servers.push(server);
    setTimeout(() => server.listen(port, "127.0.0.1"), afterMs);
    return { url: `http://127.0.0.1:${port}/`, requests: () => requests };
  }

  it("sees an app soon after it starts answering, not one interval later (the interval is the longest pause)", async () => {
    const app = await appStartingIn(150);
    const started = Date.now();
    const result = await waitUntilHealthy({ url: app.url, timeoutMs: 20_000, intervalMs: 5_000, inspect: async () => running });
    const took = Date.now() - started;
    expect(result).toEqual({ healthy: true, status: 200 });
    // Up at 150 ms: probing every 5 s would have taken 5 s at least (the bound leaves room for a busy machine).
    expect(took).toBeGreaterThanOrEqual(150);
    expect(took).toBeLessThan(2_500);
  });

  it("an Engine slow to inspect the container does not space the probes out (the inspection runs beside them)", async () => {
    const app = await appStartingIn(60);
    let inspections = 0;
    const slowInspect = async () => {
      inspections += 1;
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      return running;
    };
    const started = Date.now();
    const result = await waitUntilHealthy({ url: app.url, timeoutMs: 20_000, intervalMs: 500, inspect: slowInspect });
    const took = Date.now() - started;
    expect(result).toEqual({ healthy: true, status: 200 });
    // Up at 60 ms, seen within a probe's pause of it; waiting on the 3 s inspection took 3 s at least.
    expect(took).toBeLessThan(1_500);
    expect(inspections).toBe(1);
  });

  it("probes less often as the wait grows, never more than the interval apart", async () => {
    const app = await appStartingIn(0, (n) => (n <= 1_000 ? 503 : 200));
    const result = await waitUntilHealthy({ url: app.url, timeoutMs: 2_000, intervalMs: 200, inspect: async () => running });
    expect(result).toMatchObject({ healthy: false, reason: expect.stringContaining("did not answer / within 2 s (it answered 503)") });
    // About 10 probes in the first 100 ms, 24 more to 1 s, then one each 100–200 ms: ~40, not 200 at 10 ms.
    expect(app.requests()).toBeGreaterThan(15);
    expect(app.requests()).toBeLessThan(80);
  });

  it("counts only 2xx and 3xx answers: a 404 (or 401) is not an app that is up", async () => {
    for (const status of [404, 401]) {
      const app = await appStartingIn(0, () => status);
      const result = await waitUntilHealthy({ url: app.url, timeoutMs: 600, intervalMs: 100, inspect: async () => running });
      expect(result).toMatchObject({ healthy: false, lastStatus: status, reason: expect.stringContaining(`(it answered ${status})`) });
    }
    for (const status of [204, 302]) {
      const app = await appStartingIn(0, () => status);
      expect(await waitUntilHealthy({ url: app.url, timeoutMs: 600, intervalMs: 100, inspect: async () => running })).toEqual({ healthy: true, status });
    }
    // An app that answers 404 while it warms up is seen once it answers 200.
    const warming = await appStartingIn(0, (n) => (n <= 3 ? 404 : 200));
    expect(await waitUntilHealthy({ url: warming.url, timeoutMs: 2_000, intervalMs: 100, inspect: async () => running })).toEqual({ healthy: true, status: 200 });
  });

  it("fails at once when the container exits before it answers", async () => {
    const never = await freePort();
    const exited: ContainerState = { ...running, running: false, exitCode: 3 };
    const started = Date.now();
    const gone = await waitUntilHealthy({ url: `http://127.0.0.1:${never}/`, timeoutMs: 10_000, intervalMs: 500, inspect: async () => exited });
    expect(gone).toMatchObject({ healthy: false, reason: "The app's container exited with code 3 before it answered." });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
