import { request } from "node:http";
import type { ContainerState } from "../ports/container-runtime.js";

/** How long one probe may take. */
const PROBE_TIMEOUT_MS = 2_000;
/**
 * After its first answer a new container must still run this long later (an app that answers once
 * and dies as it warms up, out of memory, is not up). Traffic switches at the first answer and
 * comes back when it does not (`AppContainers.switchTo`).
 */
export const SETTLE_MS = 100;
/**
 * The first pause between probes. Pauses grow with the time waited so far (a tenth of it) up to
 * the check's interval: an app up in 100 ms is seen within about 10 ms of it, as one polling by
 * hand would see it, and one that takes a minute is asked about twice a second.
 */
export const FIRST_PAUSE_MS = 10;

export interface HealthCheck {
  /** The app's health path on the host side, for example `http://127.0.0.1:49153/health`. */
  url: string;
  timeoutMs: number;
  /** The longest pause between two probes (they start `FIRST_PAUSE_MS` apart). */
  intervalMs: number;
  signal?: AbortSignal;
  /** The container's state: a container that stopped fails the check at once. */
  inspect(): Promise<ContainerState | null>;
}

/**
 * A failed check says why, the container's last state, and the last probe's outcome (`lastStatus`
 * when it answered with a status that does not count, else `lastError`): a diagnosis tells an
 * error page from silence.
 */
export type HealthResult =
  | { healthy: true; status: number }
  | { healthy: false; reason: string; state: ContainerState | null; lastStatus?: number | null; lastError?: string | null };

/**
 * Probes the app from the host over HTTP until it answers, as kamal-proxy and Render do: an image
 * needs no curl or wget of its own. A 2xx or 3xx answer counts (`isHealthyStatus`: a redirect to a
 * login page is an app that is up); a 404 is not (the path is wrong, or another program answers),
 * nor is any other 4xx or a 5xx. Anything else is tried again until `timeoutMs`, often at first
 * and less so as time goes by. The container is inspected beside the probes, one inspection at a
 * time, after a probe that failed: one that exited fails the check as soon as that is known, and a
 * slow Engine (an inspection can take longer than the pause) never spaces the probes out.
 */
export async function waitUntilHealthy(check: HealthCheck): Promise<HealthResult> {
  const started = Date.now();
  const deadline = started + check.timeoutMs;
  let last = "it did not answer";
  let lastStatus: number | null = null;
  let lastError: string | null = null;
  let inspection: Promise<ContainerState | null> | null = null;
  const stopped = (state: ContainerState | null): HealthResult => {
    const how = state?.oomKilled ? "was killed for using more memory than its limit" : `exited${state?.exitCode != null ? ` with code ${state.exitCode}` : ""}`;
    return { healthy: false, reason: `The app's container ${how} before it answered.`, state, lastStatus, lastError };
  };
  for (;;) {
    if (check.signal?.aborted) return { healthy: false, reason: "The run was stopped.", state: null };
    const answer = await probe(check.url);
    if (typeof answer === "number" && isHealthyStatus(answer)) return { healthy: true, status: answer };
    last = typeof answer === "number" ? `it answered ${answer}` : answer;
    lastStatus = typeof answer === "number" ? answer : null;
    lastError = typeof answer === "number" ? null : answer;
    if (!inspection) {
      inspection = check.inspect();
      // Read by the next pause or the end; handled now, so a failure waits for them.
      inspection.catch(() => undefined);
    }
    const pause = Math.min(check.intervalMs, Math.max(FIRST_PAUSE_MS, (Date.now() - started) / 10));
    if (Date.now() + pause > deadline) {
      const state = await inspection;
      if (!state?.running) return stopped(state);
      return { healthy: false, reason: `The app did not answer ${new URL(check.url).pathname} within ${Math.round(check.timeoutMs / 1000)} s (${last}).`, state, lastStatus, lastError };
    }
    const paused = new Promise<typeof PAUSED>((resolve) => setTimeout(() => resolve(PAUSED), pause));
    const outcome = await Promise.race([paused, inspection]);
    if (outcome !== PAUSED) {
      if (!outcome?.running) return stopped(outcome);
      inspection = null;
      await paused;
    }
  }
}

/** The pause between two probes ended before the container's inspection. */
const PAUSED = Symbol("paused");

/** A health answer that counts: 2xx or 3xx, as load balancers (AWS, Render, Fly) count by default. */
export const isHealthyStatus = (status: number) => status >= 200 && status < 400;

/** The answer's status, or why there was none. */
function probe(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(url, { method: "GET", agent: false, timeout: PROBE_TIMEOUT_MS, headers: { "user-agent": "reposite-health-check" } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED" ? "the connection was refused" : error.message === "timeout" ? "a probe timed out" : error.message));
    req.end();
  });
}
