import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createInProcessEvents,
  createReposite,
  EVENTS,
  JOB_SETTINGS,
  JobsService,
  type EventBus,
  type JobOutcome,
  type JobWork,
  type Reposite,
  type RunningJob,
} from "@reposite/core";
import { H3 } from "h3";
import { toNodeHandler } from "h3/node";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { errorResponse } from "../src/http/error-response.js";
import { useRepositeForOperations } from "../src/http/operation-route.js";
import { jobRoutes } from "../src/routes/jobs.js";

// Streams are tested over a real socket: an in-process request cannot show a dropped connection.

/** The event bus, counting live subscriptions per channel, to see a stream let go of its job. */
function countingBus(inner: EventBus) {
  const active = new Map<string, number>();
  const bus: EventBus = {
    publish: (channel, event) => inner.publish(channel, event),
    subscribe(channel, listener) {
      active.set(channel, (active.get(channel) ?? 0) + 1);
      const stop = inner.subscribe(channel, listener);
      let stopped = false;
      return () => {
        if (!stopped) active.set(channel, active.get(channel)! - 1);
        stopped = true;
        stop();
      };
    },
  };
  return { bus, active };
}

let reposite: Reposite;
let jobs: JobsService;
let server: Server;
let base: string;
let active: Map<string, number>;

beforeAll(async () => {
  const counting = countingBus(createInProcessEvents());
  active = counting.active;
  reposite = createReposite({
    storage: createStorage(),
    repoHosts: [],
    register: (container) => {
      container.register(EVENTS, { useValue: counting.bus });
      container.register(JOB_SETTINGS, { useValue: { flushMs: 5, pollMs: 20 } });
      container.registerSingleton(JobsService);
    },
  });
  jobs = reposite.container.resolve(JobsService);
  const app = new H3({ onError: errorResponse, silent: true });
  useRepositeForOperations(app, reposite);
  jobRoutes(app, reposite, { keepAliveMs: 40 });
  server = createServer(toNodeHandler(app));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await jobs?.close();
  await reposite?.close();
});

let people = 0;
async function signUp(): Promise<{ token: string; accountId: string }> {
  const { account } = await reposite.accounts.findOrCreate(`person${++people}@example.com`);
  const { secret } = await reposite.tokens.create(account.id, { name: "test", lifetime: "30d" });
  return { token: secret, accountId: account.id };
}

const auth = (token: string, headers: Record<string, string> = {}) => ({ headers: { authorization: `Bearer ${token}`, ...headers } });

/** Work the test drives by hand. */
function manual() {
  let finish!: (outcome?: JobOutcome) => void;
  let started!: (job: RunningJob) => void;
  const job = new Promise<RunningJob>((resolve) => (started = resolve));
  const work: JobWork = (running) => {
    started(running);
    return new Promise<JobOutcome | void>((resolve) => (finish = resolve));
  };
  return { work, job, finish: (outcome?: JobOutcome) => finish(outcome) };
}

interface Frame {
  event?: string;
  id?: string;
  data?: string;
  comment?: string;
}

function parseFrame(block: string): Frame {
  const frame: Frame = {};
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) frame.comment = line.slice(1).trim();
    else {
      const [field, ...rest] = line.split(": ");
      (frame as Record<string, string>)[field!] = rest.join(": ");
    }
  }
  return frame;
}

/** Reads a stream's frames as they come. */
function frames(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next(): Promise<Frame | undefined> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          return parseFrame(block);
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += value;
      }
    },
    /** Frames until the stream ends, keep-alive comments left out. */
    async rest(): Promise<Frame[]> {
      const all: Frame[] = [];
      for (let frame = await this.next(); frame; frame = await this.next()) if (!frame.comment) all.push(frame);
      return all;
    },
  };
}

const deltaTexts = (all: Frame[]) => all.filter((frame) => frame.event === "delta").map((frame) => JSON.parse(frame.data!).t as string);

