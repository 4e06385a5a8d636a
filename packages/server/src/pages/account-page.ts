import { MAX_WORKING_TOKENS, TOKEN_PREFIX, type CreatedToken, type TokenLifetime, type TokenView } from "@reposite/core";
import { html, type SafeHtml } from "./html.js";
import { csrfField, layout, type PageSession } from "./layout.js";

/** The lifetimes offered, in the order shown. */
export const LIFETIME_CHOICES: ReadonlyArray<{ value: TokenLifetime; label: string }> = [
  { value: "30d", label: "30 days" },
  { value: "90d", label: "90 days" },
  { value: "1y", label: "1 year" },
  { value: "never", label: "Never expires" },
];

export interface AccountPageInput {
  session: PageSession;
  /** The account's working tokens, newest first. */
  tokens: TokenView[];
  /** A token made by this very request: its secret is shown now and never again. */
  created?: CreatedToken | undefined;
  /** A short confirmation of what the last action did. */
  notice?: string | undefined;
  /** Why the last action was refused. */
  error?: string | undefined;
  /** What the person typed into the create form, when it comes back with an error. */
  form?: { name?: string | undefined; lifetime?: string | undefined } | undefined;
}

/** `YYYY-MM-DD HH:MM:SS` (UTC) to the minute. */
const when = (timestamp: string | null, none: string) => (timestamp ? `${timestamp.slice(0, 16)} UTC` : none);

const SOURCES: Record<TokenView["source"], string> = { account: "This page", agent: "Agent login", operator: "The operator (CLI)" };

function tokenRow(token: TokenView, csrf: string): SafeHtml {
  return html`<tr>
  <td data-label="Name">${token.name}</td>
  <td data-label="Token"><code>${TOKEN_PREFIX}…${token.hint}</code></td>
  <td data-label="Last used">${when(token.last_used_at, "Never used")}</td>
  <td data-label="Expires">${when(token.expires_at, "Never")}</td>
  <td data-label="Source">${SOURCES[token.source]}</td>
  <td data-label=""><form method="post" action="/account/tokens/${token.id}/revoke">${csrfField(csrf)}<button type="submit" class="danger small" aria-label="Revoke token ${token.name}">Revoke</button></form></td>
</tr>`;
}

function createdNotice({ secret, token }: CreatedToken): SafeHtml {
  return html`<section class="notice ok" role="status" aria-labelledby="new-token-title">
  <h2 id="new-token-title">Your new token “${token.name}”</h2>
  <p><strong>Copy it now: it will not be shown again.</strong> Keep it out of URLs, logs and commits.</p>
  <code class="secret" id="new-token-secret">${secret}</code>
</section>`;
}

/** The signed-in person's page: their tokens, and a form to make one. */
export function accountPage({ session, tokens, created, notice, error, form }: AccountPageInput): SafeHtml {
  const lifetime = form?.lifetime ?? "30d";
  const atLimit = tokens.length >= MAX_WORKING_TOKENS;
  return layout({
    title: "Your account",
    session,
    body: html`<h1>Your account</h1>
<p>Signed in as <strong>${session.email}</strong>.</p>
${notice && html`<div class="notice ok" role="status"><p>${notice}</p></div>`}
${error && html`<div class="notice error" role="alert"><p>${error}</p></div>`}
${created && createdNotice(created)}
<p>Your private repositories: connect GitHub on the <a href="/account/code-host">Code host</a> page. Paying for apps and domains: the <a href="/account/billing">Billing</a> page.</p>
<h2>API tokens</h2>
<p>Tokens let scripts and AI agents act on your account. ${tokens.length} of ${MAX_WORKING_TOKENS} in use.</p>
${
  tokens.length === 0
    ? html`<p class="muted">You have no tokens yet.</p>`
    : html`<div class="table-wrap"><table class="cards">
<thead><tr><th scope="col">Name</th><th scope="col">Token</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Source</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${tokens.map((token) => tokenRow(token, session.csrf))}</tbody>
</table></div>`
}
<h2>Create a token</h2>
${atLimit && html`<p class="notice warn">You have ${MAX_WORKING_TOKENS} working tokens, the most an account may have. Revoke one to create another.</p>`}
<form class="stack" method="post" action="/account/tokens">
  ${csrfField(session.csrf)}
  <label for="token-name">Name <span class="muted">(what will use it)</span></label>
  <input id="token-name" name="name" type="text" required maxlength="100" autocomplete="off" value="${form?.name ?? ""}">
  <label for="token-lifetime">Expires after</label>
  <select id="token-lifetime" name="lifetime">
    ${LIFETIME_CHOICES.map((choice) => html`<option value="${choice.value}"${choice.value === lifetime && html` selected`}>${choice.label}</option>`)}
  </select>
  <button type="submit">Create token</button>
</form>`,
  });
}
