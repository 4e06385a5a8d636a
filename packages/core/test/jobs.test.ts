import { eventsContract } from "@reposite/test-support";
import { createStorage, type Storage } from "unstorage";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createInProcessEvents,
  createReposite,
  DELTAS_PER_CHUNK,
  EVENTS,
  JOB_RETENTION_MS,
  JOB_SETTINGS,
  JobsService,
  RepositeError,
  type Clock,
  type EventBus,
  type IdGenerator,
  type JobEvent,
  type JobOutcome,
  type JobSettings,
  type JobWork,
  type RunningJob,
} from "../src/index.js";

eventsContract("in-process events (the embedded default)", async () => ({
  bus: createInProcessEvents(),
  teardown: async () => {},
}));

const FAST: Partial<JobSettings> = { flushMs: 5, heartbeatMs: 20, staleMs: 60_000, pollMs: 10, cancelWaitMs: 1_000 };

type TestClock = Clock & { time: Date };
const newClock = (): TestClock => ({ time: new Date("2026-03-04T05:06:07Z"), now() { return new Date(this.time); } });
const advance = (clock: TestClock, ms: number) => (clock.time = new Date(clock.time.getTime() + ms));

const services: JobsService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
});

/** A JobsService composed the way the lead will: through createReposite's container. */
function setup(options: { storage?: Storage; bus?: EventBus; clock?: TestClock; ids?: IdGenerator; settings?: Partial<JobSettings> } = {}) {
  const storage = options.storage ?? createStorage();
  const bus = options.bus ?? createInProcessEvents();
  const clock = options.clock ?? newClock();
  const reposite = createReposite({
    storage,
    clock,
    repoHosts: [],
    ...(options.ids ? { ids: options.ids } : {}),
    register: (container) => {
      container.register(EVENTS, { useValue: bus });
      container.register(JOB_SETTINGS, { useValue: options.settings ?? FAST });
      container.registerSingleton(JobsService);
    },
  });
  const jobs = reposite.container.resolve(JobsService);
  services.push(jobs);
  return { jobs, storage, bus, clock };
}

