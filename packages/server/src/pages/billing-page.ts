import { MEMORY_UNIT_MB, PRODUCTS, type AccountSummary, type PricesView, type ProjectView, type PurchaseView, type ResourceView, type ResourcesView } from "@reposite/core";
import { BILLING_PATH, PRODUCT_NAMES, STATUS_WORDS, formatMb, projectLink, unitsWords } from "./billing-words.js";
import { html, type SafeHtml } from "./html.js";
import { csrfField, layout, type PageSession } from "./layout.js";

/** Where the portal button posts. */
export const PORTAL_PATH = `${BILLING_PATH}/portal`;

/** One of the account's apps with the memory and disk it has; `resources` null when hosting cannot be asked now. */
export interface AppSize {
  siteId: string;
  name: string;
  resources: ResourcesView | null;
}

export interface BillingPageInput {
  session: PageSession;
  prices: PricesView;
  summary: AccountSummary;
  /** The account's projects, to link each purchase's project. */
  projects: ProjectView[];
  apps: AppSize[];
  notice?: string | undefined;
  error?: string | undefined;
}

function purchaseSize(purchase: PurchaseView, unitMb: number | undefined): string {
  if (unitMb === undefined) return purchase.product === "embed" ? "One app" : "One domain";
  const paid = unitsWords(purchase.quantity);
  return purchase.quantity === purchase.units ? `${paid} (${formatMb(purchase.units * unitMb)})` : `${paid}, to ${unitsWords(purchase.units)} (${formatMb(purchase.units * unitMb)})`;
}

function purchaseRow(purchase: PurchaseView, projects: Map<string, ProjectView>, prices: PricesView): SafeHtml {
  const project = projects.get(purchase.site_id);
  const product = prices.products[purchase.product];
  const unitMb = "unit_mb" in product ? product.unit_mb : undefined;
  return html`<tr>
  <td data-label="Product">${PRODUCT_NAMES[purchase.product]}</td>
  <td data-label="Project">${projectLink({ id: purchase.site_id, name: purchase.project_name, hasApp: project?.app_status != null, url: project?.url })}</td>
  <td data-label="Size">${purchaseSize(purchase, unitMb)}</td>
  <td data-label="Status">${STATUS_WORDS[purchase.status]}</td>
  <td data-label="In use">${purchase.counts ? (purchase.in_use ? "Yes" : "Not yet") : "No"}</td>
  <td data-label="Since">${purchase.created_at.slice(0, 10)}</td>
</tr>`;
}

function purchasesSection(input: BillingPageInput): SafeHtml {
  const { summary, projects, prices } = input;
  if (summary.purchases.length === 0) return html`<p class="muted" id="no-purchases">You have not bought anything yet.</p>`;
  const byId = new Map(projects.map((project) => [project.id, project]));
  return html`<div class="table-wrap"><table class="cards" id="purchases">
<thead><tr><th scope="col">Product</th><th scope="col">Project</th><th scope="col">Size</th><th scope="col">Status</th><th scope="col">In use</th><th scope="col">Since</th></tr></thead>
<tbody>${summary.purchases.map((purchase) => purchaseRow(purchase, byId, prices))}</tbody>
</table></div>`;
}

/** Per product: what is bought (seats) and how much of it is used. */
function useSection(summary: AccountSummary): SafeHtml {
  return html`<div class="table-wrap"><table class="cards" id="in-use">
<thead><tr><th scope="col">Product</th><th scope="col">Bought</th><th scope="col">In use</th></tr></thead>
<tbody>${PRODUCTS.map((product) => {
    const use = summary.products[product];
    const units = use.units === undefined ? "" : ` (${unitsWords(use.units)})`;
    return html`<tr data-product="${product}"><td data-label="Product">${PRODUCT_NAMES[product]}</td><td data-label="Bought">${use.seats}${units}</td><td data-label="In use">${use.used}</td></tr>`;
  })}</tbody>
</table></div>`;
}

/** A resource as the app has it now: its size, the units paid, and (memory) a size still to come with the next deploy. */
function sizeCell(view: ResourceView, nextDeployMb?: number): SafeHtml {
  const paid = view.units === 0 ? "free tier" : `${unitsWords(view.units)} paid`;
  const coming = nextDeployMb !== undefined && nextDeployMb > view.limit_mb ? html`; ${formatMb(nextDeployMb)} from the next deploy` : null;
  return html`${formatMb(view.limit_mb)} <span class="muted">(${paid}${coming})</span>`;
}

