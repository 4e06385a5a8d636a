export { createStripePayments, type StripePaymentsOptions, type StripeClientOptions } from "./stripe-payments.js";
export { paymentsFromEnv, type PaymentsEnv } from "./payments-from-env.js";
export { toPaymentEvent, checkoutState } from "./stripe-events.js";
