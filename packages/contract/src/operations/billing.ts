import { defineOperation } from "../operation.js";
import {
  accountSummarySchema,
  checkoutAnswerSchema,
  checkoutInputSchema,
  confirmAnswerSchema,
  confirmInputSchema,
  pricesSchema,
  productParamsSchema,
  productStatusesSchema,
  productStatusQuerySchema,
  productStatusSchema,
  webhookReceiptSchema,
} from "../schemas/billing.js";

const TAG = "Payments";

export const billingPrices = defineOperation({
  id: "billing.prices",
  method: "GET",
  path: "/billing/prices",
  tag: TAG,
  summary: "What each product costs here, and whether payments are on at all",
  auth: "none",
  answers: { 200: { description: "The prices", schema: pricesSchema } },
});

export const billingStatuses = defineOperation({
  id: "billing.statuses",
  method: "GET",
  path: "/billing",
  tag: TAG,
  summary: "Whether the account has paid for app hosting (`embed`) and a domain, and whether they must be paid",
  auth: "token",
  answers: { 200: { description: "`embed` and `domain`", schema: productStatusesSchema } },
});

export const billingAccountSummary = defineOperation({
  id: "billing.account.summary",
  method: "GET",
  path: "/billing/account/summary",
  tag: TAG,
  summary: "What the account has bought, for which project, and how much is in use",
  auth: "token",
  answers: { 200: { description: "The account's purchases", schema: accountSummarySchema } },
});

export const billingWebhook = defineOperation({
  id: "billing.webhook",
  method: "POST",
  path: "/billing/webhook",
  tag: TAG,
  summary: "The payment provider's events, signed over the raw body (the `Stripe-Signature` header); no token",
  auth: "webhook",
  answers: { 200: { description: "The event was recorded", schema: webhookReceiptSchema } },
  errors: ["invalid_signature", "webhook_from_future", "body_too_large"],
});

export const billingStatus = defineOperation({
  id: "billing.status",
  method: "GET",
  path: "/billing/:product",
  tag: TAG,
  summary: "One product's status (`embed` or `domain`); `paid` turns true by itself once the provider reports the payment",
  auth: "token",
  params: productParamsSchema,
  query: productStatusQuerySchema,
  answers: { 200: { description: "The product's status", schema: productStatusSchema } },
  errors: ["unknown_product", "invalid_request"],
});

export const billingCheckout = defineOperation({
  id: "billing.checkout",
  method: "POST",
  path: "/billing/:product/checkout",
  tag: TAG,
  summary: "A payment page for a product, for one project; a person pays there",
  auth: "token",
  params: productParamsSchema,
  body: checkoutInputSchema,
  answers: { 200: { description: "The payment session and its page", schema: checkoutAnswerSchema } },
  errors: ["unknown_product", "invalid_request", "invalid_units", "not_on_sale", "already_has", "not_bundleable", "quota_reached", "payment_required", "not_configured"],
});

export const billingConfirm = defineOperation({
  id: "billing.confirm",
  method: "POST",
  path: "/billing/:product/confirm",
  tag: TAG,
  summary: "Asks the provider whether a checkout was paid and records it (the webhook does the same by itself)",
  auth: "token",
  params: productParamsSchema,
  body: confirmInputSchema,
  answers: { 200: { description: "Whether it is paid", schema: confirmAnswerSchema } },
  errors: ["unknown_product", "invalid_request", "unknown_session"],
});