/** Work the test drives by hand: it writes through `job`, and ends when told. */
function manual() {
  let finish!: (outcome?: JobOutcome) => void;
  let fail!: (error: unknown) => void;
  let started!: (job: RunningJob) => void;
  const job = new Promise<RunningJob>((resolve) => (started = resolve));
  const work: JobWork = (running) => {
    started(running);
    return new Promise<JobOutcome | void>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return { work, job, finish: (outcome?: JobOutcome) => finish(outcome), fail: (error: unknown) => fail(error) };
}

async function collect(events: AsyncIterable<JobEvent>): Promise<JobEvent[]> {
  const seen: JobEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

const deltasOf = (events: JobEvent[]) => events.filter((event) => event.type === "delta") as Extract<JobEvent, { type: "delta" }>[];
const textOf = (events: JobEvent[]) => deltasOf(events).map((delta) => delta.t).join("");

async function statusOf(jobs: JobsService, owner: string, jobId: string, status: string) {
  await vi.waitFor(async () => expect((await jobs.get(owner, jobId)).status).toBe(status), { timeout: 5_000, interval: 5 });
  return jobs.get(owner, jobId);
}

describe("jobs: states", () => {
  it("start answers a running job at once, runs the work in the background and ends done with its outcome", async () => {
    const { jobs, clock } = setup();
    const driver = manual();
    const view = await jobs.start(
      { ownerId: "acct_1", siteId: "site_1", type: "generate", details: { mode: "saas", pages: ["about"], kind: "template", status: "spoofed" } },
      driver.work,
    );
    expect(view).toEqual({
      job_id: expect.stringMatching(/^job_[0-9a-z]{16}$/),
      type: "generate",
      status: "running",
      error: null,
      site_id: "site_1",
      version_id: null,
      finished_at: null,
      next_job_id: null,
      run_id: null,
      mode: "saas",
      pages: ["about"],
      kind: "template",
    });
    (await driver.job).write("hello");
    advance(clock, 3_000);
    driver.finish({ version_id: "ver_1" });
    const done = await statusOf(jobs, "acct_1", view.job_id, "done");
    expect(done).toMatchObject({ status: "done", error: null, version_id: "ver_1", finished_at: "2026-03-04 05:06:10", next_job_id: null, mode: "saas" });
  });

  it("takes its ids from the id generator, with the job prefix, and keeps run_id for deploys", async () => {
    let n = 0;
    const { jobs } = setup({ ids: { newId: (prefix) => `${prefix}_${++n}` } });
    const view = await jobs.start({ ownerId: "acct_1", type: "deploy", runId: "run_9" }, async () => {});
    expect(view).toMatchObject({ job_id: "job_1", type: "deploy", run_id: "run_9", site_id: null });
    await statusOf(jobs, "acct_1", "job_1", "done");
  });

  it("ends error with a RepositeError's message, and with a generic message (the cause logged) otherwise", async () => {
    const { jobs } = setup();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const shown = await jobs.start({ ownerId: "acct_1", type: "generate" }, async (job) => {
        job.write("partial");
        throw new RepositeError(429, "Generation limit reached; try later.");
      });
      expect(await statusOf(jobs, "acct_1", shown.job_id, "error")).toMatchObject({ error: "Generation limit reached; try later." });
      expect(logged).not.toHaveBeenCalled();

      const hidden = await jobs.start({ ownerId: "acct_1", type: "generate" }, async () => {
        throw new Error("ECONNRESET talking to 10.0.0.7 with key sk-secret");
      });
      const failed = await statusOf(jobs, "acct_1", hidden.job_id, "error");
      expect(failed.error).toMatch(/problem on our side/);
      expect(failed.error).not.toContain("sk-secret");
      expect(logged).toHaveBeenCalledWith(expect.stringContaining(hidden.job_id), expect.any(Error));

      const events = await collect(jobs.events("acct_1", shown.job_id));
      expect(events.map((event) => event.type)).toEqual(["meta", "delta", "error"]);
    } finally {
      logged.mockRestore();
    }
  });

  it("cancel aborts the work's signal and ends cancelled; later writes and outcomes are ignored; cancelling again changes nothing", async () => {
    const { jobs, clock } = setup();
    const driver = manual();
    const view = await jobs.start({ ownerId: "acct_1", type: "generate" }, driver.work);
    const job = await driver.job;
    job.write("kept ");
    job.write("too");
    advance(clock, 1_000);
    const cancelled = await jobs.cancel("acct_1", view.job_id);
    expect(cancelled).toMatchObject({ status: "cancelled", error: "The job was cancelled.", finished_at: "2026-03-04 05:06:08" });
    expect(job.signal.aborted).toBe(true);
    expect((job.signal.reason as DOMException).name).toBe("AbortError");

    job.write("ignored");
    driver.finish({ version_id: "ver_late" });
    advance(clock, 1_000);
    expect(await jobs.cancel("acct_1", view.job_id)).toEqual(cancelled);
    expect(await jobs.get("acct_1", view.job_id)).toEqual(cancelled);

    const events = await collect(jobs.events("acct_1", view.job_id));
    expect(events).toEqual([
      { type: "meta", job: cancelled },
      { type: "delta", i: 0, t: "kept " },
      { type: "delta", i: 1, t: "too" },
      { type: "error", job: cancelled },
    ]);
  });

  it("answers a finished job unchanged when it is cancelled", async () => {
    const { jobs } = setup();
    const view = await jobs.start({ ownerId: "acct_1", type: "generate" }, async () => ({ version_id: "ver_1" }));
    const done = await statusOf(jobs, "acct_1", view.job_id, "done");
    expect(await jobs.cancel("acct_1", view.job_id)).toEqual(done);
  });

  it("answers 404 for another owner's job, a missing one, and ids that are not ids", async () => {
    const { jobs } = setup();
    const driver = manual();
    const view = await jobs.start({ ownerId: "acct_1", type: "generate" }, driver.work);
    const notFound = { status: 404, message: "Job not found." };
    await expect(jobs.get("acct_2", view.job_id)).rejects.toMatchObject(notFound);
    await expect(jobs.cancel("acct_2", view.job_id)).rejects.toMatchObject(notFound);
    await expect(collect(jobs.events("acct_2", view.job_id))).rejects.toMatchObject(notFound);
    await expect(jobs.get("acct_1", "job_missing")).rejects.toMatchObject(notFound);
    await expect(jobs.get("acct_1", `${view.job_id}:x`)).rejects.toMatchObject(notFound);
    expect((await driver.job).signal.aborted).toBe(false);
    driver.finish();
  });

  it("refuses a from that is not a whole number of 0 or more", async () => {
    const { jobs } = setup();
    const view = await jobs.start({ ownerId: "acct_1", type: "generate" }, async () => {});
    for (const from of [-1, 1.5, Number.NaN]) {
      await expect(collect(jobs.events("acct_1", view.job_id, from))).rejects.toMatchObject({ status: 422, code: "invalid_request" });
    }
  });
});

describe("jobs: chaining", () => {
  it("starts the next job only when this one succeeds, and shows next_job_id only once it is done", async () => {
    const { jobs } = setup();
    const first = manual();
    const second = manual();
    let secondStarted = false;
    const view = await jobs.start({ ownerId: "acct_1", siteId: "site_1", type: "generate", details: { kind: "template" } }, first.work);
    (await first.job).write("landing");
    expect((await jobs.get("acct_1", view.job_id)).next_job_id).toBeNull();
    first.finish({
      version_id: "ver_1",
      next: {
        spec: { ownerId: "acct_1", siteId: "site_1", type: "generate", details: { kind: "about" } },
        work: (job) => {
          secondStarted = true;
          return second.work(job);
        },
      },
    });
    const done = await statusOf(jobs, "acct_1", view.job_id, "done");
    expect(done.next_job_id).toMatch(/^job_/);
    // Its work starts on the next turn of the event loop, like every job's.
    await vi.waitFor(() => expect(secondStarted).toBe(true));
    const next = await jobs.get("acct_1", done.next_job_id!);
    expect(next).toMatchObject({ status: "running", kind: "about", site_id: "site_1" });
    second.finish({ version_id: "ver_2" });
    expect(await statusOf(jobs, "acct_1", next.job_id, "done")).toMatchObject({ version_id: "ver_2", next_job_id: null });
  });

  it("takes a next_job_id the work started itself", async () => {
    const { jobs } = setup();
    const view = await jobs.start({ ownerId: "acct_1", type: "generate" }, async () => {
      const next = await jobs.start({ ownerId: "acct_1", type: "generate" }, async () => {});
      return { next_job_id: next.job_id };
    });
    const done = await statusOf(jobs, "acct_1", view.job_id, "done");
    expect(done.next_job_id).toMatch(/^job_/);
  });

  it("does not start the next job of a cancelled one", async () => {
    const { jobs } = setup();
    const driver = manual();
    const started = vi.fn();
    const view = await jobs.start({ ownerId: "acct_1", type: "generate" }, driver.work);
    await driver.job;
    await jobs.cancel("acct_1", view.job_id);
    driver.finish({ next: { spec: { ownerId: "acct_1", type: "generate" }, work: async () => void started() } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).not.toHaveBeenCalled();
    expect(await jobs.get("acct_1", view.job_id)).toMatchObject({ status: "cancelled", next_job_id: null });
  });
});

describe("jobs: deltas and streams", () => {
  it("numbers deltas from 0, skips empty writes, and replays from `from` before following live", async () => {
    const { jobs } = setup();
    const driver = manual();
    const view = await jobs.start({ ownerId: "acct_1", type: "generate", details: { mode: "landing" } }, driver.work);
    const job = await driver.job;
    for (const text of ["a", "", "b", "c", "d", "e"]) job.write(text);

    const seen: JobEvent[] = [];
    const reading = (async () => {
      for await (const event of jobs.events("acct_1", view.job_id, 3)) {
        seen.push(event);
        if (event.type === "delta" && event.i === 4) {
          job.write("f");
          job.write("g");
          driver.finish({ version_id: "ver_1" });
        }
      }
    })();
    await reading;
    const done = await jobs.get("acct_1", view.job_id);
    expect(seen).toEqual([
      { type: "meta", job: { ...done, status: "running", version_id: null, finished_at: null } },
      { type: "delta", i: 3, t: "d" },
      { type: "delta", i: 4, t: "e" },
      { type: "delta", i: 5, t: "f" },
      { type: "delta", i: 6, t: "g" },
      { type: "done", job: done },
    ]);
    // From past the end of an ended job: just meta and done.
    expect((await collect(jobs.events("acct_1", view.job_id, 50))).map((event) => event.type)).toEqual(["meta", "done"]);
  });

  it("stores deltas in chunks within flushMs, which a second service on the same storage replays", async () => {
    const storage = createStorage();
    const clock = newClock();
    const writer = setup({ storage, clock });
    const reader = setup({ storage, clock }); // its own event bus: it can only see what is stored
    const driver = manual();
    const view = await writer.jobs.start({ ownerId: "acct_1", type: "generate" }, driver.work);
    const job = await driver.job;
    const texts = Array.from({ length: 250 }, (_, i) => `<${i}>`);
    for (const text of texts) job.write(text);

    await vi.waitFor(async () => expect((await storage.getItem<{ length: number }>(`jobs:${view.job_id}`))?.length).toBe(250), {
      timeout: 2_000,
      interval: 5,
    });
    expect(DELTAS_PER_CHUNK).toBe(100);
    expect((await storage.getItem<string[]>(`job-deltas:${view.job_id}:0`))?.length).toBe(100);
    expect((await storage.getItem<string[]>(`job-deltas:${view.job_id}:1`))).toEqual(texts.slice(100, 200));
    expect((await storage.getItem<string[]>(`job-deltas:${view.job_id}:2`))).toEqual(texts.slice(200));

    const fromStart = collect(reader.jobs.events("acct_1", view.job_id));
    const fromMiddle = collect(reader.jobs.events("acct_1", view.job_id, 120));
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 250; i < 260; i++) job.write(`<${i}>`);
    driver.finish({ version_id: "ver_1" });
    const all = Array.from({ length: 260 }, (_, i) => `<${i}>`);

    const events = await fromStart;
    expect(events[0]).toMatchObject({ type: "meta", job: { status: "running" } });
    expect(deltasOf(events).map((delta) => delta.i)).toEqual(all.map((_, i) => i));
    expect(textOf(events)).toBe(all.join(""));
    expect(events.at(-1)).toMatchObject({ type: "done", job: { status: "done", version_id: "ver_1" } });
    const middle = await fromMiddle;
    expect(deltasOf(middle).map((delta) => delta.i)).toEqual(all.map((_, i) => i).slice(120));
    expect(await reader.jobs.get("acct_1", view.job_id)).toMatchObject({ status: "done" });
  });

  describe.each([
    { readers: "in the process running the job", sameProcess: true },
    { readers: "in another process sharing storage and events", sameProcess: false },
  ])("replay and live under concurrency, readers $readers", ({ sameProcess }) => {
    it("loses and repeats no delta across the boundary", async () => {
      const storage = createStorage();
      const bus = createInProcessEvents();
      const clock = newClock();
      const writer = setup({ storage, bus, clock });
      const reader = sameProcess ? writer : setup({ storage, bus, clock });
      const total = 1_500;
      const all = Array.from({ length: total }, (_, i) => `${i},`);
      let written = 0;
      const readers: { from: number; events: Promise<JobEvent[]> }[] = [];
      const view = await writer.jobs.start({ ownerId: "acct_1", type: "generate" }, async (job) => {
        while (written < total) {
          const burst = 1 + Math.floor(Math.random() * 40);
          for (let k = 0; k < burst && written < total; k++) job.write(all[written++]!);
          // Readers join at every stage: before anything is stored, mid-chunk, mid-burst.
          if (Math.random() < 0.3) {
            const from = Math.floor(Math.random() * (written + 20));
            readers.push({ from, events: collect(reader.jobs.events("acct_1", job.id, from)) });
          }
          await new Promise((resolve) => setTimeout(resolve, Math.random() < 0.2 ? 2 : 0));
        }
        return { version_id: "ver_1" };
      });
      readers.push({ from: 0, events: collect(reader.jobs.events("acct_1", view.job_id)) });
      await statusOf(writer.jobs, "acct_1", view.job_id, "done");
      readers.push({ from: 7, events: collect(reader.jobs.events("acct_1", view.job_id, 7)) });
      expect(readers.length).toBeGreaterThan(5);
      for (const { from, events } of readers) {
        const seen = await events;
        expect(seen[0]!.type).toBe("meta");
        expect(seen.at(-1)).toMatchObject({ type: "done", job: { status: "done" } });
        const deltas = deltasOf(seen);
        expect(deltas.map((delta) => delta.i)).toEqual(Array.from({ length: Math.max(0, total - from) }, (_, k) => from + k));
        expect(deltas.map((delta) => delta.t).join("")).toBe(all.slice(from).join(""));
      }
    });
  });

  it("ends a stream without an end event when its signal aborts", async () => {
    const { jobs } = setup();
    const driver = manual();
    const view = await jobs.start({ ownerId: "acct_1", type: "generate" }, driver.work);
    (await driver.job).write("x");
    const controller = new AbortController();
    const seen: JobEvent[] = [];
    for await (const event of jobs.events("acct_1", view.job_id, 0, controller.signal)) {
      seen.push(event);
      if (event.type === "delta") controller.abort();
    }
    expect(seen.map((event) => event.type)).toEqual(["meta", "delta"]);
    driver.finish();
  });
});

describe("jobs: forgetting", () => {
  it("forgets a job and its deltas 10 minutes after it ends", async () => {
    const { jobs, storage, clock } = setup();
    const view = await jobs.start({ ownerId: "acct_1", type: "generate" }, async (job) => {
      for (let i = 0; i < 150; i++) job.write("x");
    });
    await statusOf(jobs, "acct_1", view.job_id, "done");
    expect(JOB_RETENTION_MS).toBe(600_000);
    expect((await storage.getKeys()).filter((key) => key.includes(view.job_id))).toHaveLength(3);

    advance(clock, JOB_RETENTION_MS - 1_000);
    expect((await jobs.get("acct_1", view.job_id)).status).toBe("done");
    expect(deltasOf(await collect(jobs.events("acct_1", view.job_id)))).toHaveLength(150);
    advance(clock, 1_000);
    await expect(jobs.get("acct_1", view.job_id)).rejects.toMatchObject({ status: 404 });
    await expect(collect(jobs.events("acct_1", view.job_id))).rejects.toMatchObject({ status: 404 });
    expect((await storage.getKeys()).filter((key) => key.includes(view.job_id))).toEqual([]);
  });

  it("forgets old jobs left in storage by a sweep on first use", async () => {
    const storage = createStorage();
    const clock = newClock();
    const before = setup({ storage, clock });
    const view = await before.jobs.start({ ownerId: "acct_1", type: "generate" }, async (job) => job.write("x"));
    await statusOf(before.jobs, "acct_1", view.job_id, "done");
    advance(clock, JOB_RETENTION_MS);
    const after = setup({ storage, clock });
    await after.jobs.start({ ownerId: "acct_1", type: "generate" }, async () => {});
    await vi.waitFor(async () => expect(await storage.hasItem(`jobs:${view.job_id}`)).toBe(false), { timeout: 2_000, interval: 5 });
    expect(await storage.hasItem(`job-deltas:${view.job_id}:0`)).toBe(false);
  });
});

describe("jobs: processes that stop", () => {
  it("close() ends the jobs running here as aborted and aborts their signals", async () => {
    const storage = createStorage();
    const { jobs } = setup({ storage });
    const driver = manual();
    const view = await jobs.start({ ownerId: "acct_1", type: "deploy" }, driver.work);
    const job = await driver.job;
    job.write("step 1\n");
    await jobs.close();
    expect(job.signal.aborted).toBe(true);
    const restarted = setup({ storage });
    expect(await restarted.jobs.get("acct_1", view.job_id)).toMatchObject({
      status: "aborted",
      error: "The server stopped while this job ran. Start it again.",
    });
    await expect(jobs.start({ ownerId: "acct_1", type: "deploy" }, async () => {})).rejects.toMatchObject({ status: 503 });
  });

  it("a job whose process stopped without closing reads as aborted once its heartbeat is stale", async () => {
    const storage = createStorage();
    const staleMs = 30_000;
    const crashed = setup({ storage, settings: { ...FAST, staleMs } });
    const driver = manual();
    const view = await crashed.jobs.start({ ownerId: "acct_1", type: "generate" }, driver.work);
    const job = await driver.job;
    for (const text of ["one ", "two ", "three"]) job.write(text);
    await vi.waitFor(async () => expect((await storage.getItem<{ length: number }>(`jobs:${view.job_id}`))?.length).toBe(3));

    // Another process on the same storage: while the heartbeat is fresh the job is running there.
    const laterClock = newClock();
    const other = setup({ storage, clock: laterClock, settings: { ...FAST, staleMs } });
    expect((await other.jobs.get("acct_1", view.job_id)).status).toBe("running");
    // The first process "crashes": its clock (and so its heartbeat) stands still from here on.
    advance(laterClock, staleMs + 1_000);
    const aborted = await other.jobs.get("acct_1", view.job_id);
    expect(aborted).toMatchObject({ status: "aborted", error: expect.stringMatching(/server stopped/), finished_at: "2026-03-04 05:06:38" });
    const events = await collect(other.jobs.events("acct_1", view.job_id));
    expect(events.map((event) => event.type)).toEqual(["meta", "delta", "delta", "delta", "error"]);
    expect(textOf(events)).toBe("one two three");
  });

  it("a sweep on start-up marks records left running by a stopped process aborted", async () => {
    const storage = createStorage();
    const clock = newClock();
    await storage.setItem("jobs:job_left", {
      job_id: "job_left",
      owner_id: "acct_1",
      site_id: null,
      type: "deploy",
      status: "running",
      error: null,
      version_id: null,
      finished_at: null,
      next_job_id: null,
      run_id: "run_1",
      created_at: "2026-03-04 04:00:00",
      details: {},
      length: 0,
      heartbeat_at: clock.now().getTime() - 3_600_000,
    });
    // Starting a job lists it in the index the sweep reads.
    await storage.setItem("job-index", ["job_left"]);
    const { jobs } = setup({ storage, clock });
    await jobs.sweep();
    expect(await storage.getItem("jobs:job_left")).toMatchObject({ status: "aborted", finished_at: "2026-03-04 05:06:07" });
  });

  it("a job running in another process is cancelled over the event bus", async () => {
    const storage = createStorage();
    const bus = createInProcessEvents();
    const runner = setup({ storage, bus });
    const other = setup({ storage, bus });
    const driver = manual();
    const view = await runner.jobs.start({ ownerId: "acct_1", type: "generate" }, driver.work);
    const job = await driver.job;
    const cancelled = await other.jobs.cancel("acct_1", view.job_id);
    expect(cancelled).toMatchObject({ status: "cancelled" });
    expect(job.signal.aborted).toBe(true);
    expect(await runner.jobs.get("acct_1", view.job_id)).toEqual(cancelled);
  });
});
