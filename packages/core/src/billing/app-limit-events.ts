/**
 * Event channel on which `PurchaseStore` says what an app may use (`AppLimits`) may have changed:
 * a memory, disk or hosting purchase of the project started or stopped counting, or its quantity
 * changed (bought, lowered in the billing portal, cancelled). Hosting follows it for what applies
 * at once (disk); memory applies to the app's next container.
 */
export const APP_LIMITS_CHANNEL = "billing:app-limits";
export interface AppLimitsChanged {
  site_id: string;
}
