import type { RequestOptions } from "../client.js";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  RepositeAPIError,
  RepositeSDKError,
} from "../errors.js";
import { isRetryableStatus, retryDelay } from "../internal/retry.js";
import { ServerSentEventParser, type ServerSentEvent } from "../internal/sse.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type { Job, JobResult, JobStreamEvent } from "../types.js";

const DEFAULT_MAX_RECONNECTS = 5;
/** The server sends a keep-alive comment every 15 s; three missed ones mean the connection is dead. */
const DEFAULT_IDLE_TIMEOUT_MS = 45_000;

/** Options of `jobs.stream()` and `jobs.wait()`. */
export interface JobStreamOptions extends Pick<RequestOptions, "headers" | "signal" | "timeout"> {
  /** The first delta wanted (`i`); default 0, the whole text. */
  from?: number;
  /**
   * Reconnections in a row that may bring nothing new before the stream gives up and throws
   * (`APIConnectionError`). A connection that delivers a new delta, or stays open for
   * `idleTimeout`, resets the count. Default 5.
   */
  maxReconnects?: number;
  /** Milliseconds without a byte (not even a keep-alive) after which the connection counts as dropped. Default 45 000. */
  idleTimeout?: number;
}

/** Options of `jobs.followChain()`. */
export interface JobChainOptions extends Omit<JobStreamOptions, "from"> {
  /** Every event of every job in the chain, with the id of the job it belongs to. */
  onEvent?: (event: JobStreamEvent, jobId: string) => void;
}

/**
 * Jobs: page generation and deploys. Follow one with `stream()` (server-sent events that survive
 * dropped connections) or `wait()`; when a generation job ends `done` with `next_job_id`, follow
 * that job the same way.
 */
export class Jobs extends APIResource {
  /** The job. `GET /app/jobs/{job_id}`; `NotFoundError` when it is someone else's or was forgotten (ten minutes after it ended). */
  async get(jobId: string, options?: RequestOptions): Promise<Job> {
    return this.call(route("jobs.get", { job_id: jobId }), options);
  }

  /**
   * Stops a running job; it ends `cancelled` (pages finished before stay). A job that ended
   * already is answered unchanged. `POST /app/jobs/{job_id}/cancel`.
   */
  async cancel(jobId: string, options?: RequestOptions): Promise<Job> {
    return this.call(route("jobs.cancel", { job_id: jobId }), options);
  }

