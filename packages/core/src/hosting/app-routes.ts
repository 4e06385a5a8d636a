import { injectable } from "tsyringe";
import type { DeploymentStatus } from "../projects/deployment.js";

/** Where a running app answers, from the server's side. */
export interface AppTarget {
  host: string;
  port: number;
  /**
   * The network the target is reached on when it is not this machine's (a Swarm app's overlay,
   * `AppAddress.network`): an edge joins it and resolves `host` there. Null or absent: reached from here.
   */
  network?: string | null;
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
  /** Told of every set and delete (the edge's route table follows the table through them). */
  private readonly listeners = new Set<(siteId: string, route: AppRoute | undefined) => void>();
  /** Proxies in front that apply changes later: how to wait for each (`addFront`). */
  private readonly fronts = new Set<(siteId: string) => Promise<void>>();

  get(siteId: string): AppRoute | undefined {
    return this.routes.get(siteId);
  }

  set(siteId: string, route: AppRoute): void {
    this.routes.set(siteId, route);
    for (const listener of this.listeners) listener(siteId, route);
  }

  delete(siteId: string): void {
    if (!this.routes.delete(siteId)) return;
    for (const listener of this.listeners) listener(siteId, undefined);
  }

  /**
   * A proxy in front that applies the table's changes later (the nginx edge reloads) registers how
   * to wait until it serves a site's route as the table has it now; the returned function removes it.
   */
  addFront(waitApplied: (siteId: string) => Promise<void>): () => void {
    this.fronts.add(waitApplied);
    return () => this.fronts.delete(waitApplied);
  }

  /**
   * Resolves once every proxy in front serves `siteId`'s route as set now, or after `timeoutMs`:
   * a deploy says `done` only when requests reach the new container (a stuck front is logged by itself).
   */
  async applied(siteId: string, timeoutMs = 10_000): Promise<void> {
    if (this.fronts.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    const all = Promise.all([...this.fronts].map((wait) => wait(siteId).catch(() => undefined)));
    await Promise.race([all, late]).finally(() => clearTimeout(timer));
  }

  /** Every site's route now. */
  entries(): [siteId: string, route: AppRoute][] {
    return [...this.routes];
  }

  /** Calls `listener` after each change of a site's route (undefined: removed); the returned function stops it. */
  onChange(listener: (siteId: string, route: AppRoute | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The running app's target for one request, counted until released; null when it is not running. */
  acquire(siteId: string): AppLease | null {
    const route = this.routes.get(siteId);
    if (route?.status !== "running" || !route.target) return null;
    return { target: route.target, release: this.hold(route.target) };
  }

  /**
   * Counts `target` as busy until the answer is called, as a request would: a proxy in front that
   * may still send to it (the edge's nginx until its reload is done) keeps it from being stopped.
   */
  hold(target: AppTarget): () => void {
    const id = key(target);
    this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(id) ?? 1) - 1;
      if (left > 0) return void this.inFlight.set(id, left);
      this.inFlight.delete(id);
      for (const wake of this.waiting.get(id) ?? []) wake();
      this.waiting.delete(id);
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
