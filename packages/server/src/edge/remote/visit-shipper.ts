import type { VisitRequest } from "@reposite/core";
import type { FeedClient } from "./feed-client.js";

/** Most page views held while no control plane takes them; the oldest go first. */
const MAX_HELD = 50_000;
/** Most page views per POST (the feed takes up to 10 000). */
const BATCH = 5_000;

/** The edge's visit counter: page views its nginx served, handed to a control plane in batches. */
export interface VisitShipper {
  /** Holds `times` alike page views (one line of the visits log, repeated) as one entry. */
  count(siteId: string, request: VisitRequest, times?: number): boolean;
  /** Sends what is held now (the last batch at shutdown). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Takes the lines `startVisitLog` reads from the edge's nginx and sends them to a control plane
 * every `everyMs`, which counts them as the Node runtime counts its own (bots and non-pages are
 * left out there). Held while no control plane answers, so a restart of one loses none.
 */
export function startVisitShipper(client: FeedClient, everyMs = 1_000): VisitShipper {
  let held: { site_id: string; method: string; path: string; user_agent?: string; count?: number }[] = [];
  let sending: Promise<void> = Promise.resolve();
  const send = async () => {
    while (held.length > 0) {
      const batch = held.slice(0, BATCH);
      try {
        await client.visits(batch);
      } catch (error) {
        console.error(`[reposite] [edge] ${held.length} page views are held until a control plane takes them: ${(error as Error).message}`);
        return;
      }
      held = held.slice(batch.length);
    }
  };
  const flush = () => (sending = sending.then(send));
  const timer = setInterval(() => void flush(), everyMs);
  timer.unref();
  return {
    count(siteId, request, times = 1) {
      held.push({ site_id: siteId, method: request.method, path: request.path, ...(request.userAgent ? { user_agent: request.userAgent.slice(0, 1024) } : {}), ...(times > 1 ? { count: times } : {}) });
      if (held.length > MAX_HELD) held = held.slice(held.length - MAX_HELD);
      return true;
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
