import type { CheckoutAnswer, ConfirmAnswer, ProductStatus } from "@reposite/contract";
import { inject, injectable } from "tsyringe";
import { AccountsService } from "../accounts/accounts-service.js";
import { CONFIG, type RepositeConfig } from "../config.js";
import { conflict, notFound, RepositeError } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { PAYMENT_PROVIDER, PRODUCTS, type PaymentProvider, type Product, type ProductPrice } from "../ports/payments.js";
import { DeploymentStore } from "../hosting/deployment-store.js";
import type { ProjectRecord } from "../projects/project.js";
import { ProjectsService } from "../projects/projects-service.js";
import { ProjectStore } from "../projects/project-store.js";
import { formatTimestamp } from "../util/timestamps.js";
import { parseInput } from "../util/validation.js";
import { AccountBilling, type AccountSummary } from "./account-summary.js";
import { AppLimits, isResourceProduct, type ResourceProduct } from "./app-limits.js";
import { confirmSchema, parseCheckoutInput, type CheckoutInput } from "./checkout-input.js";
import { BillingEntitlements } from "./entitlements.js";
import { PaymentEvents, type WebhookReceipt } from "./payment-events.js";
import { FREE_LABEL, priceLabel } from "./price-labels.js";
import { PriceList } from "./price-list.js";
import { pricesView, type PricesView } from "./prices-view.js";
import { counts, type PurchaseRecord } from "./purchase.js";
import { PurchaseActivation } from "./purchase-activation.js";
import { accountLock, PurchaseStore } from "./purchase-store.js";

/** Where a person lands after paying: the provider puts the session id in place of `{CHECKOUT_SESSION_ID}`. */
export const CHECKOUT_RETURN_PATH = "/account/billing/return";
/** Where a person lands after leaving the payment page without paying. */
export const CHECKOUT_CANCEL_PATH = "/account/billing/cancelled";

/** `GET /billing/{product}`, `POST …/checkout` and `POST …/confirm` answer the contract's shapes. */
export type { ProductStatus, CheckoutAnswer, ConfirmAnswer } from "@reposite/contract";

/** What a return page shows of a checkout session. */
export interface SessionOutcome {
  paid: boolean;
  /** The products the session sells, the main one first. */
  products: Product[];
  site_id: string;
  /** Null when the project is gone. */
  project_name: string | null;
  /** Memory/disk sessions: what the app may use once paid. */
  limit_mb: number | null;
}

/** Products that `GET /billing` and `GET /billing/{product}` answer for. */
export const STATUS_PRODUCTS = ["embed", "domain"] as const;

export const isProduct = (value: string): value is Product => (PRODUCTS as readonly string[]).includes(value);

/**
 * Buying through the payment provider: prices, each product's status, checkouts, confirming a
 * checkout, what the account bought, the billing portal and the provider's webhooks. The API only
 * starts and checks payments; card details stay with the provider.
 */
@injectable()
export class BillingService {
  constructor(
    @inject(PAYMENT_PROVIDER) private readonly provider: PaymentProvider,
    @inject(PriceList) private readonly prices: PriceList,
    @inject(PurchaseStore) private readonly purchases: PurchaseStore,
    @inject(PurchaseActivation) private readonly activation: PurchaseActivation,
    @inject(PaymentEvents) private readonly events: PaymentEvents,
    @inject(BillingEntitlements) private readonly entitlements: BillingEntitlements,
    @inject(AccountBilling) private readonly account: AccountBilling,
    @inject(AppLimits) private readonly limits: AppLimits,
    @inject(ProjectsService) private readonly projects: ProjectsService,
    @inject(ProjectStore) private readonly projectStore: ProjectStore,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(AccountsService) private readonly accounts: AccountsService,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(CONFIG) private readonly config: RepositeConfig,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
  ) {}

  /** Whether payments are on (false: everything is free). */
  get enabled(): boolean {
    return this.provider.enabled;
  }

