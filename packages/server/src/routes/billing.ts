import { billingAccountSummary, billingCheckout, billingConfirm, billingPrices, billingStatus, billingStatuses, billingWebhook } from "@reposite/contract";
import { RepositeError, type Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { readBodyText } from "../http/body-text.js";
import { operationRoute } from "../http/operation-route.js";

/** Webhook bodies are small; Stripe's largest events are far under this. */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

/**
 * Payments: prices (no token), product statuses, checkouts and confirms, the account's purchases,
 * and the provider's webhook (no token: its signature over the raw body is the proof).
 */
export function billingRoutes(app: H3, reposite: Reposite): void {
  const { billing } = reposite;

  operationRoute(app, billingPrices, () => billing.priceList());

  operationRoute(app, billingStatuses, async (event) => {
    const { account } = await requireToken(reposite, event);
    return billing.statuses(account.id);
  });

  operationRoute(app, billingAccountSummary, async (event) => {
    const { account } = await requireToken(reposite, event);
    return billing.summary(account.id);
  });

  // Before the token: the provider signs it, it carries none. Its body is read raw (the signature
  // is over the bytes), so the operation has no body schema. Answered as soon as it is recorded.
  operationRoute(app, billingWebhook, async (event) => {
    const raw = await readBodyText(event, WEBHOOK_BODY_LIMIT);
    if (raw === null) throw new RepositeError(413, `The webhook body is larger than ${WEBHOOK_BODY_LIMIT} bytes.`, "body_too_large");
    return billing.webhook(raw, event.req.headers.get("stripe-signature") ?? undefined);
  });

  operationRoute(app, billingStatus, async (event, { params, query }) => {
    const { account } = await requireToken(reposite, event);
    return billing.status(account.id, params.product, query.site_id);
  });

  operationRoute(app, billingCheckout, async (event, { params, body }) => {
    const { account } = await requireToken(reposite, event);
    return billing.checkout(account.id, params.product, body);
  });

  operationRoute(app, billingConfirm, async (event, { params, body }) => {
    const { account } = await requireToken(reposite, event);
    return billing.confirm(account.id, params.product, body);
  });
}
