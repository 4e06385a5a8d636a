import { jobCancel, jobGet, jobStream } from "@reposite/contract";
import { RepositeError, type JobEvent, type Reposite } from "@reposite/core";
import type { H3, H3Event } from "h3";
import { requireToken } from "../http/auth.js";
import { operationRoute } from "../http/operation-route.js";

/** A comment line this often keeps proxies and load balancers from closing a quiet stream. */
export const KEEP_ALIVE_MS = 15_000;

export interface JobRoutesOptions {
  /** Milliseconds between `: keep-alive` comments. Default 15 000. */
  keepAliveMs?: number;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  // nginx and similar proxies would otherwise hold the frames back in their buffers.
  "x-accel-buffering": "no",
};

/** Jobs: read, cancel, and follow as server-sent events. */
export function jobRoutes(app: H3, reposite: Reposite, options: JobRoutesOptions = {}): void {
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;

  operationRoute(app, jobGet, async (event, { params }) => {
    const { account } = await requireToken(reposite, event);
    return reposite.jobs.get(account.id, params.job_id);
  });

  operationRoute(app, jobCancel, async (event, { params }) => {
    const { account } = await requireToken(reposite, event);
    return reposite.jobs.cancel(account.id, params.job_id);
  });

  operationRoute(app, jobStream, async (event, { params, query }) => {
    const { account } = await requireToken(reposite, event);
    return jobEventStream(reposite, event, account.id, params.job_id, query.from, keepAliveMs);
  });
}

/**
 * `ownerId`'s job `jobId` as server-sent events from `from` (else the `Last-Event-ID` header plus
 * one, else the start): the API's stream, and the dashboard's for a browser session.
 */
export async function jobEventStream(
  reposite: Reposite,
  event: H3Event,
  ownerId: string,
  jobId: string,
  from: number | undefined,
  keepAliveMs = KEEP_ALIVE_MS,
): Promise<Response> {
  const stop = new AbortController();
  const events = reposite.jobs.events(ownerId, jobId, from ?? resumePointOfHeader(event), stop.signal);
  // The first event (meta) is read before answering, so 404 and 422 still get their status.
  const first = await events.next();
  if (first.done) throw new RepositeError(404, "Job not found.");
  event.req.signal?.addEventListener("abort", () => stop.abort(), { once: true });
  return new Response(sseBody(first.value, events, stop, keepAliveMs), { status: 200, headers: SSE_HEADERS });
}

/**
 * Where a stream starts without `?from=` (the operation's query, which wins when both are sent):
 * the `Last-Event-ID` header plus one (what an EventSource sends when it reconnects), else 0.
 */
function resumePointOfHeader(event: H3Event): number {
  const lastId = event.req.headers.get("last-event-id");
  if (lastId === null || lastId.trim() === "") return 0;
  const id = /^\d{1,15}$/.test(lastId.trim()) ? Number(lastId.trim()) : Number.NaN;
  if (!Number.isSafeInteger(id)) {
    throw new RepositeError(422, "Last-Event-ID must be the id of a delta (a whole number).", "invalid_request", { field: "last-event-id" });
  }
  return id + 1;
}

/**
 * One event as an SSE frame. Data is JSON on one line (JSON.stringify escapes line breaks), so
 * every frame is a single `data:` line; deltas carry their `i` as the event id.
 */
export function sseFrame(event: JobEvent): string {
  if (event.type === "delta") return `event: delta\nid: ${event.i}\ndata: ${JSON.stringify({ i: event.i, t: event.t })}\n\n`;
  return `event: ${event.type}\ndata: ${JSON.stringify(event.job)}\n\n`;
}

/**
 * The stream body: the events as frames, a keep-alive comment while quiet. When the client goes
 * away, `stop` aborts: the service stops following the job (which keeps running) and unsubscribes.
 */
function sseBody(
  first: JobEvent,
  events: AsyncGenerator<JobEvent, void, undefined>,
  stop: AbortController,
  keepAliveMs: number,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let keepAlive: NodeJS.Timeout | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          open = false;
        }
      };
      send(sseFrame(first));
      keepAlive = setInterval(() => send(": keep-alive\n\n"), keepAliveMs);
      keepAlive.unref?.();
      void (async () => {
        try {
          for await (const event of events) {
            // Gone while a replay was still being read: stop there (and unsubscribe).
            if (stop.signal.aborted) break;
            send(sseFrame(event));
          }
        } catch (error) {
          // Storage failing mid-stream: the client sees the connection end and may resume with `from`.
          console.error("[reposite] a job stream failed:", error);
        } finally {
          clearInterval(keepAlive);
          if (open) {
            open = false;
            try {
              controller.close();
            } catch {
              // Cancelled meanwhile.
            }
          }
        }
      })();
    },
    cancel() {
      clearInterval(keepAlive);
      stop.abort();
    },
  });
}
