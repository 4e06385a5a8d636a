import { injectable } from "tsyringe";
import type { DeploymentStatus } from "../projects/deployment.js";

/** Where a running app answers, from the server's side. */
export interface AppTarget {
  host: string;
  port: number;
}

/** What the `/app/` proxy knows of one project's app: its state and, while it runs, its target. */
export interface AppRoute {
  status: DeploymentStatus;
  /** Set while `status` is `running` (and through a switch-over, the new container's). */
  target: AppTarget | null;
}

/** One request on its way to an app: call `release()` when its answer (or upgrade) has ended. */
export interface AppLease {
  target: AppTarget;
  release(): void;
}

const key = (target: AppTarget) => `${target.host}:${target.port}`;

/**
 * The `/app/` proxy's table, in memory only: the proxy decides from it on every request and never
 * reads storage. The hosting service writes it (after a deploy, stop, start, and on boot when it
 * finds running apps again by their labels), and waits on `drained()` before stopping a container
 * that traffic has just switched away from.
 */
@injectable()
export class AppRoutes {
  private readonly routes = new Map<string, AppRoute>();
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  get(siteId: string): AppRoute | undefined {
    return this.routes.get(siteId);
  }

  set(siteId: string, route: AppRoute): void {
    this.routes.set(siteId, route);
  }

  delete(siteId: string): void {
    this.routes.delete(siteId);
  }

  /** The running app's target for one request, counted until released; null when it is not running. */
  acquire(siteId: string): AppLease | null {
    const route = this.routes.get(siteId);
    if (route?.status !== "running" || !route.target) return null;
    const target = route.target;
    const id = key(target);
    this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1);
    let released = false;
    return {
      target,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.inFlight.get(id) ?? 1) - 1;
        if (left > 0) return void this.inFlight.set(id, left);
        this.inFlight.delete(id);
        for (const wake of this.waiting.get(id) ?? []) wake();
        this.waiting.delete(id);
      },
    };
  }

  /** Requests to `target` still under way. */
  pending(target: AppTarget): number {
    return this.inFlight.get(key(target)) ?? 0;
  }

  /** Resolves when no request to `target` is under way, or after `timeoutMs` (whichever is first). */
  drained(target: AppTarget, timeoutMs: number): Promise<void> {
    const id = key(target);
    if (!this.inFlight.get(id)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      const list = this.waiting.get(id) ?? [];
      list.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.waiting.set(id, list);
    });
  }
}