function appsSection(apps: AppSize[]): SafeHtml {
  if (apps.length === 0) return html`<p class="muted">None of your projects has an app yet.</p>`;
  return html`<div class="table-wrap"><table class="cards" id="app-sizes">
<thead><tr><th scope="col">App</th><th scope="col">Memory</th><th scope="col">Disk</th></tr></thead>
<tbody>${apps.map(
    (app) => html`<tr data-site="${app.siteId}">
  <td data-label="App">${projectLink({ id: app.siteId, name: app.name, hasApp: true })}</td>
  <td data-label="Memory">${app.resources ? sizeCell(app.resources.memory, app.resources.memory.units * MEMORY_UNIT_MB) : "Unknown just now"}</td>
  <td data-label="Disk">${app.resources ? sizeCell(app.resources.disk) : "Unknown just now"}</td>
</tr>`,
  )}</tbody>
</table></div>`;
}

function pricesSection(prices: PricesView): SafeHtml {
  const { embed, memory, disk, domain } = prices.products;
  const plain = (name: string, view: typeof embed, what: string) =>
    html`<tr><td data-label="Product">${name}</td><td data-label="Price">${view.on_sale ? view.price_label : "Not sold here (free)"}</td><td data-label="What you get">${what}</td></tr>`;
  const resource = (name: string, view: typeof memory, what: string) =>
    html`<tr><td data-label="Product">${name}</td><td data-label="Price">${
      view.on_sale ? html`${view.unit_price_label} per unit of ${formatMb(view.unit_mb)}` : "Not sold here"
    }</td><td data-label="What you get">${what}${
      view.on_sale && html` Sizes: ${view.steps.map((step, index) => html`${index > 0 ? ", " : ""}${formatMb(step.mb)} ${step.price_label}`)}.`
    }</td></tr>`;
  return html`<div class="table-wrap"><table class="cards" id="prices">
<thead><tr><th scope="col">Product</th><th scope="col">Price</th><th scope="col">What you get</th></tr></thead>
<tbody>
${plain(PRODUCT_NAMES.embed, embed, "One app hosted from one project's repository.")}
${resource(PRODUCT_NAMES.memory, memory, "More memory for one app, in place of the free 512 MB, from its next deploy.")}
${resource(PRODUCT_NAMES.disk, disk, "More disk for one app, in place of the free tier's, at once.")}
${plain(PRODUCT_NAMES.domain, domain, "One project on its own domain.")}
</tbody>
</table></div>
<p class="muted">The size you buy is the size the app gets, not an addition: you pay only for units not yet paid for.</p>`;
}

function portalSection(summary: AccountSummary, csrf: string): SafeHtml {
  if (summary.purchases.length === 0) {
    return html`<p id="portal-none">The billing portal opens once you have bought something: nothing has been bought on this account yet.</p>`;
  }
  return html`<p>Change your card, see invoices, and cancel or lower what you pay for in the payment provider's billing portal.</p>
<form method="post" action="${PORTAL_PATH}">${csrfField(csrf)}<button type="submit">Open the billing portal</button></form>`;
}

/**
 * The account's billing: what is bought and for which project, what is in use (per product, and
 * each app's memory and disk), the prices, and the button to the provider's billing portal. With
 * payments off the page says everything is free and has no portal.
 */
export function billingPage(input: BillingPageInput): SafeHtml {
  const { session, summary, prices, notice, error } = input;
  const payments = summary.payments;
  return layout({
    title: "Billing",
    session,
    body: html`<h1>Billing</h1>
${notice && html`<div class="notice ok" role="status"><p>${notice}</p></div>`}
${error && html`<div class="notice error" role="alert"><p>${error}</p></div>`}
${
  payments
    ? null
    : html`<div class="notice warn" role="status"><p>Payments are not set up on this server, so everything is free: there is nothing to pay and no billing portal to open.</p></div>
<p>Everything works without paying: generating and publishing sites, and the free tier of a hosted app. Ask the operator of this server if you need more.</p>`
}
${(payments || summary.purchases.length > 0) && html`<h2>What you have bought</h2>${purchasesSection(input)}`}
<h2>What is in use</h2>
${payments && useSection(summary)}
<h3>Memory and disk of each app</h3>
${appsSection(input.apps)}
${payments && html`<h2>Prices</h2>${pricesSection(prices)}<h2>Billing portal</h2>${portalSection(summary, session.csrf)}`}
<p><a href="/account">Back to your account</a></p>`,
  });
}
