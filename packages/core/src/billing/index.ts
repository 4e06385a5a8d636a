export { PURCHASE_STATUSES, counts, type PurchaseRecord, type PurchaseStatus } from "./purchase.js";
export { PurchaseStore, type SubscriptionState } from "./purchase-store.js";
export { PriceList, CATALOG_KEPT_MS } from "./price-list.js";
export { FREE_LABEL, formatAmount, priceLabel } from "./price-labels.js";
export { pricesView, type PricesView, type ProductPriceView, type ResourcePriceView } from "./prices-view.js";
export { ProcessedEvents, PROCESSED_EVENTS_KEPT_MS } from "./processed-events.js";
export { PurchaseActivation, statusFromSubscription } from "./purchase-activation.js";
export { PaymentEvents, type WebhookReceipt } from "./payment-events.js";
export { APP_LIMITS_CHANNEL, type AppLimitsChanged } from "./app-limit-events.js";
export { AppLimits, UNIT_MB, RESOURCE_PRODUCTS, isResourceProduct, type ResourceProduct } from "./app-limits.js";
export { AppResources } from "./app-resources.js";
export { BillingEntitlements } from "./entitlements.js";
export { AccountBilling, type AccountSummary, type ProductUse, type PurchaseView } from "./account-summary.js";
export { parseCheckoutInput, confirmSchema, type CheckoutInput } from "./checkout-input.js";
export {
  BillingService,
  CHECKOUT_RETURN_PATH,
  CHECKOUT_CANCEL_PATH,
  STATUS_PRODUCTS,
  isProduct,
  type ProductStatus,
  type CheckoutAnswer,
  type ConfirmAnswer,
  type SessionOutcome,
} from "./billing-service.js";
