import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createReposite,
  JOB_SETTINGS,
  type JobsService,
  type JobOutcome,
  type JobWork,
  type Reposite,
  type RunningJob,
} from "@reposite/core";
import { startServer, type RunningServer } from "@reposite/server";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  APIConnectionError,
  APIUserAbortError,
  createClient,
  NotFoundError,
  type JobStreamEvent,
  type RepositeClient,
} from "../src/index.js";
import { ServerSentEventParser } from "../src/internal/sse.js";

/**
 * What the proxy in front of the server does to each stream connection: pass it through, cut the
 * socket in the middle of the frame after `frames` whole ones, stall (stop passing bytes on but
 * keep the socket open) after `frames`, or refuse it outright.
 */
type Mode = { kind: "pass" } | { kind: "cut"; frames: number } | { kind: "stall"; frames: number } | { kind: "refuse" };

let reposite: Reposite;
let jobs: JobsService;
let server: RunningServer;
let proxy: Server;
let upstream: string;
let proxyUrl: string;
let modes: Mode[] = [];
const proxied: string[] = [];

beforeAll(async () => {
  reposite = createReposite({
    storage: createStorage(),
    repoHosts: [],
    register: (container) => container.register(JOB_SETTINGS, { useValue: { flushMs: 5, pollMs: 20 } }),
  });
  jobs = reposite.jobs;
  server = await startServer({ reposite, settings: { listen: { port: 0, hostname: "127.0.0.1" }, reposite: {} } });
  upstream = server.url;

  // Request n gets modes[n] (the last one repeats; none: pass).
  proxy = createServer((req, res) => {
    proxied.push(req.url ?? "");
    const mode = modes.length === 0 ? ({ kind: "pass" } as Mode) : modes[Math.min(proxied.length, modes.length) - 1]!;
    if (mode.kind === "refuse") return void req.socket.destroy();
    const forward = httpRequest(`${upstream}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      let frames = 0;
      let previous = 0;
      let stalled = false;
      answer.on("data", (chunk: Buffer) => {
        if (stalled) return;
        if (mode.kind === "pass") return void res.write(chunk);
        for (let k = 0; k < chunk.length; k++) {
          if (chunk[k] === 0x0a && previous === 0x0a && ++frames === mode.frames) {
            if (mode.kind === "stall") {
              res.write(chunk.subarray(0, k + 1));
              stalled = true;
              return;
            }
            // Half a frame more, then the connection breaks.
            res.write(chunk.subarray(0, Math.min(chunk.length, k + 12)), () => res.socket?.destroy());
            answer.destroy();
            return;
          }
          previous = chunk[k]!;
        }
        res.write(chunk);
      });
      answer.on("end", () => res.end());
    });
    req.pipe(forward);
    res.on("close", () => forward.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  // Closes the listener, then Reposite (jobs, storage).
  await server?.close();
});

let people = 0;
const delays: number[] = [];
/** A client of a new account, through the proxy; waits between reconnections are recorded, not slept. */
async function signUp(): Promise<{ client: RepositeClient; accountId: string }> {
  const { account } = await reposite.accounts.findOrCreate(`person${++people}@example.com`);
  const { secret } = await reposite.tokens.create(account.id, { name: "sdk", lifetime: "30d" });
  const client = createClient({ baseURL: proxyUrl, token: secret, sleep: async (ms) => void delays.push(ms) });
  return { client, accountId: account.id };
}

function reset(...next: Mode[]) {
  modes = next;
  proxied.length = 0;
  delays.length = 0;
}

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

async function collect(stream: AsyncIterable<JobStreamEvent>): Promise<JobStreamEvent[]> {
  const events: JobStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const deltas = (events: JobStreamEvent[]) => events.filter((event) => event.type === "delta") as Extract<JobStreamEvent, { type: "delta" }>[];

describe("jobs.stream", () => {
  it("survives connections cut mid-frame: every delta once, in order, then done", async () => {
    reset({ kind: "cut", frames: 9 });
    const { client, accountId } = await signUp();
    const texts = Array.from({ length: 60 }, (_, i) => `line ${i} ✓ "q"\n`);
    const view = await jobs.start({ ownerId: accountId, type: "deploy", runId: "run_1" }, async (job) => {
      for (const text of texts) {
        job.write(text);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return {};
    });

    const events = await collect(client.jobs.stream(view.job_id));
    expect(events.filter((event) => event.type === "meta")).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "meta", job: { job_id: view.job_id, type: "deploy", run_id: "run_1" } });
    expect(deltas(events).map((delta) => delta.i)).toEqual(texts.map((_, i) => i));
    expect(deltas(events).map((delta) => delta.t).join("")).toBe(texts.join(""));
    expect(events.at(-1)).toMatchObject({ type: "done", job: { status: "done", finished_at: expect.any(String) } });

    // It reconnected several times, each time from the next i it needed.
    expect(proxied.length).toBeGreaterThan(3);
    expect(proxied[0]).toBe(`/app/jobs/${view.job_id}/stream`);
    const froms = proxied.slice(1).map((url) => Number(new URL(url, proxyUrl).searchParams.get("from")));
    expect(froms).toEqual([...froms].sort((a, b) => a - b));
    expect(froms.every((from) => from > 0)).toBe(true);
  });

  it("reconnects when a connection goes silent for idleTimeout", async () => {
    reset({ kind: "stall", frames: 2 }, { kind: "pass" });
    const { client, accountId } = await signUp();
    const driver = manual();
    const view = await jobs.start({ ownerId: accountId, type: "generate" }, driver.work);
    const job = await driver.job;
    job.write("one ");
    const seen: JobStreamEvent[] = [];
    for await (const event of client.jobs.stream(view.job_id, { idleTimeout: 40 })) {
      seen.push(event);
      if (event.type === "delta" && event.i === 0) {
        job.write("two ");
        job.write("three");
        driver.finish({ version_id: "ver_1" });
      }
    }
    expect(deltas(seen).map((delta) => delta.t).join("")).toBe("one two three");
    expect(seen.at(-1)).toMatchObject({ type: "done", job: { version_id: "ver_1" } });
    expect(proxied).toEqual([`/app/jobs/${view.job_id}/stream`, `/app/jobs/${view.job_id}/stream?from=1`]);
  });

  it("starts at from", async () => {
    reset();
    const { client, accountId } = await signUp();
    const view = await jobs.start({ ownerId: accountId, type: "generate" }, async (job) => {
      for (const text of ["a", "b", "c", "d"]) job.write(text);
    });
    await vi.waitFor(async () => expect((await client.jobs.get(view.job_id)).status).toBe("done"));
    const events = await collect(client.jobs.stream(view.job_id, { from: 2 }));
    expect(events.map((event) => event.type)).toEqual(["meta", "delta", "delta", "done"]);
    expect(deltas(events)).toEqual([
      { type: "delta", i: 2, t: "c" },
      { type: "delta", i: 3, t: "d" },
    ]);
    await expect(collect(client.jobs.stream(view.job_id, { from: -1 }))).rejects.toThrow(/from must be/);
  });

  it("gives up with APIConnectionError after maxReconnects failures in a row, backing off between them", async () => {
    reset({ kind: "refuse" });
    const { client, accountId } = await signUp();
    const view = await jobs.start({ ownerId: accountId, type: "generate" }, async () => {});
    const failure = await collect(client.jobs.stream(view.job_id, { maxReconnects: 3 })).catch((error: unknown) => error);
    expect(APIConnectionError.isInstance(failure)).toBe(true);
    expect(proxied).toHaveLength(4);
    expect(delays).toHaveLength(3);
    expect(delays[1]!).toBeGreaterThan(delays[0]!);
    expect(delays[2]!).toBeGreaterThan(delays[1]!);
  });

  it("throws NotFoundError for someone else's job, without reconnecting", async () => {
    reset();
    const owner = await signUp();
    const other = await signUp();
    const view = await jobs.start({ ownerId: owner.accountId, type: "generate" }, async () => {});
    await expect(collect(other.client.jobs.stream(view.job_id))).rejects.toBeInstanceOf(NotFoundError);
    await expect(other.client.jobs.get(view.job_id)).rejects.toBeInstanceOf(NotFoundError);
    expect(proxied).toHaveLength(2);
  });

  it("stops when its signal aborts, and breaking out leaves the job running", async () => {
    reset();
    const { client, accountId } = await signUp();
    const driver = manual();
    const view = await jobs.start({ ownerId: accountId, type: "generate" }, driver.work);
    const job = await driver.job;
    job.write("x");
    for await (const event of client.jobs.stream(view.job_id)) {
      if (event.type === "delta") break;
    }
    const controller = new AbortController();
    const aborted = (async () => {
      for await (const event of client.jobs.stream(view.job_id, { signal: controller.signal })) {
        if (event.type === "delta") controller.abort();
      }
    })();
    await expect(aborted).rejects.toBeInstanceOf(APIUserAbortError);
    expect(job.signal.aborted).toBe(false);
    expect((await client.jobs.get(view.job_id)).status).toBe("running");
    driver.finish();
  });
});

describe("jobs.get, jobs.cancel, jobs.wait", () => {
  it("wait answers the ended job with the whole text; cancel ends a running job", async () => {
    reset({ kind: "cut", frames: 3 });
    const { client, accountId } = await signUp();
    const view = await jobs.start({ ownerId: accountId, siteId: "site_1", type: "generate", details: { mode: "website", kind: "faq" } }, async (job) => {
      for (const text of ["<h1>", "FAQ", "</h1>"]) job.write(text);
      return { version_id: "ver_faq" };
    });
    const result = await client.jobs.wait(view.job_id);
    expect(result.text).toBe("<h1>FAQ</h1>");
    expect(result.job).toMatchObject({ job_id: view.job_id, status: "done", version_id: "ver_faq", mode: "website", kind: "faq", site_id: "site_1" });

    reset();
    const driver = manual();
    const running = await jobs.start({ ownerId: accountId, type: "generate" }, driver.work);
    const job = await driver.job;
    job.write("partial");
    const cancelled = await client.jobs.cancel(running.job_id);
    expect(cancelled).toMatchObject({ status: "cancelled", error: "The job was cancelled." });
    expect(job.signal.aborted).toBe(true);
    expect(await client.jobs.get(running.job_id)).toEqual(cancelled);
    expect(await client.jobs.wait(running.job_id)).toEqual({ job: cancelled, text: "partial" });
  });
});

describe("server-sent event parsing", () => {
  const parse = (...chunks: string[]) => {
    const parser = new ServerSentEventParser();
    return chunks.flatMap((chunk) => parser.push(chunk));
  };

  it("reads fields, comments, multi-line data and ids as EventSource does", () => {
    expect(
      parse(
        "\uFEFF: comment\n",
        "event: delta\nid: 7\ndata: {\"i\":7,\ndata:\"t\":\"x\"}\n\n",
        "data\n\n",
        "event: empty\n\n",
        "retry: 10\nunknown: y\ndata:  two spaces\n\n",
        "id: bad\0id\ndata: z\n\n",
        "data: unfinished",
      ),
    ).toEqual([
      { event: "delta", data: '{"i":7,\n"t":"x"}', id: "7" },
      { event: "message", data: "", id: "7" },
      { event: "message", data: " two spaces", id: "7" },
      { event: "message", data: "z", id: "7" },
    ]);
  });

  it("splits lines on CRLF, CR and LF, also across chunks", () => {
    expect(parse("event: a\r", "\ndata: 1\r", "\r", "event: b\rdata: 2\r\rdata: 3\n", "\n")).toEqual([
      { event: "a", data: "1", id: undefined },
      { event: "b", data: "2", id: undefined },
      { event: "message", data: "3", id: undefined },
    ]);
  });
});
