import { html, type SafeHtml } from "./html.js";
import { layout, type PageSession } from "./layout.js";

/**
 * The billing portal. This server has no payment provider yet, so it says so; with one, this
 * route sends the person on to the provider's own portal instead.
 */
export function billingPage({ session }: { session: PageSession }): SafeHtml {
  return layout({
    title: "Billing",
    session,
    body: html`<h1>Billing</h1>
<div class="notice warn" role="status"><p>Payments are not set up on this server, so there is nothing to pay and no billing portal to open.</p></div>
<p>Everything that is free works: generating and publishing sites, and the free tier of a hosted app. Ask the operator of this server if you need more.</p>
<p><a href="/account">Back to your account</a></p>`,
  });
}
