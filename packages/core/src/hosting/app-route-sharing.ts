import { inject, injectable } from "tsyringe";
import { EVENTS, type EventBus } from "../ports/events.js";
import { DeploymentStore } from "./deployment-store.js";
import { routeOf } from "./app-containers.js";
import { AppRoutes } from "./app-routes.js";
import { ReplicaIdentity } from "../util/replica-identity.js";

/** Published when a replica changed an app's route (deploy, stop, start, switch-over, removal). */
const APP_ROUTES_CHANNEL = "app-routes:changed";

interface AppRouteChanged {
  site_id: string;
  /** The replica that changed it (it has the route already). */
  replica: string;
  /** The app is being removed: its route goes, whatever its record still says. */
  removed?: boolean;
}

/**
 * Keeps every replica's `/app/` table in step: the `/app/` proxy never reads storage, so a
 * replica that changed a route says so over EVENTS and the others read that app's deployment
 * record and set the same route. Reads of one site are chained, so the last change wins.
 */
@injectable()
export class AppRouteSharing {
  private readonly reading = new Map<string, Promise<void>>();

  constructor(
    @inject(EVENTS) private readonly events: EventBus,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(AppRoutes) private readonly routes: AppRoutes,
    @inject(ReplicaIdentity) private readonly replica: ReplicaIdentity,
  ) {
    events.subscribe(APP_ROUTES_CHANNEL, (event) => {
      const { site_id: siteId, replica, removed } = event as AppRouteChanged;
      if (replica !== this.replica.id && typeof siteId === "string") this.follow(siteId, removed === true);
    });
  }

  /** Tells the other replicas that `siteId`'s route changed here (or went: `removed`). */
  announce(siteId: string, removed = false): void {
    this.events.publish(APP_ROUTES_CHANNEL, { site_id: siteId, replica: this.replica.id, ...(removed ? { removed } : {}) } satisfies AppRouteChanged);
  }

  private follow(siteId: string, removed: boolean): void {
    const next = (this.reading.get(siteId) ?? Promise.resolve())
      .then(async () => {
        const deployment = removed ? null : (await this.deployments.get(siteId));
        if (deployment) this.routes.set(siteId, routeOf(deployment));
        else this.routes.delete(siteId);
      })
      .catch((error: unknown) => console.error(`[reposite] following the app route of ${siteId} failed:`, error))
      .finally(() => {
        if (this.reading.get(siteId) === next) this.reading.delete(siteId);
      });
    this.reading.set(siteId, next);
  }
}