  /** `GET /billing/prices`. */
  async priceList(): Promise<PricesView> {
    return pricesView(this.provider.enabled, await this.prices.catalog());
  }

  /** `GET /billing`: embed and domain. */
  async statuses(accountId: string): Promise<Record<(typeof STATUS_PRODUCTS)[number], ProductStatus>> {
    const [embed, domain] = await Promise.all(STATUS_PRODUCTS.map((product) => this.status(accountId, product)));
    return { embed: embed!, domain: domain! };
  }

  /**
   * `GET /billing/{product}` for embed or domain (`404 unknown_product` for others): `paid` once a
   * purchase counts (a webhook or a confirm recorded it); with `siteId`, a purchase for that project.
   */
  async status(accountId: string, product: string, siteId?: string): Promise<ProductStatus> {
    if (!(STATUS_PRODUCTS as readonly string[]).includes(product)) {
      throw notFound(`There is no product status for ${JSON.stringify(product)}: ask for embed or domain (memory and disk are in …/deployment/resources).`, "unknown_product");
    }
    const price = await this.prices.price(product as Product);
    const paid = (await this.purchases.byAccount(accountId)).some(
      (purchase) => purchase.product === product && counts(purchase) && (siteId === undefined || purchase.site_id === siteId),
    );
    return { paid, required: price !== null, price_label: price ? priceLabel(price) : FREE_LABEL };
  }

  /**
   * `POST /billing/{product}/checkout`: a payment page for the product, for one project. Answers
   * in this order: `404 unknown_product`; `422 invalid_request` / `400 invalid_units` for the
   * body; `503 not_on_sale` when the product (or a resource asked with hosting) is not sold here;
   * `404` for a project that is not the caller's. Hosting and domains: `409 already_has` when the
   * project has it (or the account has one no project uses: set up the app, it takes it),
   * `409 not_bundleable` for resources with an app that has hosting already, or resources the
   * provider cannot sell on the same subscription, `409 quota_reached` when the account's
   * purchases cover other projects and `additional` is not true. Memory and disk: `402
   * payment_required` without the app's hosting, `409 not_configured` before its setup, `409
   * already_has` when it has that many units or more; only the units not yet paid are charged.
   */
  async checkout(accountId: string, product: string, body: unknown): Promise<CheckoutAnswer> {
    if (!isProduct(product)) throw notFound(`There is no product ${JSON.stringify(product)}: embed, memory, disk or domain.`, "unknown_product");
    const input = parseCheckoutInput(product, body);
    const price = await this.onSale(product);
    const project = await this.projects.getOwned(accountId, input.site_id);
    if (input.product === "memory" || input.product === "disk") return this.resourceCheckout(accountId, project, input.product, input.units);
    const items: { product: Product; quantity: number; units: number }[] = [{ product, quantity: 1, units: 1 }];
    if (input.product === "embed") {
      for (const resource of ["memory", "disk"] as const) {
        const units = input.resources[resource];
        if (units === 0) continue;
        const unitPrice = await this.onSale(resource);
        if (unitPrice.interval !== price.interval || unitPrice.currency !== price.currency) {
          throw conflict(
            `${resource} cannot be bought together with app hosting here (the provider bills them differently); buy hosting first, then ${resource} on its own (POST /billing/${resource}/checkout).`,
            "not_bundleable",
          );
        }
        const add = units - (await this.limits.units(project.id, resource));
        if (add > 0) items.push({ product: resource, quantity: add, units });
      }
    }
    return this.locks.withLock(accountLock(accountId), async () => {
      await this.assertSeatNeeded(accountId, project, input as Extract<CheckoutInput, { additional: boolean }>, items.length > 1);
      const session = await this.startCheckout(accountId, project, items);
      return { id: session.id, url: session.url };
    });
  }

