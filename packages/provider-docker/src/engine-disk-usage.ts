import type Docker from "dockerode";

/** How long a measurement waits for another one on the Engine (another client's `docker system df`) before giving up. */
const BUSY_WAIT_MS = 20_000;
const BUSY_RETRY_MS = 200;

type VolumeUsage = { Volumes?: { Name: string; UsageData?: { Size: number } | null }[] | null };

/**
 * The Engine's measurement of its volumes (`/system/df`, what `docker system df -v` shows). The
 * Engine runs one such measurement at a time and answers any other with 500 "a disk usage
 * operation is already running": so calls from this process share the one in flight, and a call
 * that finds another client's under way waits for it and asks again.
 */
export function engineVolumeUsage(docker: Docker): () => Promise<VolumeUsage> {
  return sharedMeasurement<VolumeUsage>(docker, "volume");
}

type BuildCacheUsage = { BuildCache?: { ID: string; Parent?: string; Description?: string; CreatedAt: string }[] | null };

/** BuildKit's cache records, measured the same way (shared, waiting for another client's measurement). */
export function engineBuildCache(docker: Docker): () => Promise<BuildCacheUsage> {
  return sharedMeasurement<BuildCacheUsage>(docker, "build-cache");
}

function sharedMeasurement<T>(docker: Docker, type: "volume" | "build-cache"): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  const once = () =>
    new Promise<T>((resolve, reject) =>
      // `type` keeps newer Engines (API 1.42+) from measuring images and containers too.
      docker.modem.dial(
        { path: "/system/df?", method: "GET", options: { type: [type] }, statusCodes: { 200: true, 500: "server error" } },
        (error: unknown, data: unknown) => (error ? reject(error) : resolve(data as T)),
      ),
    );
  const measure = async () => {
    const deadline = Date.now() + BUSY_WAIT_MS;
    for (;;) {
      try {
        return await once();
      } catch (error) {
        if (!isBusy(error) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
      }
    }
  };
  return () => (inFlight ??= measure().finally(() => (inFlight = null)));
}

function isBusy(error: unknown): boolean {
  const { message = "", json } = (error ?? {}) as { message?: string; json?: { message?: string } };
  return /already running/i.test(`${message} ${json?.message ?? ""}`);
}
