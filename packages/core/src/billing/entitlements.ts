import { inject, injectable } from "tsyringe";
import { CLOCK, type Clock } from "../ports/clock.js";
import type { HostingEntitlements, HostingRefusal } from "../ports/hosting-entitlements.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { DeploymentStore } from "../hosting/deployment-store.js";
import { ProjectStore } from "../projects/project-store.js";
import { formatTimestamp } from "../util/timestamps.js";
import { PriceList } from "./price-list.js";
import { counts, type PurchaseRecord } from "./purchase.js";
import { accountLock, PurchaseStore } from "./purchase-store.js";

/**
 * What an account's purchases allow, the hosting payment gate first (the default
 * `HOSTING_ENTITLEMENTS`). A product that is not sold (payments off, or not in the provider's
 * catalog) is free: everyone may. One hosting purchase covers one app and one domain purchase
 * one domain; a purchase whose project no longer uses it is a free seat the next project takes.
 */
@injectable()
export class BillingEntitlements implements HostingEntitlements {
  constructor(
    @inject(PurchaseStore) private readonly purchases: PurchaseStore,
    @inject(ProjectStore) private readonly projects: ProjectStore,
    @inject(PriceList) private readonly prices: PriceList,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
  ) {}

  /**
   * Whether the account may set up, deploy, start or restart this project's app: yes when
   * hosting is free here or a hosting purchase is this project's; else a purchase no other app
   * uses moves to this project (its seat is taken) and the answer is yes; else `quota_reached`
   * when the account has hosting, all in use by other apps, and `payment_required` when it has none.
   */
  async mayHost(accountId: string, siteId: string): Promise<true | HostingRefusal> {
    if (!(await this.prices.required("embed"))) return true;
    return this.claim(accountId, siteId, "embed");
  }

  /** Whether the account may put this project on its own domain (for the domains feature), by the same rules with domain purchases. */
  async mayUseDomain(accountId: string, siteId: string): Promise<true | HostingRefusal> {
    if (!(await this.prices.required("domain"))) return true;
    return this.claim(accountId, siteId, "domain");
  }

  /** Whether this app has hosting (free here, or a hosting purchase of its own that counts); claims nothing. */
  async hasHosting(siteId: string): Promise<boolean> {
    if (!(await this.prices.required("embed"))) return true;
    return (await this.purchases.bySite(siteId)).some((purchase) => purchase.product === "embed" && counts(purchase));
  }

  /**
   * Whether a purchase that counts is in use: hosting by its project's app (the project exists,
   * is the buyer's and has its app set up), a domain by its project, memory and disk by their
   * app's project.
   */
  async inUse(purchase: PurchaseRecord): Promise<boolean> {
    if (!counts(purchase)) return false;
    const project = await this.projects.get(purchase.site_id);
    if (!project || project.owner_id !== purchase.account_id) return false;
    return purchase.product === "embed" ? (await this.deployments.get(project.id)) !== null : true;
  }

  /**
   * Under the account's lock: a purchase of `product` for this project, or a free one moved here.
   * A free hosting seat is one whose project has no app; a free domain seat one whose project is gone.
   */
  private claim(accountId: string, siteId: string, product: "embed" | "domain"): Promise<true | HostingRefusal> {
    return this.locks.withLock(accountLock(accountId), async () => {
      const owned = (await this.purchases.byAccount(accountId)).filter((purchase) => purchase.product === product && counts(purchase));
      if (owned.some((purchase) => purchase.site_id === siteId)) return true;
      for (const purchase of owned) {
        if (await this.inUse(purchase)) continue;
        const moved = await this.purchases.modify(purchase.id, (record) =>
          counts(record) ? { ...record, site_id: siteId, updated_at: formatTimestamp(this.clock.now()) } : record,
        );
        if (moved?.site_id === siteId) return true;
      }
      return owned.length > 0 ? "quota_reached" : "payment_required";
    });
  }
}
