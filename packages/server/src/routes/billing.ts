import { isWellFormedId, RepositeError, type Reposite } from "@reposite/core";
import { getQuery, getRouterParam, type H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { readBodyText } from "../http/body-text.js";
import { readJsonBody } from "../http/json-body.js";

/** Webhook bodies are small; Stripe's largest events are far under this. */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

/**
 * Payments: prices (no token), product statuses, checkouts and confirms, the account's purchases,
 * and the provider's webhook (no token: its signature over the raw body is the proof).
 */
export function billingRoutes(app: H3, reposite: Reposite): void {
  const { billing } = reposite;

  app.get("/billing/prices", () => billing.priceList());

  app.get("/billing", async (event) => {
    const { account } = await requireToken(reposite, event);
    return billing.statuses(account.id);
  });

  app.get("/billing/account/summary", async (event) => {
    const { account } = await requireToken(reposite, event);
    return billing.summary(account.id);
  });

  // Before the token: the provider signs it, it carries none. Answered as soon as it is recorded.
  app.post("/billing/webhook", async (event) => {
    const raw = await readBodyText(event, WEBHOOK_BODY_LIMIT);
    if (raw === null) throw new RepositeError(413, `The webhook body is larger than ${WEBHOOK_BODY_LIMIT} bytes.`, "body_too_large");
    return billing.webhook(raw, event.req.headers.get("stripe-signature") ?? undefined);
  });

  app.get("/billing/:product", async (event) => {
    const { account } = await requireToken(reposite, event);
    const { site_id } = getQuery(event);
    if (site_id !== undefined && !isWellFormedId(site_id, "site")) {
      throw new RepositeError(422, "site_id: must be an id like site_4k9x2m8q7w3n5p1z", "invalid_request", { field: "site_id" });
    }
    return billing.status(account.id, getRouterParam(event, "product")!, site_id);
  });

  app.post("/billing/:product/checkout", async (event) => {
    const { account } = await requireToken(reposite, event);
    return billing.checkout(account.id, getRouterParam(event, "product")!, await readJsonBody(event));
  });

  app.post("/billing/:product/confirm", async (event) => {
    const { account } = await requireToken(reposite, event);
    return billing.confirm(account.id, getRouterParam(event, "product")!, await readJsonBody(event));
  });
}
