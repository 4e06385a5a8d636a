import { PRODUCTS, RepositeError, type PaymentProvider, type Product } from "@reposite/core";
import { createStripePayments, type StripeClientOptions, type StripePaymentsOptions } from "./stripe-payments.js";

/** The variables read, as `process.env` has them. */
export type PaymentsEnv = Record<string, string | undefined>;

const invalid = (message: string) => new RepositeError(500, `[payments] ${message}`, "payments_config_invalid");

/**
 * The operator's Stripe, configured by environment variables, or undefined when none is (then
 * payments are off and everything is free):
 * - `STRIPE_SECRET_KEY`: the secret (`sk_…`) or restricted (`rk_…`) key; without it payments stay off.
 * - `STRIPE_WEBHOOK_SECRET`: the webhook endpoint's signing secret (`whsec_…`); required with the key.
 * - `STRIPE_PRICE_EMBED`, `STRIPE_PRICE_MEMORY`, `STRIPE_PRICE_DISK`, `STRIPE_PRICE_DOMAIN`: the
 *   price of each product (`price_…`); a product without one is not sold. At least one is required.
 * - `STRIPE_API_BASE`: another address for the Stripe API (a loopback fake, a proxy), for example
 *   `http://127.0.0.1:12111`; default `https://api.stripe.com`.
 * Blank values count as unset. `extra` adds what the environment does not carry (retries, timeout, …).
 */
export function paymentsFromEnv(env: PaymentsEnv, extra: Omit<StripePaymentsOptions, "secretKey" | "webhookSecret" | "prices"> = {}): PaymentProvider | undefined {
  const secretKey = value(env.STRIPE_SECRET_KEY);
  if (secretKey === undefined) return undefined;
  if (!/^(sk|rk)_/.test(secretKey)) {
    const hint = secretKey.startsWith("pk_") ? " (that is the publishable key; the server needs the secret one)" : "";
    throw invalid(`STRIPE_SECRET_KEY must be a Stripe secret key (sk_…) or restricted key (rk_…)${hint}.`);
  }
  const webhookSecret = value(env.STRIPE_WEBHOOK_SECRET);
  if (webhookSecret === undefined) {
    throw invalid(
      "STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY: without it no payment could be confirmed. It is the signing secret (whsec_…) Stripe shows for the webhook endpoint <REPOSITE_BASE_URL>/billing/webhook.",
    );
  }
  if (!webhookSecret.startsWith("whsec_")) throw invalid("STRIPE_WEBHOOK_SECRET must be a webhook signing secret (whsec_…).");
  const prices: Partial<Record<Product, string>> = {};
  for (const product of PRODUCTS) {
    const price = value(env[`STRIPE_PRICE_${product.toUpperCase()}`]);
    if (price !== undefined) prices[product] = price;
  }
  if (Object.keys(prices).length === 0) {
    throw invalid(`With STRIPE_SECRET_KEY set, name at least one price: ${PRODUCTS.map((p) => `STRIPE_PRICE_${p.toUpperCase()}`).join(", ")}.`);
  }
  const apiBase = value(env.STRIPE_API_BASE);
  return createStripePayments({
    ...extra,
    secretKey,
    webhookSecret,
    prices,
    ...(apiBase !== undefined ? { client: { ...extra.client, ...addressOf(apiBase) } } : {}),
  });
}

/** `http://127.0.0.1:12111` as the `stripe` client's host, port and protocol. */
function addressOf(apiBase: string): StripeClientOptions {
  let url: URL | undefined;
  try {
    url = new URL(apiBase);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || (url.pathname !== "/" && url.pathname !== "")) {
    throw invalid(`STRIPE_API_BASE must be an http(s) address without a path, such as https://api.stripe.com or http://127.0.0.1:12111, not "${apiBase}".`);
  }
  const protocol = url.protocol === "http:" ? "http" : "https";
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port: url.port ? Number(url.port) : protocol === "http" ? 80 : 443, protocol };
}

function value(raw: string | undefined): string | undefined {
  const trimmed = raw?.trim();
  return trimmed ? trimmed : undefined;
}
