import { RepositeError } from "@reposite/core";
import { startFakeStripe, type FakeStripe } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paymentsFromEnv } from "../src/index.js";

let fake: FakeStripe;
beforeAll(async () => {
  fake = await startFakeStripe();
});
afterAll(async () => {
  await fake.close();
});

const configError = (env: Record<string, string>): RepositeError => {
  try {
    paymentsFromEnv(env);
  } catch (error) {
    if (RepositeError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a configuration error");
};

describe("paymentsFromEnv", () => {
  it("is off (undefined) without STRIPE_SECRET_KEY, blank counting as unset", () => {
    expect(paymentsFromEnv({})).toBeUndefined();
    expect(paymentsFromEnv({ STRIPE_SECRET_KEY: "  ", STRIPE_PRICE_EMBED: "price_x" })).toBeUndefined();
  });

  it("builds the Stripe provider from the variables, talking to STRIPE_API_BASE, selling only the priced products", async () => {
    const provider = paymentsFromEnv(
      {
        STRIPE_SECRET_KEY: fake.secretKey,
        STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
        STRIPE_PRICE_EMBED: fake.priceIds.embed,
        STRIPE_PRICE_DOMAIN: ` ${fake.priceIds.domain} `,
        STRIPE_PRICE_MEMORY: "",
        STRIPE_API_BASE: fake.url,
      },
      { client: { maxNetworkRetries: 0 } },
    );
    expect(provider).toMatchObject({ name: "stripe", enabled: true });
    expect(await provider?.catalog()).toEqual({
      embed: { amount: 900, currency: "usd", interval: "month" },
      domain: { amount: 1500, currency: "usd", interval: "once" },
    });
    // Signed with STRIPE_WEBHOOK_SECRET: the provider reads the fake's events.
    const hook = await fake.webhook("customer.created", { id: "cus_env", object: "customer" });
    expect(await provider?.parseWebhook(hook.payload, hook.signature)).toMatchObject({ type: "ignored", providerType: "customer.created" });
  });

  it("a secret key without STRIPE_WEBHOOK_SECRET is a start-up error that says so", () => {
    const error = configError({ STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_PRICE_EMBED: "price_x" });
    expect(error).toMatchObject({ code: "payments_config_invalid" });
    expect(error.message).toMatch(/STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY/);
    expect(error.message).not.toContain("sk_test_abc");
  });

  it("refuses a publishable key, a webhook secret that is not one, no price at all, and an API base that is not an http(s) root", () => {
    const base = { STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_WEBHOOK_SECRET: "whsec_abc", STRIPE_PRICE_EMBED: "price_x" };
    expect(configError({ ...base, STRIPE_SECRET_KEY: "pk_test_abc" }).message).toMatch(/publishable key/);
    expect(configError({ ...base, STRIPE_WEBHOOK_SECRET: "abc" }).message).toMatch(/STRIPE_WEBHOOK_SECRET must be/);
    expect(configError({ ...base, STRIPE_PRICE_EMBED: "" }).message).toMatch(/STRIPE_PRICE_EMBED, STRIPE_PRICE_MEMORY, STRIPE_PRICE_DISK, STRIPE_PRICE_DOMAIN/);
    expect(configError({ ...base, STRIPE_API_BASE: "localhost:12111" }).message).toMatch(/STRIPE_API_BASE/);
    expect(configError({ ...base, STRIPE_API_BASE: "http://127.0.0.1:12111/v1" }).message).toMatch(/without a path/);
    expect(paymentsFromEnv({ ...base, STRIPE_SECRET_KEY: "rk_live_abc" })).toMatchObject({ name: "stripe" });
  });
});
