import type { Product, SessionOutcome } from "@reposite/core";
import { dashboardPaths } from "../dashboard/dashboard-paths.js";
import { appScreenPath } from "./app-page.js";
import { BILLING_PATH, PRODUCT_NAMES, formatMb, projectLink } from "./billing-words.js";
import { html, type SafeHtml } from "./html.js";
import { layout, type PageSession } from "./layout.js";

/** The project a checkout was for, as far as this account may see it. */
export interface ReturnProject {
  id: string;
  /** Null when the project is gone. */
  name: string | null;
  hasApp: boolean;
  url?: string | null;
}

const list = (products: Product[]) => {
  const names = products.map((product) => PRODUCT_NAMES[product]);
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
};

function nextLinks(project: ReturnProject | null, product: Product | null): SafeHtml {
  return html`<ul id="next-steps">
  <li><a href="${BILLING_PATH}">Your billing</a>: everything you have bought and the billing portal.</li>
  ${
    // A domain is connected on the site's Domain screen; everything else is the app's.
    project &&
    project.name !== null &&
    (product === "domain"
      ? html`<li><a href="${dashboardPaths.domain(project.id)}">The site's domain screen</a></li>`
      : html`<li><a href="${appScreenPath(project.id)}">The app's screen</a>${
      project.hasApp ? null : html` <span class="muted">(once the app is set up: <code>PUT /app/sites/${project.id}/deployment</code>)</span>`
    }</li>`)
  }
</ul>`;
}

/** What a paid memory or disk purchase changes for the app. */
function limitWords(outcome: SessionOutcome): SafeHtml | null {
  if (!outcome.paid || outcome.limit_mb === null) return null;
  const main = outcome.products[0];
  return main === "memory"
    ? html`<p id="limit">The app gets ${formatMb(outcome.limit_mb)} of memory from its next deploy.</p>`
    : html`<p id="limit">The app may use ${formatMb(outcome.limit_mb)} of disk from now on.</p>`;
}

/**
 * Where a person lands after paying on the provider's page (the checkout's success URL): what was
 * bought and for which project, and whether the payment has arrived or is still awaited.
 */
export function checkoutReturnPage({ session, outcome, project, again }: { session: PageSession; outcome: SessionOutcome; project: ReturnProject; again: string }): SafeHtml {
  const what = html`<strong id="bought">${list(outcome.products)}</strong> for <strong id="bought-for">${projectLink(project)}</strong>`;
  return layout({
    title: outcome.paid ? "Payment received" : "Waiting for the payment",
    session,
    body: html`<h1>${outcome.paid ? "Payment received" : "Waiting for the payment"}</h1>
${
  outcome.paid
    ? html`<div class="notice ok" role="status" id="outcome"><p>Payment received: you bought ${what}. Thank you.</p></div>`
    : html`<div class="notice warn" role="status" id="outcome"><p>We are waiting for the payment to be confirmed for ${what}. It counts as soon as the payment provider tells us; nothing more to do on your side.</p>
<p><a href="${again}">Check again</a></p></div>`
}
${limitWords(outcome)}
${nextLinks(project, outcome.products[0] ?? null)}`,
  });
}

/** Where a person lands after leaving the provider's payment page without paying (the checkout's cancel URL). */
export function checkoutCancelledPage({ session, product, project }: { session: PageSession; product: Product | null; project: ReturnProject | null }): SafeHtml {
  const what = product ? html` for ${PRODUCT_NAMES[product]}` : null;
  const forProject = project && project.name !== null ? html` (${projectLink(project)})` : null;
  return layout({
    title: "Payment cancelled",
    session,
    body: html`<h1>Payment cancelled</h1>
<div class="notice ok" role="status" id="outcome"><p>Nothing was charged. You left the payment page${what}${forProject} without paying, so nothing was bought.</p></div>
<p>You can buy it again whenever you like.</p>
${nextLinks(project, product)}`,
  });
}
