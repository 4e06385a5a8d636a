import { html, type SafeHtml } from "./html.js";
import { layout } from "./layout.js";

/**
 * After the sign-in form: the link is in the person's mailbox. `next` (a safe path) is where the
 * link will bring them; opening it again shows the form again, for a new link.
 */
export function checkEmailPage({ next }: { next: string }): SafeHtml {
  return layout({
    title: "Check your email",
    body: html`<h1>Check your email</h1>
<div class="notice ok" role="status"><p>We sent you a sign-in link. Open it within 15 minutes; it works once.</p></div>
<p>The link brings you back here, signed in. You can close this page.</p>
<p>Nothing arrived? Look in your spam folder, or <a href="${next}">ask for a new link</a>.</p>`,
  });
}
