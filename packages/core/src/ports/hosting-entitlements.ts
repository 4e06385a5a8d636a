import type { InjectionToken } from "tsyringe";

/**
 * Whether an account may use app hosting for one project: asked before setting up, deploying,
 * starting and restarting (reading, stopping, settings and removing always work). The embedded
 * default allows everything (payments off); the payments issue registers real entitlements.
 */
export interface HostingEntitlements {
  mayHost(accountId: string, siteId: string): Promise<boolean>;
}

export const HOSTING_ENTITLEMENTS: InjectionToken<HostingEntitlements> = Symbol.for("reposite.HostingEntitlements");

/** Payments off: every account may host every project. */
export const allowAllHosting: HostingEntitlements = {
  mayHost: async () => true,
};
