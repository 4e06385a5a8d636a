import { createMemoryPayments, type MemoryPayments, type WebhookDelivery } from "@reposite/test-support";
import type { Catalog } from "../../src/index.js";
import { startHostingHarness, type HostingHarness, type HostingHarnessOptions } from "../hosting/hosting-harness.js";

export interface BillingHarness extends HostingHarness {
  pay: MemoryPayments;
  /** Posts a webhook delivery to the billing service as the route would. */
  deliver(delivery: WebhookDelivery): Promise<{ duplicate: boolean }>;
  /** Checks out `product` for a project, pays and delivers the webhook; answers the session id. */
  buy(ownerId: string, product: string, body: Record<string, unknown>): Promise<{ sessionId: string; delivery: WebhookDelivery }>;
  /** The error a promise rejects with (status and code). */
  refusal(promise: Promise<unknown>): Promise<{ status: number; code: string | undefined; message: string }>;
}

export async function startBillingHarness(options: HostingHarnessOptions & { catalog?: Catalog } = {}): Promise<BillingHarness> {
  const { catalog, ...rest } = options;
  const pay = createMemoryPayments(catalog ? { catalog } : {});
  const h = await startHostingHarness({ payments: pay, ...rest });
  const deliver = (delivery: WebhookDelivery) => h.reposite.billing.webhook(delivery.body, delivery.headers["stripe-signature"]);
  return {
    ...h,
    pay,
    deliver,
    async buy(ownerId, product, body) {
      const { id } = await h.reposite.billing.checkout(ownerId, product, body);
      const delivery = pay.complete(id);
      await deliver(delivery);
      return { sessionId: id, delivery };
    },
    refusal: async (promise) => {
      try {
        await promise;
      } catch (error) {
        const { status, code, message } = error as { status: number; code?: string; message: string };
        return { status, code, message };
      }
      throw new Error("expected a refusal, the call succeeded");
    },
  };
}
