import { Agent } from "node:http";
import type { AppRoutes, AppTarget } from "@reposite/core";

/** One running app as the proxy reaches it: its address and a pool of kept-alive connections. */
export interface AppConnection {
  url: URL;
  agent: Agent;
}

export interface AppTargetsOptions {
  /**
   * How long an idle connection to an app is kept (ms). Below node:http's default keep-alive of
   * 5 s, so the proxy lets go of a connection before the app closes it under a new request.
   */
  idleMs?: number;
  /** How long a target the site no longer uses may finish its requests before its connections are closed (ms). */
  drainMs?: number;
}

const key = (target: AppTarget) => `${target.host}:${target.port}`;

/**
 * Keep-alive connections per app target. A site that switches to a new target (a deploy) gets a
 * new pool; the old one is closed once its requests are done (`AppRoutes.drained`), so connections
 * to stopped containers do not linger.
 */
export class AppTargets {
  private readonly pools = new Map<string, AppConnection>();
  /** The target each site used last, to notice a switch-over. */
  private readonly current = new Map<string, string>();
  private readonly idleMs: number;
  private readonly drainMs: number;

  constructor(
    private readonly routes: AppRoutes,
    options: AppTargetsOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 4_000;
    this.drainMs = options.drainMs ?? 60_000;
  }

  /** The pool for `target`, which `siteId` is about to use. */
  connect(siteId: string, target: AppTarget): AppConnection {
    const id = key(target);
    let pool = this.pools.get(id);
    if (!pool) {
      const host = target.host.includes(":") ? `[${target.host}]` : target.host;
      pool = {
        url: new URL(`http://${host}:${target.port}`),
        // `timeout` closes a connection idle that long; a request under way is never cut by it.
        agent: new Agent({ keepAlive: true, timeout: this.idleMs, scheduling: "lifo" }),
      };
      this.pools.set(id, pool);
    }
    const before = this.current.get(siteId);
    if (before !== id) {
      this.current.set(siteId, id);
      if (before !== undefined) this.retire(before);
    }
    return pool;
  }

  /** Closes every pool (the server is stopping). */
  close(): void {
    for (const pool of this.pools.values()) pool.agent.destroy();
    this.pools.clear();
    this.current.clear();
  }

  private retire(id: string): void {
    const pool = this.pools.get(id);
    if (!pool || [...this.current.values()].includes(id)) return;
    const [host, port] = [pool.url.hostname.replace(/^\[|\]$/g, ""), Number(pool.url.port)];
    void this.routes.drained({ host, port }, this.drainMs).then(() => {
      // Taken up again in the meantime (a switch back): keep it.
      if ([...this.current.values()].includes(id) || this.pools.get(id) !== pool) return;
      this.pools.delete(id);
      pool.agent.destroy();
    });
  }
}