  /**
   * `POST /billing/{product}/confirm`: reads the session from the provider and records the
   * purchase when it is paid (the same change its webhook makes; either may come first). `paid`
   * false means not yet. `404` for a session that is not the caller's or sells another product.
   */
  async confirm(accountId: string, product: string, body: unknown): Promise<ConfirmAnswer> {
    if (!isProduct(product)) throw notFound(`There is no product ${JSON.stringify(product)}: embed, memory, disk or domain.`, "unknown_product");
    const { session_id } = parseInput(confirmSchema, body);
    const outcome = await this.confirmSession(accountId, session_id, product);
    if (!isResourceProduct(product)) return { paid: outcome.paid };
    return { paid: outcome.paid, site_id: outcome.site_id, limit_mb: outcome.limit_mb! };
  }

  /**
   * A checkout session of the account, confirmed with the provider as `confirm` does, for a return
   * page: what it sold, for which project, and whether it is paid. `only`: it must sell that product.
   */
  async confirmSession(accountId: string, sessionId: string, only?: Product): Promise<SessionOutcome> {
    const sold = (await this.purchases.bySession(sessionId)).filter((purchase) => purchase.account_id === accountId);
    const main = sold.find((purchase) => (only ? purchase.product === only : true));
    if (!main) throw notFound(`No checkout of yours${only ? ` for ${only}` : ""} has the id ${JSON.stringify(sessionId)}.`, "unknown_session");
    if (sold.some((purchase) => purchase.status === "pending")) {
      const state = await this.provider.getCheckout(sessionId);
      if (state?.paid) await this.activation.completed(state, null);
    }
    const now = (await this.purchases.bySession(sessionId)).filter((purchase) => purchase.account_id === accountId);
    const current = now.find((purchase) => purchase.id === main.id) ?? main;
    const project = await this.projectStore.get(current.site_id);
    return {
      paid: counts(current),
      products: [current.product, ...now.filter((purchase) => purchase.id !== current.id).map((purchase) => purchase.product)],
      site_id: current.site_id,
      project_name: project && project.owner_id === accountId ? project.name : null,
      limit_mb: isResourceProduct(current.product) ? await this.limits.limitMb(current.site_id, current.product) : null,
    };
  }

  /** `GET /billing/account/summary`. */
  summary(accountId: string): Promise<AccountSummary> {
    return this.account.summary(accountId);
  }

  /**
   * The provider's billing portal for the account (cards, invoices, cancelling), returning to
   * `returnUrl`; a browser session only (the routes refuse tokens). `503 payments_off` with
   * payments off; `409 nothing_bought` before the account has bought anything.
   */
  async portalUrl(accountId: string, returnUrl: string): Promise<string> {
    if (!this.provider.enabled) throw new RepositeError(503, "Payments are off on this server: everything is free, there is no billing portal.", "payments_off");
    const customerId = await this.account.customerId(accountId);
    if (!customerId) throw conflict("Nothing has been bought on this account yet, so the billing portal has nothing to show.", "nothing_bought");
    return this.provider.portalUrl(customerId, returnUrl);
  }

  /** `POST /billing/webhook`: the raw body and its signature header. */
  webhook(rawBody: string, signature: string | undefined): Promise<WebhookReceipt> {
    return this.events.receive(rawBody, signature);
  }

  /** Memory or disk for one app: the size wanted, charged for the units not yet paid. */
  private async resourceCheckout(accountId: string, project: ProjectRecord, product: ResourceProduct, units: number): Promise<CheckoutAnswer> {
    if (!(await this.entitlements.hasHosting(project.id))) {
      throw new RepositeError(402, `${product} is sold for an app with app hosting; buy hosting for this project first (POST /billing/embed/checkout).`, "payment_required");
    }
    if (!(await this.deployments.get(project.id))) {
      throw conflict(`Set the app up before buying ${product} for it (PUT /app/sites/{site_id}/deployment).`, "not_configured");
    }
    const paid = await this.limits.units(project.id, product);
    if (paid >= units) {
      throw conflict(`The app already has ${paid} ${product} unit${paid === 1 ? "" : "s"} paid for, as much as ${units} or more; lowering is done in the billing portal.`, "already_has", { units: paid });
    }
    const session = await this.startCheckout(accountId, project, [{ product, quantity: units - paid, units }]);
    return { id: session.id, url: session.url, units, quantity: units - paid };
  }

