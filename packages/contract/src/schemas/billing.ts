import { z } from "zod";
import { idSchema } from "./ids.js";

/** What is sold: hosting one app (`embed`), memory and disk for one app, one custom domain. */
export const PRODUCTS = ["embed", "memory", "disk", "domain"] as const;
export const productSchema = z.enum(PRODUCTS);
export type Product = z.output<typeof productSchema>;

/** `{product}` in a path: any string; one that is no product is `404 unknown_product`. */
export const productParamsSchema = z.object({ product: z.string().describe("`embed`, `memory`, `disk` or `domain`") });

/** The sizes memory and disk are sold in (1 memory unit = 1 GB, 1 disk unit = 5 GB). */
export const RESOURCE_UNITS = [1, 2, 4, 8, 16] as const;
export type ResourceUnits = (typeof RESOURCE_UNITS)[number];

/**
 * A size in units. The server checks it itself (`400 invalid_units`, the spec's code, not `422`),
 * so any value reaches that check; the type says what is accepted.
 */
const units = z.custom<ResourceUnits>().meta({ type: "integer", enum: [...RESOURCE_UNITS] });
/** A step of `resources`: 0 leaves the resource on the free tier. */
const step = z.custom<0 | ResourceUnits>().meta({ type: "integer", enum: [0, ...RESOURCE_UNITS] });

// ---- Requests ------------------------------------------------------------------------------------

/**
 * `POST /billing/{product}/checkout`, for every product: `site_id` always; `additional` for
 * `embed` and `domain` (true buys another one when the account's cover other projects); `resources`
 * for `embed` (memory and disk steps bought with it, 0 for the free tier); `units` for `memory` and
 * `disk` (the size the app should end up with, not an addition). Fields another product does not
 * use are ignored.
 */
export const checkoutInputSchema = z
  .object({
    site_id: idSchema("site", "site_id").describe("The project it is for"),
    additional: z.boolean().optional().describe("`embed`/`domain`: buy another when the account's cover other projects"),
    resources: z
      .object(
        {
          memory: step.optional().describe("Memory step: 0 (the free 512 MB), 1, 2, 4, 8 or 16 GB"),
          disk: step.optional().describe("Disk step: 0 (the free 3 GB), 1, 2, 4, 8 or 16 units of 5 GB"),
        },
        { message: "must be an object {memory, disk}" },
      )
      .optional()
      .describe("`embed`: memory and disk bought with the hosting"),
    units: units.optional().describe("`memory`/`disk`: 1, 2, 4, 8 or 16 (`400 invalid_units` otherwise)"),
  })
  .meta({ id: "CheckoutInput" });
export type CheckoutInput = z.input<typeof checkoutInputSchema>;

/** `POST /billing/{product}/confirm`. */
export const confirmInputSchema = z
  .object({
    session_id: z
      .string({ message: "session_id is required: the id the checkout answered" })
      .min(1, "session_id is required: the id the checkout answered")
      .max(255, "session_id is too long")
      .describe("The `id` the checkout answered"),
  })
  .meta({ id: "ConfirmInput" });
export type ConfirmInput = z.input<typeof confirmInputSchema>;

/** `GET /billing/{product}?site_id=`. */
export const productStatusQuerySchema = z.object({
  site_id: idSchema("site", "site_id").optional().describe("Whether this project's purchase is paid (left out: any of the account's)"),
});

// ---- Answers -------------------------------------------------------------------------------------

export const billingIntervalSchema = z.enum(["month", "once"]).describe("`month` (a subscription) or `once`");

/** One product in `GET /billing/prices`. */
export const productPriceSchema = z.strictObject({
  on_sale: z.boolean().describe("Sold on this server (payments on and the product in the provider's catalog)"),
  price_label: z.string().describe("What to quote: `$9.00 / month`, `$12.00 once`; memory and disk per unit; `Free` when not sold"),
  interval: billingIntervalSchema.nullable().describe("Null when not sold"),
  amount: z.number().int().nullable().describe("In the currency's smallest unit (cents), per unit for memory and disk; null when not sold"),
  currency: z.string().nullable(),
});
export type ProductPriceView = z.output<typeof productPriceSchema>;

/** Memory and disk add their unit and steps. */
export const resourcePriceSchema = productPriceSchema.extend({
  unit_mb: z.number().int().describe("MB in one unit: 1024 for memory, 5120 for disk"),
  unit_price_label: z.string(),
  steps: z.array(z.strictObject({ units: z.number().int(), mb: z.number().int(), price_label: z.string() })),
});
export type ResourcePriceView = z.output<typeof resourcePriceSchema>;

