import type { WebhookReceipt } from "@reposite/contract";
import { inject, injectable } from "tsyringe";
import { RepositeError } from "../errors.js";
import { PAYMENT_PROVIDER, WebhookRejected, type PaymentEvent, type PaymentProvider } from "../ports/payments.js";
import { ProcessedEvents } from "./processed-events.js";
import { PurchaseActivation } from "./purchase-activation.js";
import { PurchaseStore } from "./purchase-store.js";

/** What the webhook endpoint answers once an event is taken. */
export type { WebhookReceipt } from "@reposite/contract";

/**
 * The provider's webhooks: the signature is checked by the provider over the raw body, then the
 * event changes purchases. A completed checkout activates its purchases; a subscription update
 * or cancellation ends or restores them; a failed renewal marks them `past_due` (they keep
 * counting until the subscription ends). Each event id is handled once; an event older than what
 * a purchase last applied changes nothing.
 */
@injectable()
export class PaymentEvents {
  constructor(
    @inject(PAYMENT_PROVIDER) private readonly provider: PaymentProvider,
    @inject(PurchaseStore) private readonly purchases: PurchaseStore,
    @inject(PurchaseActivation) private readonly activation: PurchaseActivation,
    @inject(ProcessedEvents) private readonly processed: ProcessedEvents,
  ) {}

  /**
   * `POST /billing/webhook`: `400 invalid_signature` when the signature does not hold, `400
   * webhook_from_future` when it is signed later than the clock allows; nothing changed.
   */
  async receive(rawBody: string, signature: string | undefined): Promise<WebhookReceipt> {
    let event: PaymentEvent;
    try {
      event = await this.provider.parseWebhook(rawBody, signature);
    } catch (error) {
      if (error instanceof WebhookRejected || (error as Error)?.name === "WebhookRejected") {
        const reason = (error as WebhookRejected).reason ?? "invalid_signature";
        throw new RepositeError(400, `The webhook was refused: ${(error as Error).message}`, reason);
      }
      throw error;
    }
    const handled = await this.handle(event);
    return { received: true, event_id: event.id, duplicate: !handled };
  }

  /** Applies one event unless its id was handled before; answers whether it was applied now. */
  handle(event: PaymentEvent): Promise<boolean> {
    return this.processed.once(event.id, () => this.apply(event));
  }

  private async apply(event: PaymentEvent): Promise<void> {
    switch (event.type) {
      case "checkout_completed":
        await this.activation.completed(event.session, event.created);
        return;
      case "subscription_changed": {
        // Kept first: a subscription may be reported before its checkout's completion is.
        const kept = await this.purchases.noteSubscription(event.subscriptionId, {
          status: event.status,
          ended: event.ended,
          event_at: event.created,
          ...(event.quantities ? { quantities: event.quantities } : {}),
        });
        await this.activation.subscriptionChanged(event.subscriptionId, kept);
        return;
      }
      case "payment_failed":
        if (event.subscriptionId) await this.activation.paymentFailed(event.subscriptionId, event.created);
        return;
      case "ignored":
        return;
    }
  }
}
