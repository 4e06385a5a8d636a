import type { ContainerRuntime } from "@reposite/core";
import { createMemoryContainerRuntime } from "@reposite/test-support";
import { createStorage } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHostingHarness, WEB_APP, type HostingHarness } from "./hosting-harness.js";

/** The small web app, printing a line as it starts. */
const LOUD_APP = { ...WEB_APP, Dockerfile: `${WEB_APP.Dockerfile}# reposite-test: run log listening on 3000\n` };

/** The longest a gate below holds a write or a read before letting it through anyway. */
const GATE_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when `ready()` says so, or after GATE_MS; tells which. */
async function gate(ready: () => boolean): Promise<"opened" | "timed out"> {
  const until = Date.now() + GATE_MS;
  while (!ready()) {
    if (Date.now() > until) return "timed out";
    await sleep(5);
  }
  return "opened";
}

/**
 * Memory storage that holds every write of a "starting" status until `released()`: a deploy that
 * waited for that write before starting the container would sit out the whole gate.
 */
function gatedStorage(released: () => boolean, saved: (key: string) => void) {
  const inner = memoryDriver();
  return createStorage({
    driver: {
      ...inner,
      async setItem(key: string, value: string, options: unknown) {
        if (value.includes('"status":"starting"')) {
          await gate(released);
          saved(key);
        }
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
  /** What happened, in order. */
  const events: string[] = [];
  /** The site whose next deploy's output read waits for its traffic switch, and its target before. */
  let watched: { site: string; before: { host: string; port: number } } | undefined;
  let logsGate: "opened" | "timed out" | undefined;

  beforeAll(async () => {
    const runtime = createMemoryContainerRuntime();
    const spied = runtime as ContainerRuntime;
    const buildImage = spied.buildImage.bind(runtime);
    spied.buildImage = async (request) => {
      const built = await buildImage(request);
      events.push("built");
      return built;
    };
    const runContainer = spied.runContainer.bind(runtime);
    spied.runContainer = async (spec) => {
      events.push("runContainer");
      return runContainer(spec);
    };
    const logs = spied.logs.bind(runtime);
    // The output is read only once traffic switched: a deploy that read it first would wait out the gate.
    spied.logs = async (id, tail) => {
      if (watched) {
        const { site, before } = watched;
        logsGate = await gate(() => {
          const target = h.reposite.appRoutes.get(site)?.target;
          return !!target && (target.host !== before.host || target.port !== before.port);
        });
      }
      return logs(id, tail);
    };
    const storage = gatedStorage(() => events.includes("runContainer"), () => events.push("starting saved"));
    h = await startHostingHarness({ runtime, storage, repos: [{ owner: "acme", name: "web", files: LOUD_APP }] });
    owner = await h.account("ada@example.com");
  }, 60_000);
  afterAll(() => h?.close());

  it("starts the container as soon as the image is built (the run's status is saved meanwhile)", { timeout: 60_000 }, async () => {
    const site = await h.project(owner);
    const { job, text } = await h.deploy(owner, site);
    expect(job.status).toBe("done");
    expect(text).toContain("Image built.");
    // The "starting" status is held until the container starts: waiting for it first would reverse these.
    expect(events.slice(events.indexOf("built"))).toEqual(["built", "runContainer", "starting saved", "starting saved"]);
    const run = (await h.reposite.hosting.listRuns(owner, site))[0]!;
    expect(run.status).toBe("done");
  });

  it("switches traffic at the first answer, then reads the new container's output for the log", { timeout: 60_000 }, async () => {
    const site = await h.project(owner);
    await h.deploy(owner, site);
    const before = h.reposite.appRoutes.get(site)!.target!;
    await h.reposite.hosting.setup(owner, site, {});
    watched = { site, before };
    const started = await h.reposite.hosting.deploy(owner, site);
    const { job, text } = await h.finish(owner, started.job_id);
    expect(job.status).toBe("done");
    // The output read waited for the switch; had the deploy read it before switching, it would have timed out.
    expect(logsGate).toBe("opened");
    const order = ["The app answered / with 200.", "The app's output", "listening on 3000", "Live at"].map((line) => text.indexOf(line));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });
});
