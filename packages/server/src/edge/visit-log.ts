import { open, truncate, writeFile } from "node:fs/promises";
import type { VisitCounter } from "@reposite/core";

/** Reposite's end of nginx's visit log: a file nginx appends to, read and emptied by Reposite. */
export interface VisitLog {
  path: string;
  close(): Promise<void>;
}

/** Emptied once this much was read (nginx appends with O_APPEND: it goes on at the new end). */
const TRUNCATE_AT = 4 * 1024 * 1024;

/**
 * Counts the pages nginx served from files, as the Node runtime counts the ones it serves: nginx
 * logs each file it answered (`log_format reposite_visits`: status, host, method, URI, user
 * agent) to `path`, buffered (`buffer=64k flush=1s`: one write per many requests; a syslog
 * datagram per request cost nearly half of nginx's throughput), and each line goes to the same
 * `VisitCounter`, which leaves out bots and non-pages; only 200s and 304s are views. No request
 * reaches Node per page. Lines are read every `everyMs`, and once more at `close` (after nginx
 * stopped and wrote its buffers).
 * Lines nginx writes between the last read and an emptying are lost: a page-view counter, not a ledger.
 */
export async function startVisitLog(path: string, visits: Pick<VisitCounter, "count">, siteIdOf: (host: string) => string | undefined, everyMs = 1_000): Promise<VisitLog> {
  await writeFile(path, "");
  let offset = 0;
  let rest = "";
  let reading: Promise<void> = Promise.resolve();

  const countLine = (line: string, times: number) => {
    const [status, host = "", method = "", uri = "", ...agent] = line.split(" ");
    // A page view is a file served: 200, or 304 for a revisit.
    if (status !== "200" && status !== "304") return;
    const siteId = siteIdOf(host);
    if (!siteId) return;
    const query = uri.indexOf("?");
    const userAgent = agent.join(" ").trim();
    visits.count(siteId, { method, path: query === -1 ? uri : uri.slice(0, query), userAgent: userAgent && userAgent !== "-" ? userAgent : undefined }, times);
  };
  const read = async () => {
    const file = await open(path, "r").catch(() => null);
    if (!file) return;
    try {
      const { size } = await file.stat();
      if (size < offset) offset = 0; // emptied meanwhile by someone else: start over
      if (size === offset) return;
      const buffer = Buffer.alloc(size - offset);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
      offset += bytesRead;
      const lines = (rest + buffer.subarray(0, bytesRead).toString("utf8")).split("\n");
      rest = lines.pop() ?? "";
      // Most lines repeat (the same page, the same browser): each distinct one is judged once, with its count.
      const times = new Map<string, number>();
      for (const line of lines) if (line) times.set(line, (times.get(line) ?? 0) + 1);
      for (const [line, count] of times) countLine(line, count);
    } finally {
      await file.close();
    }
    if (offset >= TRUNCATE_AT && rest === "") {
      await truncate(path, 0);
      offset = 0;
    }
  };
  const next = () => (reading = reading.then(read).catch((error: unknown) => console.error("[reposite] [edge] reading the visit log failed:", error)));
  const timer = setInterval(next, everyMs);
  timer.unref();
  return {
    path,
    async close() {
      clearInterval(timer);
      await next();
    },
  };
}
