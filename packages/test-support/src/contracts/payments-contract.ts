import { PRODUCTS, RepositeError, WebhookRejected, type PaymentProvider } from "@reposite/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A signed webhook as the provider's server would deliver it. */
export interface SignedWebhook {
  rawBody: string;
  signature: string;
}

export interface PaymentProviderContractSetup {
  /** An enabled provider that sells every product (embed, memory, disk monthly; domain once). */
  provider: PaymentProvider;
  /** Pays the session as a person would on the hosted payment page. */
  pay(sessionId: string): Promise<void>;
  /** The provider's signed webhook telling that the session was completed (after `pay`). */
  completedWebhook(sessionId: string): Promise<SignedWebhook>;
  teardown(): Promise<void>;
}

const request = (items: { product: (typeof PRODUCTS)[number]; quantity: number }[], purchase = "pur_contract") => ({
  items,
  accountId: "acc_contract",
  email: "buyer@example.com",
  successUrl: "http://127.0.0.1:9/billing/return?session_id={CHECKOUT_SESSION_ID}",
  cancelUrl: "http://127.0.0.1:9/billing/cancelled",
  metadata: { purchase_id: purchase, site_id: "site_contract" },
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

/**
 * What every enabled payment provider does for the core: a catalog with every product; a hosted
 * checkout that is open and unpaid until a person pays, then complete and paid with a customer
 * (and a subscription for monthly products); a domain cannot share a checkout with a
 * subscription (409 `not_bundleable`); a signed webhook is read, the same delivery twice giving
 * the same event id; a bad or missing signature is refused; the portal is an address for a customer.
 */
export function paymentProviderContract(name: string, setup: () => Promise<PaymentProviderContractSetup>) {
  describe(`payment provider contract: ${name}`, () => {
    let current: PaymentProviderContractSetup;
    beforeAll(async () => {
      current = await setup();
    });
    afterAll(async () => {
      await current?.teardown();
    });

    it("is enabled and names itself", () => {
      expect(current.provider.enabled).toBe(true);
      expect(current.provider.name).toMatch(/^[a-z][a-z0-9-]*$/);
    });

    it("sells every product: whole amounts in a lower-case currency, monthly except the domain, which is paid once", async () => {
      const catalog = await current.provider.catalog();
      expect(Object.keys(catalog).sort()).toEqual([...PRODUCTS].sort());
      for (const product of PRODUCTS) {
        const price = catalog[product];
        expect(Number.isInteger(price?.amount) && (price?.amount ?? -1) >= 0).toBe(true);
        expect(price?.currency).toMatch(/^[a-z]{3}$/);
        expect(price?.interval).toBe(product === "domain" ? "once" : "month");
      }
    });

    it("opens a hosted checkout that stays open and unpaid until a person pays, then is complete and paid with a customer and a subscription", async () => {
      const { provider } = current;
      const session = await provider.createCheckout(request([{ product: "embed", quantity: 1 }, { product: "memory", quantity: 2 }]));
      expect(session.id).toBeTruthy();
      expect(new URL(session.url).protocol).toMatch(/^https?:$/);

      const open = await provider.getCheckout(session.id);
      expect(open).toMatchObject({ id: session.id, status: "open", paid: false, subscriptionId: null });
      expect(open?.metadata).toEqual({ purchase_id: "pur_contract", site_id: "site_contract" });

      await current.pay(session.id);
      const paid = await provider.getCheckout(session.id);
      expect(paid).toMatchObject({ id: session.id, status: "complete", paid: true });
      expect(paid?.customerId).toBeTruthy();
      expect(paid?.subscriptionId).toBeTruthy();
      expect(paid?.metadata).toEqual({ purchase_id: "pur_contract", site_id: "site_contract" });
    });

    it("takes a domain as a one-time payment: paid, with a customer and no subscription", async () => {
      const { provider } = current;
      const session = await provider.createCheckout(request([{ product: "domain", quantity: 1 }], "pur_domain"));
      await current.pay(session.id);
      const paid = await provider.getCheckout(session.id);
      expect(paid).toMatchObject({ status: "complete", paid: true, subscriptionId: null, metadata: { purchase_id: "pur_domain" } });
      expect(paid?.customerId).toBeTruthy();
    });

    it("refuses a domain together with a subscription: 409 not_bundleable", async () => {
      const error = await rejection(current.provider.createCheckout(request([{ product: "embed", quantity: 1 }, { product: "domain", quantity: 1 }])));
      expect(RepositeError.isInstance(error) && error.status === 409 && error.code === "not_bundleable").toBe(true);
    });

    it("knows no session it did not make", async () => {
      expect(await current.provider.getCheckout("cs_test_doesnotexist0000")).toBeNull();
      expect(await current.provider.getCheckout("../../v1/prices")).toBeNull();
    });

    it("reads a signed completion webhook, the same delivery twice as the same event; refuses a bad, missing or tampered signature", async () => {
      const { provider } = current;
      const session = await provider.createCheckout(request([{ product: "embed", quantity: 1 }], "pur_hook"));
      await current.pay(session.id);
      const hook = await current.completedWebhook(session.id);

      const event = await provider.parseWebhook(hook.rawBody, hook.signature);
      expect(event).toMatchObject({ type: "checkout_completed", session: { id: session.id, paid: true, metadata: { purchase_id: "pur_hook" } } });
      expect(event.id).toBeTruthy();
      expect(Number.isInteger(event.created)).toBe(true);
      const again = await provider.parseWebhook(hook.rawBody, hook.signature);
      expect(again.id).toBe(event.id);
      expect(again.created).toBe(event.created);

      expect(await rejection(provider.parseWebhook(hook.rawBody, undefined))).toBeInstanceOf(WebhookRejected);
      expect(await rejection(provider.parseWebhook(hook.rawBody, "t=1,v1=00"))).toBeInstanceOf(WebhookRejected);
      const tampered = hook.rawBody.replace("pur_hook", "pur_evil");
      expect(tampered).not.toBe(hook.rawBody);
      expect(await rejection(provider.parseWebhook(tampered, hook.signature))).toBeInstanceOf(WebhookRejected);
    });

    it("opens the billing portal of a paying customer, returning to the given address", async () => {
      const { provider } = current;
      const session = await provider.createCheckout(request([{ product: "disk", quantity: 1 }], "pur_portal"));
      await current.pay(session.id);
      const customerId = (await provider.getCheckout(session.id))?.customerId;
      expect(customerId).toBeTruthy();
      const url = await provider.portalUrl(customerId as string, "http://127.0.0.1:9/account/billing");
      expect(new URL(url).protocol).toMatch(/^https?:$/);
    });
  });
}
