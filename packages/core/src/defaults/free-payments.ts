import { RepositeError } from "../errors.js";
import { WebhookRejected, type PaymentProvider } from "../ports/payments.js";

const off = () => new RepositeError(503, "Payments are off on this server: everything is free, nothing needs buying.", "payments_off");

/**
 * The payment provider a server has when the operator configured none: payments off, every
 * product free (`required: false`), so a self-hosted server works with no payment account.
 */
export const freePayments: PaymentProvider = {
  name: "free",
  enabled: false,
  catalog: async () => ({}),
  createCheckout: async () => {
    throw off();
  },
  getCheckout: async () => null,
  parseWebhook: async () => {
    throw new WebhookRejected("Payments are off on this server: no webhook is expected.");
  },
  portalUrl: async () => {
    throw off();
  },
};
