import { inject, injectable } from "tsyringe";
import { DEFAULT_HOSTING_SETTINGS, FREE_TIER, HOSTING_SETTINGS, type HostingSettings } from "../hosting/hosting-settings.js";
import { DISK_UNIT_MB, MEMORY_UNIT_MB } from "../hosting/resources.js";
import { BillingEntitlements } from "./entitlements.js";
import { counts } from "./purchase.js";
import { PurchaseStore } from "./purchase-store.js";

/** The two resources sold per app. */
export type ResourceProduct = "memory" | "disk";
export const RESOURCE_PRODUCTS: readonly ResourceProduct[] = ["memory", "disk"];
export const isResourceProduct = (value: string): value is ResourceProduct => value === "memory" || value === "disk";

/** MB in one unit of each resource. */
export const UNIT_MB: Record<ResourceProduct, number> = { memory: MEMORY_UNIT_MB, disk: DISK_UNIT_MB };

/**
 * The memory and disk each app may use: the free tier (512 MB, and the server's disk limit)
 * until units are paid for, then the units paid (1 GB and 5 GB each), never less than free.
 * Purchases that ended no longer count, and memory and disk count only while the app has hosting:
 * an app whose hosting ended is back on the free tier, whatever add-ons still run.
 */
@injectable()
export class AppLimits {
  private readonly settings: HostingSettings;

  constructor(
    @inject(PurchaseStore) private readonly purchases: PurchaseStore,
    @inject(BillingEntitlements) private readonly entitlements: BillingEntitlements,
    @inject(HOSTING_SETTINGS, { isOptional: true }) settings?: Partial<HostingSettings>,
  ) {
    this.settings = { ...DEFAULT_HOSTING_SETTINGS, ...settings };
  }

  /** The free tier's size of a resource on this server, in MB. */
  freeMb(product: ResourceProduct): number {
    return product === "memory" ? FREE_TIER.memoryMb : this.settings.diskLimitMb;
  }

  /** Units of `product` paid for this app: the units each purchase that counts charged, added up. */
  async units(siteId: string, product: ResourceProduct): Promise<number> {
    const purchases = await this.purchases.bySite(siteId);
    return purchases.filter((purchase) => purchase.product === product && counts(purchase)).reduce((sum, purchase) => sum + purchase.quantity, 0);
  }

  /** What the app may use of `product`, in MB. */
  async limitMb(siteId: string, product: ResourceProduct): Promise<number> {
    if (!(await this.entitlements.hasHosting(siteId))) return this.freeMb(product);
    return Math.max(this.freeMb(product), (await this.units(siteId, product)) * UNIT_MB[product]);
  }

  /** The memory the app's next container gets. */
  memoryMb(siteId: string): Promise<number> {
    return this.limitMb(siteId, "memory");
  }

  /** The disk the app may use now (image, writable layer and data volume together). */
  diskMb(siteId: string): Promise<number> {
    return this.limitMb(siteId, "disk");
  }
}