/** `GET /billing/prices` (no token). */
export const pricesSchema = z
  .strictObject({
    payments: z.boolean().describe("False: payments are off on this server, everything is free"),
    products: z.strictObject({ embed: productPriceSchema, memory: resourcePriceSchema, disk: resourcePriceSchema, domain: productPriceSchema }),
  })
  .meta({ id: "Prices" });
export type PricesView = z.output<typeof pricesSchema>;

/** `GET /billing/{product}` (embed and domain). */
export const productStatusSchema = z
  .strictObject({
    paid: z.boolean().describe("The account has a purchase of it that counts (for `site_id`, when asked for one project)"),
    required: z.boolean().describe("It must be paid before use (payments on and the product sold here)"),
    price_label: z.string(),
  })
  .meta({ id: "ProductStatus" });
export type ProductStatus = z.output<typeof productStatusSchema>;

/** `GET /billing`. */
export const productStatusesSchema = z.strictObject({ embed: productStatusSchema, domain: productStatusSchema });
export type ProductStatuses = z.output<typeof productStatusesSchema>;

/** `POST /billing/{product}/checkout`. */
export const checkoutAnswerSchema = z
  .strictObject({
    id: z.string().describe("The payment session: `session_id` of the confirm"),
    url: z.string().describe("The payment page, for a person"),
    units: z.number().int().optional().describe("Memory/disk: the size asked for"),
    quantity: z.number().int().optional().describe("Memory/disk: the units this checkout charges (those not yet paid)"),
  })
  .meta({ id: "Checkout" });
export type CheckoutAnswer = z.output<typeof checkoutAnswerSchema>;

/** `POST /billing/{product}/confirm`. */
export const confirmAnswerSchema = z
  .strictObject({
    paid: z.boolean().describe("False: not yet"),
    site_id: z.string().optional().describe("Memory/disk: the app"),
    limit_mb: z.number().optional().describe("Memory/disk: what the app may use once paid (memory from its next deploy, disk at once)"),
  })
  .meta({ id: "CheckoutConfirmation" });
export type ConfirmAnswer = z.output<typeof confirmAnswerSchema>;

/**
 * Where a purchase stands. `pending`: a checkout was started, not paid yet. `active`: paid.
 * `past_due`: a renewal failed; it still counts while the provider retries. `ended`: it no longer counts.
 */
export const PURCHASE_STATUSES = ["pending", "active", "past_due", "ended"] as const;
export const purchaseStatusSchema = z.enum(PURCHASE_STATUSES);
export type PurchaseStatus = z.output<typeof purchaseStatusSchema>;

/** One purchase as the account sees it. */
export const purchaseSchema = z
  .strictObject({
    id: z.string(),
    product: productSchema,
    status: purchaseStatusSchema.describe("`active`, `past_due` (a renewal failed; still counts until the subscription ends) or `ended`"),
    counts: z.boolean().describe("Gives what it sells now (`active` or `past_due`)"),
    site_id: z.string(),
    project_name: z.string().nullable().describe("Null when the project is gone (or no longer this account's)"),
    in_use: z.boolean().describe("Hosting: the project's app is set up; a domain, memory, disk: their project exists"),
    units: z.number().int().describe("Memory/disk: the size asked for, in units; others 1"),
    quantity: z.number().int().describe("Memory/disk: the units this purchase pays for; others 1"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Purchase" });
export type PurchaseView = z.output<typeof purchaseSchema>;

/** Per product: purchases that count (`seats`) and how many are in use (`used`); memory and disk add the units paid for. */
export const productUseSchema = z.strictObject({
  seats: z.number().int(),
  used: z.number().int(),
  units: z.number().int().optional(),
});
export type ProductUse = z.output<typeof productUseSchema>;

/** `GET /billing/account/summary`. */
export const accountSummarySchema = z
  .strictObject({
    payments: z.boolean().describe("False: payments are off on this server, everything is free"),
    products: z.strictObject({ embed: productUseSchema, memory: productUseSchema, disk: productUseSchema, domain: productUseSchema }),
    purchases: z.array(purchaseSchema).describe("Every purchase made (checkouts never paid left out), newest first"),
  })
  .meta({ id: "AccountSummary" });
export type AccountSummary = z.output<typeof accountSummarySchema>;

/** `POST /billing/webhook`: the event was recorded. */
export const webhookReceiptSchema = z
  .strictObject({
    received: z.literal(true),
    event_id: z.string(),
    duplicate: z.boolean().describe("It had been handled before and changed nothing now"),
  })
  .meta({ id: "WebhookReceipt" });
export type WebhookReceipt = z.output<typeof webhookReceiptSchema>;
