import type { BillingInterval, ProductPrice } from "../ports/payments.js";

/** What a product costs when payments are off (or it is not sold): nothing. */
export const FREE_LABEL = "Free";

/** An amount in the currency's smallest unit, for people: `$9.00`, `€5.50`. */
export function formatAmount(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(amount / 100);
  } catch {
    // A currency code Intl does not know still reads plainly.
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

const per = (interval: BillingInterval) => (interval === "month" ? " / month" : " once");

/** `$9.00 / month`, `$12.00 once`; `count` prices that many units (memory and disk). */
export function priceLabel(price: ProductPrice, count = 1): string {
  return `${formatAmount(price.amount * count, price.currency)}${per(price.interval)}`;
}
