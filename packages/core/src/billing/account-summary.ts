import type { AccountSummary, ProductUse, PurchaseView } from "@reposite/contract";
import { inject, injectable } from "tsyringe";
import { PRODUCTS, type Product } from "../ports/payments.js";
import { ProjectStore } from "../projects/project-store.js";
import { BillingEntitlements } from "./entitlements.js";
import { PriceList } from "./price-list.js";
import { counts, type PurchaseRecord } from "./purchase.js";
import { PurchaseStore } from "./purchase-store.js";

/** `GET /billing/account/summary` and its parts: the contract's shapes. */
export type { AccountSummary, ProductUse, PurchaseView } from "@reposite/contract";

/** What an account has bought, for which project, and what is in use. */
@injectable()
export class AccountBilling {
  constructor(
    @inject(PurchaseStore) private readonly purchases: PurchaseStore,
    @inject(ProjectStore) private readonly projects: ProjectStore,
    @inject(BillingEntitlements) private readonly entitlements: BillingEntitlements,
    @inject(PriceList) private readonly prices: PriceList,
  ) {}

  async summary(accountId: string): Promise<AccountSummary> {
    const bought = (await this.purchases.byAccount(accountId)).filter((purchase) => purchase.status !== "pending");
    const views = await Promise.all(bought.map((purchase) => this.view(purchase)));
    const products = Object.fromEntries(
      PRODUCTS.map((product) => {
        const counting = views.filter((view) => view.product === product && view.counts);
        const use: ProductUse = { seats: counting.length, used: counting.filter((view) => view.in_use).length };
        if (product === "memory" || product === "disk") use.units = counting.reduce((sum, view) => sum + view.quantity, 0);
        return [product, use];
      }),
    ) as Record<Product, ProductUse>;
    return { payments: this.prices.enabled, products, purchases: views.reverse() };
  }

  /** The provider's customer of this account (its newest purchase's), or null before anything was bought. */
  async customerId(accountId: string): Promise<string | null> {
    const purchases = await this.purchases.byAccount(accountId);
    return purchases.reverse().find((purchase) => purchase.customer_id)?.customer_id ?? null;
  }

  private async view(purchase: PurchaseRecord): Promise<PurchaseView> {
    const project = await this.projects.get(purchase.site_id);
    return {
      id: purchase.id,
      product: purchase.product,
      status: purchase.status,
      counts: counts(purchase),
      site_id: purchase.site_id,
      project_name: project && project.owner_id === purchase.account_id ? project.name : null,
      in_use: await this.entitlements.inUse(purchase),
      units: purchase.units,
      quantity: purchase.quantity,
      created_at: purchase.created_at,
      updated_at: purchase.updated_at,
    };
  }
}
