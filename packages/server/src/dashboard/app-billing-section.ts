import type { ProductStatus, ResourceStep } from "@reposite/contract";
import { html, type SafeHtml } from "../pages/html.js";
import { formatMb } from "../pages/billing-words.js";
import { csrfField } from "../pages/layout.js";

/**
 * What the App and Domain screens sell, by the form's address under the screen: each posts the
 * same checkout as `POST /billing/{product}/checkout` and is answered with the provider's payment
 * page, which sends the person back to `/account/billing/return` (links lead on to the screen).
 */
export const BUY_PATHS = { embed: "buy/hosting", memory: "buy/memory", disk: "buy/disk", domain: "buy/domain" } as const;

export type SoldHere = keyof typeof BUY_PATHS;

/** Where a screen's forms post and the session's CSRF token: a Buy button needs both. */
export interface BuyForm {
  path: string;
  csrf: string;
}

/** A product that must be paid for here and is not yet paid for this site: the price and a Buy button. */
export function buySection(form: BuyForm, product: "embed" | "domain", status: ProductStatus | null): SafeHtml | null {
  if (!status || !status.required || status.paid) return null;
  const what = product === "embed" ? "App hosting" : "A custom domain";
  const why =
    product === "embed"
      ? "An app is hosted on this server once app hosting is paid for this site: setting it up, deploying and starting it wait for that."
      : "Connecting and verifying a domain of your own wait for a custom domain paid for this site.";
  return html`<section class="notice warn" aria-labelledby="buy-${product}-title">
<h2 id="buy-${product}-title">${what}: ${status.price_label}</h2>
<p>${why} You pay on the payment provider's page and come back here.</p>
<form method="post" action="${form.path}/${BUY_PATHS[product]}">${csrfField(form.csrf)}<button type="submit">Buy ${what.toLowerCase()} for this site</button></form>
</section>`;
}

/** One memory or disk size: a Buy button while it is sold to this app, else why not. */
export function buyStepCell(form: BuyForm | null, kind: "memory" | "disk", step: ResourceStep, paidUnits: number): SafeHtml {
  if (step.units <= paidUnits) return html`<span class="muted">Paid for</span>`;
  if (!form || !step.available) return html`<span class="muted">Not sold now</span>`;
  return html`<form class="inline" method="post" action="${form.path}/${BUY_PATHS[kind]}">${csrfField(form.csrf)}<input type="hidden" name="units" value="${String(step.units)}"><button type="submit" class="secondary small">Buy ${formatMb(step.mb)} of ${kind}</button></form>`;
}

/**
 * A Buy form as the checkout's body (`checkoutInputSchema`, checked by the billing service like
 * the API's). Hosting and domains are bought for this site even when the account's others cover
 * other sites (`additional`): the person pressed Buy on this site's screen.
 */
export function checkoutBody(product: SoldHere, siteId: string, form: URLSearchParams): Record<string, unknown> {
  if (product === "memory" || product === "disk") {
    const units = form.get("units");
    return { site_id: siteId, units: units === null || units === "" ? undefined : Number(units) };
  }
  return { site_id: siteId, additional: true };
}
