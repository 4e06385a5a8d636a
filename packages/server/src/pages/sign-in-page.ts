import { html, type SafeHtml } from "./html.js";
import { csrfField, layout } from "./layout.js";

export interface SignInFormInput {
  /** Where to go once signed in: a path on this server, already made safe. */
  next: string;
  /** What the person typed, when the form comes back with an error. */
  email?: string;
  error?: string;
}

/** Email in, one-time link out: the same form signs a new person up. */
export function signInForm({ next, email, error }: SignInFormInput): SafeHtml {
  return html`${error && html`<div class="notice error" role="alert"><p>${error}</p></div>`}
<form class="stack" method="post" action="/account/sign-in">
  <input type="hidden" name="next" value="${next}">
  <label for="email">Email address</label>
  <input id="email" name="email" type="email" autocomplete="email" required value="${email ?? ""}">
  <button type="submit">Email me a sign-in link</button>
</form>`;
}

/** The account page of someone signed out. */
export function signInPage(input: SignInFormInput): SafeHtml {
  return layout({
    title: "Sign in",
    body: html`<h1>Sign in or sign up</h1>
<p>Enter your email address. We will email you a link that signs you in; the first time, it also creates your account.</p>
${signInForm(input)}`,
  });
}

/**
 * What the emailed link opens. Signing in takes a button press, because mail scanners open
 * links to check them and would otherwise use up the one-time link.
 */
export function confirmSignInPage({ token, csrf }: { token: string; csrf?: string | undefined }): SafeHtml {
  return layout({
    title: "Continue signing in",
    body: html`<h1>Continue signing in</h1>
<p>Press the button to finish signing in to Reposite on this device.</p>
<form method="post" action="/account/sign-in/confirm">
  ${csrf && csrfField(csrf)}
  <input type="hidden" name="token" value="${token}">
  <button type="submit">Continue signing in</button>
</form>
<p class="muted">If you did not ask to sign in, close this page: nothing happens until the button is pressed.</p>`,
  });
}
