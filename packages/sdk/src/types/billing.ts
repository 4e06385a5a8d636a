import type {
  AccountSummary as ContractAccountSummary,
  CheckoutAnswer as ContractCheckoutAnswer,
  CheckoutInput,
  ConfirmAnswer as ContractConfirmAnswer,
  PricesView as ContractPricesView,
  Product as ContractProduct,
  ProductPriceView,
  ProductStatus as ContractProductStatus,
  ProductStatuses,
  PurchaseView as ContractPurchaseView,
  ResourcePriceView,
  ResourceUnits as ContractResourceUnits,
} from "@reposite/contract";

// Payments' shapes, from the contract under the SDK's names.

/** What can be bought: app hosting (`embed`), more memory, more disk, a custom domain. */
export type Product = ContractProduct;
/** The sizes memory and disk are sold in: 1 unit = 1 GB memory, or 5 GB disk. */
export type ResourceUnits = ContractResourceUnits;
/** One product in `GET /billing/prices`. */
export type ProductPrice = ProductPriceView;
/** Memory and disk in `GET /billing/prices`: their unit and steps. */
export type ResourcePrice = ResourcePriceView;
/** `GET /billing/prices` (no token). */
export type PricesView = ContractPricesView;
/** `GET /billing/{product}`. */
export type ProductStatus = ContractProductStatus;
/** `GET /billing`: the statuses of app hosting and the custom domain. */
export type BillingStatuses = ProductStatuses;

/**
 * Body of `POST /billing/{product}/checkout`, by product: the contract's one body, narrowed to the
 * fields each product uses.
 */
export interface CheckoutInputs {
  embed: Pick<CheckoutInput, "site_id" | "additional" | "resources">;
  memory: Pick<CheckoutInput, "site_id"> & { units: ResourceUnits };
  disk: Pick<CheckoutInput, "site_id"> & { units: ResourceUnits };
  domain: Pick<CheckoutInput, "site_id" | "additional">;
}

/** Answer of a checkout: open `url` in a browser to pay; keep `id` to confirm. */
export type CheckoutAnswer = ContractCheckoutAnswer;
/** Answer of `POST /billing/{product}/confirm`; `paid` false means not yet. */
export type ConfirmAnswer = ContractConfirmAnswer;
/** One purchase in the account summary. */
export type PurchaseView = ContractPurchaseView;
/** `GET /billing/account/summary`. */
export type AccountSummary = ContractAccountSummary;