describe("GET /app/jobs/{job_id}", () => {
  it("answers the caller's job, 404 for anyone else's or a missing one, 401 without a token", async () => {
    const { token, accountId } = await signUp();
    const other = await signUp();
    const view = await jobs.start({ ownerId: accountId, siteId: "site_1", type: "generate", details: { mode: "saas", pages: ["faq"] } }, async () => ({
      version_id: "ver_1",
    }));
    await vi.waitFor(async () => expect((await jobs.get(accountId, view.job_id)).status).toBe("done"));
    const response = await fetch(`${base}/app/jobs/${view.job_id}`, auth(token));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      job_id: view.job_id,
      type: "generate",
      status: "done",
      error: null,
      site_id: "site_1",
      version_id: "ver_1",
      finished_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      next_job_id: null,
      run_id: null,
      mode: "saas",
      pages: ["faq"],
    });
    for (const path of [`/app/jobs/${view.job_id}`, `/app/jobs/${view.job_id}/stream`]) {
      const theirs = await fetch(`${base}${path}`, auth(other.token));
      expect(theirs.status).toBe(404);
      expect(await theirs.json()).toEqual({ error: "Job not found." });
    }
    expect((await fetch(`${base}/app/jobs/job_nothing`, auth(token))).status).toBe(404);
    expect((await fetch(`${base}/app/jobs/${view.job_id}`)).status).toBe(401);
    expect((await fetch(`${base}/app/jobs/${view.job_id}/stream`)).status).toBe(401);
  });
});

