import Docker from "dockerode";

/** dockerode's connection options for a `DOCKER_HOST`-style address, or its defaults. */
export function connectEngine(dockerHost: string | undefined): Docker {
  if (!dockerHost) return new Docker();
  if (dockerHost.startsWith("unix://")) return new Docker({ socketPath: dockerHost.slice("unix://".length) });
  const url = new URL(dockerHost.includes("://") ? dockerHost : `tcp://${dockerHost}`);
  const https = url.protocol === "https:" || url.port === "2376";
  return new Docker({ host: url.hostname, port: Number(url.port || (https ? 2376 : 2375)), protocol: https ? "https" : "http" });
}

/** The Engine's own words from a dockerode error (`(HTTP code 500) server error - <message>`). */
export function engineMessage(error: unknown): string {
  const json = (error as { json?: { message?: string } } | null)?.json;
  if (json?.message) return json.message;
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^\(HTTP code \d+\) [^-]*- /, "").trim();
}

/** Turns the Engine's 404 into `value`; other errors go on. */
export function ifMissing<T>(value: T) {
  return (error: unknown): T => {
    if ((error as { statusCode?: number } | null)?.statusCode === 404) return value;
    throw error;
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tries `check` until it answers true or `timeoutMs` passes; false then. */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, intervalMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(intervalMs);
  }
}
