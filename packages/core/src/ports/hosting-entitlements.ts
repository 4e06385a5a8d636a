import type { InjectionToken } from "tsyringe";

/** Why an account may not host a project's app: nothing bought (`402`), or every purchase in use by other apps (`409`). */
export type HostingRefusal = "payment_required" | "quota_reached";

/**
 * Whether an account may use app hosting for one project: asked before setting up, deploying,
 * fixing, starting and restarting (reading, stopping, logs, metrics, settings and removing always
 * work). `true` allows; `false` or `"payment_required"` answers `402 payment_required`,
 * `"quota_reached"` answers `409 quota_reached`. The default follows the account's purchases
 * (`BillingEntitlements`: everyone may while payments are off); `allowAllHosting` allows all.
 */
export interface HostingEntitlements {
  mayHost(accountId: string, siteId: string): Promise<boolean | HostingRefusal>;
}

export const HOSTING_ENTITLEMENTS: InjectionToken<HostingEntitlements> = Symbol.for("reposite.HostingEntitlements");

/** Every account may host every project. */
export const allowAllHosting: HostingEntitlements = {
  mayHost: async () => true,
};
