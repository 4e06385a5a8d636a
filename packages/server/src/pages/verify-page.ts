import type { LoginRequestPage } from "@reposite/core";
import { html, type SafeHtml } from "./html.js";
import { csrfField, layout, signOutForm, type PageSession } from "./layout.js";
import { signInForm } from "./sign-in-page.js";

export interface VerifyPageInput {
  verificationId: string;
  /** The request as the signed-in person sees it (or as anyone sees it, when signed out). */
  request: LoginRequestPage;
  session: PageSession | null;
}

export const verifyPath = (verificationId: string) => `/agent/verify/${verificationId}`;

/** "I did not ask for this": always a form of its own, so it works before and after the code. */
function declineForm(path: string, csrf: string, className?: string): SafeHtml {
  return html`<form method="post" action="${path}/decline">${csrfField(csrf)}<button type="submit"${className && html` class="${className}"`}>I did not ask for this</button></form>`;
}

function warning(client: string): SafeHtml {
  return html`<div class="notice warn" role="note"><p><strong>Only continue if you started this yourself, just now, in “${client}”.</strong>
If you did not, or you are not sure, choose “I did not ask for this”: someone may be trying to get into your account.</p></div>`;
}

/** What the person sees at a login request's link, in each of its states. */
export function verifyPage({ verificationId, request, session }: VerifyPageInput): SafeHtml {
  const path = verifyPath(verificationId);
  const { client } = request;
  let title: string;
  let body: SafeHtml;

  if (request.status === "expired" || request.status === "locked") {
    title = "This login request has expired";
    body = html`<h1>${title}</h1>
<p>${request.status === "locked" ? "Too many wrong codes were tried, so this request no longer works." : "Login requests work for 15 minutes, and this one is over."}
Nothing was given to “${client}”. If you still want to log it in, ask it to start a new login.</p>`;
  } else if (request.status === "denied") {
    title = "You declined this request";
    body = html`<h1>${title}</h1>
<div class="notice ok" role="status"><p>“${client}” cannot use this request. If it had received a token, that token no longer works.</p></div>
<p>If you did not start this, someone knew your email address; nothing else is needed from you. <a href="/account">Review your tokens</a>.</p>`;
  } else if (!session) {
    title = "Sign in to continue";
    body = html`<h1>A program asks to use your Reposite account</h1>
<p>“${client}” wants to act on a Reposite account. Sign in (or sign up) to see the request and decide.</p>
${signInForm({ next: path })}
<p class="muted">We email you a link; it brings you back to this page, signed in.</p>`;
  } else if (request.email && request.email !== session.email) {
    title = "Signed in as another account";
    body = html`<h1>${title}</h1>
<p>You are signed in as <strong>${session.email}</strong>, but this request is for <strong>${request.email}</strong>.</p>
<p>Sign out, then open the link again and sign in as ${request.email}.</p>
${signOutForm(session.csrf, { next: path, label: "Sign out", className: "" })}`;
  } else if (request.status === "pending") {
    title = "Log in a program";
    body = html`<h1>“${client}” asks to use your Reposite account</h1>
<p>If you continue, “${client}” gets a token that acts as <strong>${session.email}</strong> for 90 days: it can change your projects and start payments.</p>
${warning(client)}
<div class="choices">
  <form method="post" action="${path}/continue">${csrfField(session.csrf)}<button type="submit">Continue</button></form>
  ${declineForm(path, session.csrf)}
</div>`;
  } else if (request.status === "approved" && request.code) {
    title = "Read this code to the program";
    body = html`<h1>${title}</h1>
<p>Read or type this code into “${client}”. It works once, within 15 minutes of the program asking.</p>
<p class="code" id="login-code" aria-label="Code ${request.code.split("").join(" ")}">${request.code}</p>
<p>Changed your mind, or did not start this? Press the button: the request stops working, and a token “${client}” already received is revoked.</p>
${declineForm(path, session.csrf, "danger")}`;
  } else if (request.status === "used") {
    title = "The program is logged in";
    body = html`<h1>${title}</h1>
<div class="notice ok" role="status"><p>“${client}” received its token. You can close this page.</p></div>
<p>Did not start this? Press the button: the token stops working at once.</p>
${declineForm(path, session.csrf, "danger")}`;
  } else {
    // Approved, but not by this account: only the person who continued may see the code.
    title = "Already answered";
    body = html`<h1>${title}</h1>
<p>Another account already continued this request. There is nothing to do here as ${session.email}.</p>`;
  }
  return layout({ title, session, body });
}
