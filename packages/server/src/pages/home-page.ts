import { html, type SafeHtml } from "./html.js";
import { layout, type PageSession } from "./layout.js";

export interface HomePageInput {
  /** The public address of the API and these pages (REPOSITE_BASE_URL). */
  baseUrl: string;
  /** Where sites answer, `<slug>.<this>`. */
  sitesDomain: string;
  version: string;
  session?: PageSession | null;
}

/** The server's root address in a browser: what this service is, and where to go next. */
export function homePage({ baseUrl, sitesDomain, version, session }: HomePageInput): SafeHtml {
  const scheme = new URL(baseUrl).protocol;
  return layout({
    title: "Reposite",
    session: session ?? null,
    body: html`<h1>Reposite</h1>
<p>This server turns a code repository into a product website: give it a repository link, it writes the
site's pages (with an AI, or from the README) in one of 30 designs and publishes them at
<code>${scheme}//&lt;slug&gt;.${sitesDomain}</code>.</p>
<h2>People</h2>
<p><a href="/account">${session ? "Your account" : "Sign in or sign up"}</a>: an emailed link signs you in; there you make API
tokens for your scripts and agents and see the ones you have.</p>
<h2>Programs and AI agents</h2>
<ul>
<li>The HTTP API answers at <code>${baseUrl}</code> with a bearer token: <a href="/docs/api">the API reference</a>
(also as Markdown: <a href="/docs/api.md">/docs/api.md</a>).</li>
<li>TypeScript programs use the SDK, <code>@reposite/sdk</code>; an agent without a token starts with <code>POST /agent/login</code>
and a person confirms with a code.</li>
<li>Health: <a href="/healthz"><code>/healthz</code></a>.</li>
</ul>
<p class="muted">Reposite ${version}. Operators: <code>reposite --help</code> lists the commands; <a href="/admin">the operator dashboard</a> is for the accounts the operator names.</p>`,
  });
}
