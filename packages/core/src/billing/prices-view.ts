import type { PricesView, ProductPriceView, ResourcePriceView } from "@reposite/contract";
import { RESOURCE_UNITS } from "../hosting/resources.js";
import { PRODUCTS, type Catalog, type Product } from "../ports/payments.js";
import { UNIT_MB, isResourceProduct } from "./app-limits.js";
import { FREE_LABEL, priceLabel } from "./price-labels.js";

/** `GET /billing/prices` (no token): the contract's shapes. */
export type { PricesView, ProductPriceView, ResourcePriceView } from "@reposite/contract";

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
