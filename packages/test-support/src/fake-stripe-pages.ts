import type { StripeObject } from "./fake-stripe.js";

/** The fake's hosted pages: just enough HTML for a browser test to pay, cancel, or use the portal. */

const escape = (text: unknown) =>
  String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);

const money = (amount: unknown, currency: unknown) => `${(Number(amount) / 100).toFixed(2)} ${String(currency ?? "").toUpperCase()}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head>
<body><main>
<h1>${escape(title)}</h1>
${body}
</main></body></html>`;
}

export function messagePage(title: string, message: string): string {
  return page(title, `<p>${escape(message)}</p>`);
}

/** What is bought, the total, a Pay button (POST to the same address) and a Cancel link to `cancel_url`. */
export function checkoutPage(session: StripeObject, lines: { price: StripeObject; quantity: number }[]): string {
  const rows = lines
    .map((line) => {
      const each = money(line.price.unit_amount, line.price.currency);
      const every = (line.price.recurring as { interval?: string } | null)?.interval;
      return `<li data-price="${escape(line.price.id)}">${escape(line.price.id)} × <span class="quantity">${line.quantity}</span> at ${escape(each)}${every ? ` per ${escape(every)}` : ""}</li>`;
    })
    .join("\n");
  const cancel = session.cancel_url ? `<a id="cancel" href="${escape(session.cancel_url)}">Cancel</a>` : "";
  const email = session.customer_email ? `<p>Paying as <span id="email">${escape(session.customer_email)}</span></p>` : "";
  const open = session.status === "open";
  return page(
    open ? "Pay" : "Checkout",
    `<ul id="items">${rows}</ul>
<p>Total: <span id="total">${escape(money(session.amount_total, session.currency))}</span>${session.mode === "subscription" ? " per month" : ""}</p>
${email}
${open ? `<form method="post"><button id="pay" type="submit">Pay</button></form>` : `<p id="status">This session is ${escape(session.status)}.</p>`}
${cancel}`,
  );
}

/** The customer's subscriptions with a Cancel button each, and a link back to `return_url`. */
export function portalPage(session: StripeObject, customer: StripeObject | undefined, subscriptions: StripeObject[]): string {
  const rows = subscriptions
    .map((subscription) => {
      const cancel =
        subscription.status === "canceled"
          ? ""
          : `<form method="post" action="${escape(`${String(session.url)}/cancel/${subscription.id}`)}"><button type="submit" class="cancel">Cancel subscription</button></form>`;
      return `<li data-subscription="${escape(subscription.id)}"><span class="status">${escape(subscription.status)}</span>${cancel}</li>`;
    })
    .join("\n");
  const back = session.return_url ? `<a id="return" href="${escape(session.return_url)}">Return</a>` : "";
  return page("Billing", `<p>${escape(customer?.email ?? session.customer)}</p>\n<ul id="subscriptions">${rows}</ul>\n${back}`);
}
