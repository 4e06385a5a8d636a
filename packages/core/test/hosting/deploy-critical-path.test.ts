import type { ContainerRuntime } from "@reposite/core";
import { createMemoryContainerRuntime } from "@reposite/test-support";
import { createStorage } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHostingHarness, WEB_APP, type HostingHarness } from "./hosting-harness.js";

/** The small web app, printing a line as it starts. */
const LOUD_APP = { ...WEB_APP, Dockerfile: `${WEB_APP.Dockerfile}# reposite-test: run log listening on 3000\n` };

/** How long each record write takes here: a flushed file on a busy disk, exaggerated. */
const WRITE_MS = 150;
/** How long the Engine takes to answer for a container's output here. */
const LOGS_MS = 400;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Memory storage whose writes take `WRITE_MS`. */
function slowWriteStorage() {
  const inner = memoryDriver();
  return createStorage({
    driver: {
      ...inner,
      async setItem(key: string, value: string, options: unknown) {
        await sleep(WRITE_MS);
        return inner.setItem!(key, value, options as never);
      },
    },
  });
}

// Between the image built and the app's first answer through /app/, a deploy waits only for what
// that answer needs: the run's records are saved beside the work, and the new container's output
// is read for the log after traffic switched.
describe("a deploy's path to the app's first answer", () => {
  let h: HostingHarness;
  let owner: string;
  const times: Record<string, number> = {};

  beforeAll(async () => {
    const runtime = createMemoryContainerRuntime();
    const spied = runtime as ContainerRuntime;
    const buildImage = spied.buildImage.bind(runtime);
    spied.buildImage = async (request) => {
      const built = await buildImage(request);
      times.built = Date.now();
      return built;
    };
    const runContainer = spied.runContainer.bind(runtime);
    spied.runContainer = async (spec) => {
      times.runContainer = Date.now();
      const handle = await runContainer(spec);
      times.running = Date.now();
      return handle;
    };
    const logs = spied.logs.bind(runtime);
    spied.logs = async (id, tail) => {
      await sleep(LOGS_MS);
      return logs(id, tail);
    };
    h = await startHostingHarness({ runtime, storage: slowWriteStorage(), repos: [{ owner: "acme", name: "web", files: LOUD_APP }] });
    owner = await h.account("ada@example.com");
  }, 60_000);
  afterAll(() => h?.close());

  it("starts the container as soon as the image is built (the run's status is saved meanwhile)", { timeout: 60_000 }, async () => {
    const site = await h.project(owner);
    const { job, text } = await h.deploy(owner, site);
    expect(job.status).toBe("done");
    expect(text).toContain("Image built.");
    // Saving "starting" first (two records, one after the other) took 2 × WRITE_MS.
    expect(times.runContainer! - times.built!).toBeLessThan(WRITE_MS);
    const run = (await h.reposite.hosting.listRuns(owner, site))[0]!;
    expect(run.status).toBe("done");
  });

  it("switches traffic at the first answer, then reads the new container's output for the log", { timeout: 60_000 }, async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site);
    const before = h.reposite.appRoutes.get(site)!.target!;
    await h.reposite.hosting.setup(owner, site, {});
    const started = await h.reposite.hosting.deploy(owner, site);
    let switched = 0;
    const watching = (async () => {
      while (!switched) {
        const target = h.reposite.appRoutes.get(site)?.target;
        if (target && (target.host !== before.host || target.port !== before.port)) switched = Date.now();
        await sleep(2);
      }
    })();
    const { job, text } = await h.finish(owner, started.job_id);
    await watching;
    expect(job.status).toBe("done");
    // Up once `runContainer` answered and the first probe got its 200: the output's LOGS_MS came after.
    expect(switched - times.running!).toBeLessThan(LOGS_MS);
    const order = ["The app answered / with 200.", "The app's output", "listening on 3000", "Live at"].map((line) => text.indexOf(line));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });
});