  /**
   * Follows the job: `meta` once, every delta from `from` on, then `done` or `error`, and the
   * iteration ends. `GET /app/jobs/{job_id}/stream`. When the connection drops, it reconnects with
   * `from` = the next `i`, so no delta is missed or repeated (`meta` is not repeated either).
   * Throws `NotFoundError` for a job that is not the caller's, `APIConnectionError` when
   * reconnecting keeps failing, and `APIUserAbortError` when `signal` aborts. Breaking out of the
   * loop closes the connection; the job keeps running.
   *
   * @example
   * for await (const event of client.jobs.stream(job_id)) {
   *   if (event.type === "delta") process.stdout.write(event.t);
   * }
   */
  stream(jobId: string, options: JobStreamOptions = {}): AsyncIterable<JobStreamEvent> {
    return { [Symbol.asyncIterator]: () => this.#follow(jobId, options) };
  }

  /**
   * Follows the job to its end and answers it with the text written (from `from` on). A job that
   * ends `error`, `cancelled` or `aborted` is answered too: check `job.status`.
   */
  async wait(jobId: string, options: JobStreamOptions = {}): Promise<JobResult> {
    const texts: string[] = [];
    for await (const event of this.stream(jobId, options)) {
      if (event.type === "delta") texts.push(event.t);
      else if (event.type !== "meta") return { job: event.job, text: texts.join("") };
    }
    // Unreachable: the stream only ends after done or error.
    throw new RepositeSDKError("The job stream ended without the job's end.");
  }

  /**
   * Follows a generation from its first job to its last: each job's stream to its end, then, when
   * it ended `done` with `next_job_id`, that job (pages are written one after another). Answers
   * every job as it ended, in order; the chain stops at the first that did not end `done`, so
   * check the last one's `status`.
   *
   * @example
   * const { job_id } = await client.sites.generate(siteId, { mode: "saas", pages: ["about", "faq"] });
   * const jobs = await client.jobs.followChain(job_id, { onEvent: (event, id) => event.type === "done" && console.log(id, "done") });
   * if (jobs.at(-1)!.status !== "done") throw new Error(jobs.at(-1)!.error ?? "generation failed");
   */
  async followChain(jobId: string, options: JobChainOptions = {}): Promise<Job[]> {
    const { onEvent, ...streamOptions } = options;
    const ended: Job[] = [];
    const seen = new Set<string>();
    for (let next: string | null = jobId; next; ) {
      // A chain that came back to a job already followed would never end.
      if (seen.has(next)) throw new RepositeSDKError(`The job chain came back to ${next}.`);
      seen.add(next);
      const current: string = next;
      let job: Job | undefined;
      for await (const event of this.stream(current, streamOptions)) {
        onEvent?.(event, current);
        if (event.type === "done" || event.type === "error") job = event.job;
      }
      ended.push(job!);
      next = job!.status === "done" ? (job!.next_job_id ?? null) : null;
    }
    return ended;
  }

  async *#follow(jobId: string, options: JobStreamOptions): AsyncGenerator<JobStreamEvent, void, undefined> {
    const stream = route("jobs.stream", { job_id: jobId });
    const { signal, headers, timeout } = options;
    const maxReconnects = options.maxReconnects ?? DEFAULT_MAX_RECONNECTS;
    const idleTimeout = options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT_MS;
    let next = options.from ?? 0;
    if (!Number.isSafeInteger(next) || next < 0) throw new RepositeSDKError("from must be a whole number, 0 or more.");
    let sawMeta = false;
    let failures = 0;
    for (;;) {
      let lastError: RepositeSDKError;
      let retryAfter: string | null = null;
      const connectedAt = Date.now();
      let progressed = false;
      try {
        const body = await this.call<ReadableStream<Uint8Array>>(stream, {
          ...(headers ? { headers } : {}),
          ...(signal ? { signal } : {}),
          ...(timeout !== undefined ? { timeout } : {}),
          query: { from: next > 0 ? next : undefined },
          responseType: "stream",
          // Reconnecting is this loop's job: it knows where to resume.
          maxRetries: 0,
        });
        for await (const message of readEvents(body, idleTimeout, signal)) {
          const event = toJobStreamEvent(message);
          if (!event) continue;
          if (event.type === "meta") {
            if (sawMeta) continue;
            sawMeta = true;
          } else if (event.type === "delta") {
            if (event.i < next) continue;
            next = event.i + 1;
            progressed = true;
          }
          yield event;
          if (event.type === "done" || event.type === "error") return;
        }
        lastError = new APIConnectionError("The job stream closed before the job ended.");
      } catch (error) {
        if (signal?.aborted) throw APIUserAbortError.isInstance(error) ? error : new APIUserAbortError("The request was aborted.", { cause: error });
        const resumable =
          APIConnectionError.isInstance(error) || (RepositeAPIError.isInstance(error) && isRetryableStatus("GET", error.status));
        if (!resumable) throw error;
        lastError = error as RepositeSDKError;
        if (RepositeAPIError.isInstance(error)) retryAfter = error.headers.get("retry-after");
      }
      if (progressed || Date.now() - connectedAt >= idleTimeout) failures = 0;
      if (failures >= maxReconnects) throw lastError;
      const delay = retryDelay(failures, retryAfter);
      if (delay === null) throw lastError;
      failures++;
      await this.client.backoff(delay, signal);
    }
  }
}

/** The stream's events as they arrive; read errors and silence become `APIConnectionError`s. */
async function* readEvents(
  body: ReadableStream<Uint8Array>,
  idleTimeout: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new ServerSentEventParser();
  try {
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<"idle">((resolve) => (timer = setTimeout(() => resolve("idle"), idleTimeout)));
      let result: ReadableStreamReadResult<Uint8Array> | "idle";
      try {
        result = await Promise.race([reader.read(), idle]);
      } catch (error) {
        if (signal?.aborted) throw new APIUserAbortError("The request was aborted.", { cause: error });
        throw new APIConnectionError("The job stream broke off.", { cause: error });
      } finally {
        clearTimeout(timer);
      }
      if (result === "idle") throw new APIConnectionTimeoutError(`The job stream sent nothing for ${idleTimeout} ms.`);
      if (result.done) {
        parser.push(decoder.decode());
        return;
      }
      yield* parser.push(decoder.decode(result.value, { stream: true }));
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** A frame as a typed event; frames of kinds this SDK does not know are skipped. */
function toJobStreamEvent(message: ServerSentEvent): JobStreamEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    throw new APIConnectionError(`The job stream sent a ${message.event} event that is not JSON.`);
  }
  const object = typeof data === "object" && data !== null ? (data as Record<string, unknown>) : undefined;
  switch (message.event) {
    case "delta":
      if (!object || !Number.isSafeInteger(object.i) || typeof object.t !== "string") {
        throw new APIConnectionError("The job stream sent a delta without a whole-number i and a text t.");
      }
      return { type: "delta", i: object.i as number, t: object.t };
    case "meta":
    case "done":
    case "error":
      if (!object) throw new APIConnectionError(`The job stream sent a ${message.event} event without the job.`);
      return { type: message.event, job: object as Job };
    default:
      return undefined;
  }
}
