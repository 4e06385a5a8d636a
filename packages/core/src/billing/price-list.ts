import { inject, injectable } from "tsyringe";
import { RepositeError } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { PAYMENT_PROVIDER, type Catalog, type PaymentProvider, type Product, type ProductPrice } from "../ports/payments.js";

/** How long the provider's catalog is reused before it is asked again. */
export const CATALOG_KEPT_MS = 5 * 60_000;

/**
 * What this server sells and for how much, from the payment provider's catalog (asked at most
 * every `CATALOG_KEPT_MS`). With payments off nothing is sold and everything is free.
 */
@injectable()
export class PriceList {
  private kept: { catalog: Catalog; at: number } | null = null;

  constructor(
    @inject(PAYMENT_PROVIDER) private readonly provider: PaymentProvider,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Whether payments are on. */
  get enabled(): boolean {
    return this.provider.enabled;
  }

  /** The catalog; `{}` with payments off. `503 payments_unavailable` when the provider cannot be asked. */
  async catalog(): Promise<Catalog> {
    if (!this.provider.enabled) return {};
    const now = this.clock.now().getTime();
    if (this.kept && now - this.kept.at < CATALOG_KEPT_MS) return this.kept.catalog;
    let catalog: Catalog;
    try {
      catalog = await this.provider.catalog();
    } catch (error) {
      if (RepositeError.isInstance(error)) throw error;
      console.error(`[reposite] reading the ${this.provider.name} catalog failed:`, error);
      throw new RepositeError(503, "The payment provider cannot be reached just now; try again in a minute.", "payments_unavailable");
    }
    this.kept = { catalog, at: now };
    return catalog;
  }

  /** The product's price, or null when it is not sold here (payments off, or not in the catalog). */
  async price(product: Product): Promise<ProductPrice | null> {
    return (await this.catalog())[product] ?? null;
  }

  /** Whether the product must be paid before use: payments on and the product sold. */
  async required(product: Product): Promise<boolean> {
    return (await this.price(product)) !== null;
  }
}
