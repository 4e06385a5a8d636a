import type { RequestOptions } from "../client.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type {
  AccountSummary,
  BillingStatuses,
  CheckoutAnswer,
  CheckoutInputs,
  ConfirmAnswer,
  PricesView,
  Product,
  ProductStatus,
} from "../types.js";

/**
 * Payments: the API starts and checks a payment, a person pays on the provider's page (`url` of a
 * checkout) and the API never sees card details. On a server with payments off, everything is free.
 */
export class Billing extends APIResource {
  /** Prices of every product; needs no token. `GET /billing/prices`. */
  async prices(options?: RequestOptions): Promise<PricesView> {
    return this.call(route("billing.prices"), options);
  }

  /**
   * App hosting's and the custom domain's status (`GET /billing`), or one product's
   * (`GET /billing/{product}`, optionally for one project with `site_id`). `paid` turns true by
   * itself once the provider reports the payment.
   */
  status(options?: RequestOptions): Promise<BillingStatuses>;
  status(product: Product, params?: { site_id?: string }, options?: RequestOptions): Promise<ProductStatus>;
  async status(
    productOrOptions?: Product | RequestOptions,
    params: { site_id?: string } = {},
    options?: RequestOptions,
  ): Promise<BillingStatuses | ProductStatus> {
    if (typeof productOrOptions !== "string") return this.call(route("billing.statuses"), productOrOptions);
    return this.call(route("billing.status", { product: productOrOptions }), { ...options, query: { site_id: params.site_id } });
  }

  /**
   * Starts a payment; a person opens `url` to pay. `POST /billing/{product}/checkout`. Errors:
   * `400` `invalid_units`; `402` `payment_required` (memory/disk without hosting); `409`
   * `not_configured`, `already_has`, `not_bundleable`; `503` when the product is not sold here.
   */
  async checkout<P extends Product>(product: P, body: CheckoutInputs[P], options?: RequestOptions): Promise<CheckoutAnswer> {
    return this.call(route("billing.checkout", { product }), { ...options, body });
  }

  /** Whether the payment of a checkout went through (`paid` false: not yet). `POST /billing/{product}/confirm`. */
  async confirm(product: Product, sessionId: string, options?: RequestOptions): Promise<ConfirmAnswer> {
    return this.call(route("billing.confirm", { product }), { ...options, body: { session_id: sessionId } });
  }

  /** What the account has bought and how much is in use. `GET /billing/account/summary`. */
  async summary(options?: RequestOptions): Promise<AccountSummary> {
    return this.call(route("billing.account.summary"), options);
  }
}
