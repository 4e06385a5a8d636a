import type { Account } from "@reposite/core";
import { html, type SafeHtml } from "./html.js";
import { layout, type PageSession } from "./layout.js";

export interface AdminAccountRow {
  account: Account;
  /** Working (not revoked, not expired) tokens. */
  tokens: number;
  projects: number;
}

/** The operator dashboard: every account with what it holds. */
export function adminPage({ session, rows }: { session: PageSession; rows: AdminAccountRow[] }): SafeHtml {
  const totalProjects = rows.reduce((sum, row) => sum + row.projects, 0);
  const totalTokens = rows.reduce((sum, row) => sum + row.tokens, 0);
  return layout({
    title: "Operator dashboard",
    session,
    body: html`<h1>Operator dashboard</h1>
<dl>
  <dt>Accounts</dt><dd id="count-accounts">${rows.length}</dd>
  <dt>Projects</dt><dd id="count-projects">${totalProjects}</dd>
  <dt>Working tokens</dt><dd id="count-tokens">${totalTokens}</dd>
</dl>
<h2>Accounts</h2>
${
  rows.length === 0
    ? html`<p class="muted">No accounts yet.</p>`
    : html`<div class="table-wrap"><table class="cards">
<thead><tr><th scope="col">Email</th><th scope="col">Since</th><th scope="col">Projects</th><th scope="col">Working tokens</th></tr></thead>
<tbody>${rows.map(
        ({ account, tokens, projects }) =>
          html`<tr><td data-label="Email">${account.email}</td><td data-label="Since">${account.created_at.slice(0, 10)}</td><td data-label="Projects">${projects}</td><td data-label="Tokens">${tokens}</td></tr>`,
      )}</tbody>
</table></div>`
}`,
  });
}