describe("GET /app/jobs/{job_id}/stream", () => {
  it("answers server-sent events with exactly the documented frames", async () => {
    const { token, accountId } = await signUp();
    const view = await jobs.start({ ownerId: accountId, type: "generate", details: { kind: "about" } }, async (job) => {
      job.write("Hello");
      job.write(', "world"\nline two');
      return { version_id: "ver_7" };
    });
    await vi.waitFor(async () => expect((await jobs.get(accountId, view.job_id)).status).toBe("done"));
    const done = await jobs.get(accountId, view.job_id);

    const response = await fetch(`${base}/app/jobs/${view.job_id}/stream`, auth(token));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    expect(await response.text()).toBe(
      `event: meta\ndata: ${JSON.stringify(done)}\n\n` +
        `event: delta\nid: 0\ndata: {"i":0,"t":"Hello"}\n\n` +
        `event: delta\nid: 1\ndata: {"i":1,"t":", \\"world\\"\\nline two"}\n\n` +
        `event: done\ndata: ${JSON.stringify(done)}\n\n`,
    );
  });

  it("ends with an error frame carrying the record for failed and cancelled jobs", async () => {
    const { token, accountId } = await signUp();
    const driver = manual();
    const view = await jobs.start({ ownerId: accountId, type: "deploy", runId: "run_1" }, driver.work);
    (await driver.job).write("building\n");
    const stream = frames(await fetch(`${base}/app/jobs/${view.job_id}/stream`, auth(token)));
    expect((await stream.next())?.event).toBe("meta");
    expect(await stream.next()).toEqual({ event: "delta", id: "0", data: '{"i":0,"t":"building\\n"}' });

    const cancel = await fetch(`${base}/app/jobs/${view.job_id}/cancel`, { method: "POST", ...auth(token) });
    expect(cancel.status).toBe(200);
    const cancelled = await cancel.json();
    expect(cancelled).toMatchObject({ status: "cancelled", error: "The job was cancelled.", run_id: "run_1" });
    expect((await driver.job).signal.aborted).toBe(true);
    expect(await stream.rest()).toEqual([{ event: "error", data: JSON.stringify(cancelled) }]);

    // Cancelling again answers the record unchanged.
    const again = await fetch(`${base}/app/jobs/${view.job_id}/cancel`, { method: "POST", ...auth(token) });
    expect(await again.json()).toEqual(cancelled);
    const other = await signUp();
    expect((await fetch(`${base}/app/jobs/${view.job_id}/cancel`, { method: "POST", ...auth(other.token) })).status).toBe(404);
  });

  it("starts at from, or after Last-Event-ID; from wins when both are sent", async () => {
    const { token, accountId } = await signUp();
    const view = await jobs.start({ ownerId: accountId, type: "generate" }, async (job) => {
      for (const text of ["a", "b", "c", "d"]) job.write(text);
    });
    await vi.waitFor(async () => expect((await jobs.get(accountId, view.job_id)).status).toBe("done"));
    const url = `${base}/app/jobs/${view.job_id}/stream`;
    const texts = async (path: string, headers: Record<string, string> = {}) =>
      deltaTexts(await frames(await fetch(`${url}${path}`, auth(token, headers))).rest());
    expect(await texts("")).toEqual(["a", "b", "c", "d"]);
    expect(await texts("?from=2")).toEqual(["c", "d"]);
    expect(await texts("?from=9")).toEqual([]);
    expect(await texts("", { "last-event-id": "0" })).toEqual(["b", "c", "d"]);
    expect(await texts("?from=3", { "last-event-id": "0" })).toEqual(["d"]);

    for (const [path, headers, field] of [
      ["?from=abc", {}, "from"],
      ["?from=-1", {}, "from"],
      ["?from=1.5", {}, "from"],
      ["?from=", {}, "from"],
      ["", { "last-event-id": "x" }, "last-event-id"],
    ] as const) {
      const response = await fetch(`${url}${path}`, auth(token, headers));
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ code: "invalid_request", field });
    }
  });

  it("follows a running job live and sends keep-alive comments while it is quiet", async () => {
    const { token, accountId } = await signUp();
    const driver = manual();
    const view = await jobs.start({ ownerId: accountId, type: "generate" }, driver.work);
    const job = await driver.job;
    const stream = frames(await fetch(`${base}/app/jobs/${view.job_id}/stream`, auth(token)));
    expect(await stream.next()).toMatchObject({ event: "meta", data: expect.stringContaining('"status":"running"') });
    expect(await stream.next()).toEqual({ comment: "keep-alive" });
    job.write("live");
    let frame = await stream.next();
    while (frame?.comment) frame = await stream.next();
    expect(frame).toEqual({ event: "delta", id: "0", data: '{"i":0,"t":"live"}' });
    driver.finish();
    const rest = await stream.rest();
    expect(rest.map((each) => each.event)).toEqual(["done"]);
  });

  it("resumes after a dropped connection with from: the joined text is the whole text, and the job kept running", async () => {
    const { token, accountId } = await signUp();
    const driver = manual();
    const view = await jobs.start({ ownerId: accountId, type: "generate" }, driver.work);
    const job = await driver.job;
    const all = Array.from({ length: 40 }, (_, i) => `word${i} `);
    for (const text of all.slice(0, 20)) job.write(text);

    const channel = `jobs:${view.job_id}`;
    const controller = new AbortController();
    const first = frames(await fetch(`${base}/app/jobs/${view.job_id}/stream`, { ...auth(token), signal: controller.signal }));
    expect(active.get(channel)).toBe(1);
    const received: { i: number; t: string }[] = [];
    for (let frame = await first.next(); frame; frame = await first.next()) {
      if (frame.event !== "delta") continue;
      received.push(JSON.parse(frame.data!));
      if (received.length === 7) break;
    }
    controller.abort();
    // The server lets go of the job (no listener left), and the job runs on.
    await vi.waitFor(() => expect(active.get(channel)).toBe(0));
    expect(job.signal.aborted).toBe(false);
    for (const text of all.slice(20, 30)) job.write(text);

    const last = received.at(-1)!.i;
    const second = frames(await fetch(`${base}/app/jobs/${view.job_id}/stream?from=${last + 1}`, auth(token)));
    const resumed: { i: number; t: string }[] = [];
    for (let frame = await second.next(); frame; frame = await second.next()) {
      if (frame.event === "delta") resumed.push(JSON.parse(frame.data!));
      if (resumed.length === 15) {
        for (const text of all.slice(30)) job.write(text);
        driver.finish({ version_id: "ver_1" });
      }
      if (frame.event === "done") break;
    }
    const joined = [...received, ...resumed];
    expect(joined.map((delta) => delta.i)).toEqual(all.map((_, i) => i));
    expect(joined.map((delta) => delta.t).join("")).toBe(all.join(""));
    await vi.waitFor(() => expect(active.get(channel)).toBe(0));
  });
});
