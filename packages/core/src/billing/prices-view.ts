import { RESOURCE_UNITS } from "../hosting/resources.js";
import { PRODUCTS, type BillingInterval, type Catalog, type Product } from "../ports/payments.js";
import { UNIT_MB, isResourceProduct } from "./app-limits.js";
import { FREE_LABEL, priceLabel } from "./price-labels.js";

/** One product in `GET /billing/prices`. */
export interface ProductPriceView {
  /** Sold on this server (payments on and the product in the provider's catalog). */
  on_sale: boolean;
  /** What to quote: `$9.00 / month`, `$12.00 once`; for memory and disk the price of one unit; `Free` when not sold. */
  price_label: string;
  /** `month` (a subscription) or `once`; null when not sold. */
  interval: BillingInterval | null;
  /** In the currency's smallest unit (cents), per unit for memory and disk; null when not sold. */
  amount: number | null;
  currency: string | null;
}

/** Memory and disk add their unit and steps. */
export interface ResourcePriceView extends ProductPriceView {
  /** MB in one unit: 1024 for memory, 5120 for disk. */
  unit_mb: number;
  unit_price_label: string;
  steps: { units: number; mb: number; price_label: string }[];
}

/** `GET /billing/prices` (no token). */
export interface PricesView {
  /** False: payments are off on this server, everything is free. */
  payments: boolean;
  products: { embed: ProductPriceView; memory: ResourcePriceView; disk: ResourcePriceView; domain: ProductPriceView };
}

/** The prices body from the provider's catalog. */
export function pricesView(enabled: boolean, catalog: Catalog): PricesView {
  const one = (product: Product): ProductPriceView | ResourcePriceView => {
    const price = catalog[product] ?? null;
    const base: ProductPriceView = {
      on_sale: price !== null,
      price_label: price ? priceLabel(price) : FREE_LABEL,
      interval: price?.interval ?? null,
      amount: price?.amount ?? null,
      currency: price?.currency ?? null,
    };
    if (!isResourceProduct(product)) return base;
    return {
      ...base,
      unit_mb: UNIT_MB[product],
      unit_price_label: price ? priceLabel(price) : "",
      steps: RESOURCE_UNITS.map((units) => ({ units, mb: units * UNIT_MB[product], price_label: price ? priceLabel(price, units) : "" })),
    };
  };
  const products = Object.fromEntries(PRODUCTS.map((product) => [product, one(product)])) as PricesView["products"];
  return { payments: enabled, products };
}
