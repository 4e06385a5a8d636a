import type { SwarmHealthTiming } from "./swarm-options.js";

/** Where the probe binary appears in every task: busybox picks its applet by this name. */
export const PROBE_PATH = "/.reposite/busybox";

const NS = 1_000_000_000;

/**
 * The health check Swarm runs in each task, from outside the image: a static busybox mounted
 * read-only sends `GET <path>` to the app's port on the task's own loopback and passes on a 2xx or
 * 3xx status line (as core's check from the host does; a 404 fails). The app's image needs no
 * curl, wget or shell. Swarm holds a start-first update until the new task is healthy, keeps an
 * unhealthy task out of the service's DNS answers, and rolls back when it never becomes healthy:
 * the rollout is gated by the orchestrator itself, with no helper to keep alive beside it.
 */
export function healthCheck(port: number, path: string, timing: SwarmHealthTiming) {
  const request = `GET ${path} HTTP/1.0\\r\\nHost: localhost\\r\\nUser-Agent: reposite-health\\r\\n\\r\\n`;
  const script = `B=${PROBE_PATH}; printf '${request}' | $B nc -w ${timing.timeoutSeconds} 127.0.0.1 ${port} | $B head -n 1 | $B grep -qE '^HTTP/[0-9.]+ [23][0-9][0-9]'`;
  return {
    Test: ["CMD", PROBE_PATH, "sh", "-c", script],
    Interval: timing.intervalSeconds * NS,
    Timeout: timing.timeoutSeconds * NS,
    Retries: timing.retries,
    StartPeriod: timing.startPeriodSeconds * NS,
  };
}

/** The read-only bind mount that puts the probe binary into the task. */
export function probeMount(binary: string) {
  return { Type: "bind" as const, Source: binary, Target: PROBE_PATH, ReadOnly: true };
}

/** A path the probe can send as it is: one absolute path without spaces, quotes or control characters. */
export function probePath(path: string | undefined): string {
  const wanted = path ?? "/";
  if (!/^\/[\x21-\x7e]*$/.test(wanted) || /['"\\%]/.test(wanted)) throw new Error(`[provider-swarm] the health path ${JSON.stringify(wanted)} must be an absolute path without spaces, quotes, backslashes or percent signs`);
  return wanted;
}