  /** Hosting and domains: refuses a checkout the account does not need, or one past its purchases without `additional`. */
  private async assertSeatNeeded(accountId: string, project: ProjectRecord, input: { product: "embed" | "domain"; additional: boolean }, withResources: boolean): Promise<void> {
    const { product } = input;
    const what = product === "embed" ? "app hosting" : "a domain";
    const owned = (await this.purchases.byAccount(accountId)).filter((purchase) => purchase.product === product && counts(purchase));
    if (owned.some((purchase) => purchase.site_id === project.id)) {
      if (withResources) {
        throw conflict("This app has app hosting already: buy memory or disk on its own (POST /billing/memory/checkout, POST /billing/disk/checkout).", "not_bundleable");
      }
      throw conflict(`This project has ${what} already.`, "already_has");
    }
    const covering: PurchaseRecord[] = [];
    for (const purchase of owned) {
      const other = await this.projectStore.get(purchase.site_id);
      if (!other || other.owner_id !== accountId) {
        throw conflict(
          `The account has ${what} that no project uses (its project is gone): ${product === "embed" ? "set this app up and it takes it" : "connect the domain and it takes it"}.`,
          "already_has",
        );
      }
      covering.push(purchase);
    }
    if (covering.length > 0 && !input.additional) {
      throw conflict(
        `The account's ${what} covers another project (one ${product === "embed" ? "app" : "domain"} per purchase); send additional: true to buy another.`,
        "quota_reached",
      );
    }
  }

  /** A checkout session at the provider and its pending purchases. */
  private async startCheckout(accountId: string, project: ProjectRecord, items: { product: Product; quantity: number; units: number }[]) {
    const account = await this.accounts.get(accountId);
    const ids = items.map(() => this.ids.newId("pur"));
    const base = this.config.baseUrl;
    const session = await this.provider.createCheckout({
      items: items.map(({ product, quantity }) => ({ product, quantity })),
      accountId,
      email: account.email,
      customerId: await this.account.customerId(accountId),
      successUrl: `${base}${CHECKOUT_RETURN_PATH}?session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${base}${CHECKOUT_CANCEL_PATH}?site_id=${encodeURIComponent(project.id)}&product=${items[0]!.product}`,
      metadata: {
        account_id: accountId,
        site_id: project.id,
        product: items[0]!.product,
        purchase_ids: ids.join(","),
        ...Object.fromEntries(items.filter((item) => isResourceProduct(item.product)).map((item) => [`${item.product}_units`, String(item.units)])),
      },
    });
    const now = formatTimestamp(this.clock.now());
    await this.purchases.insert(
      items.map(
        (item, index): PurchaseRecord => ({
          id: ids[index]!,
          account_id: accountId,
          product: item.product,
          site_id: project.id,
          units: item.units,
          quantity: item.quantity,
          status: "pending",
          session_id: session.id,
          customer_id: null,
          subscription_id: null,
          event_at: null,
          provider_status: null,
          created_at: now,
          updated_at: now,
        }),
      ),
    );
    return session;
  }

  /** The product's price; `503 not_on_sale` when this server does not sell it. */
  private async onSale(product: Product): Promise<ProductPrice> {
    const price = await this.prices.price(product);
    if (price) return price;
    throw new RepositeError(
      503,
      this.provider.enabled ? `${product} is not sold on this server.` : `Payments are off on this server: ${product} is not sold${product === "embed" || product === "domain" ? " and is free to use" : ""}.`,
      "not_on_sale",
    );
  }
}
