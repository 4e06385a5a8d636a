import { createHash } from "node:crypto";
import { html, SafeHtml } from "./html.js";

/** The signed-in person, as the page header shows them. */
export interface PageSession {
  email: string;
  /** The session's CSRF token, for the header's sign-out form. */
  csrf: string;
  /** Operators see a link to the dashboard. */
  isOperator?: boolean;
}

export interface LayoutOptions {
  /** The page's own title; " · Reposite" is added. */
  title: string;
  body: SafeHtml;
  /** Shows who is signed in and a sign-out button; absent when signed out. */
  session?: PageSession | null;
  /** A section's own navigation (a site's screens), shown above the body. */
  subnav?: SafeHtml | null;
  /** Links to this server's own stylesheets and scripts (pages with a script send a CSP that allows them). */
  head?: SafeHtml | null;
}

/**
 * One small stylesheet, inline: pages load nothing from anywhere else. Colours keep at least
 * 4.5:1 contrast; focus is always visible; the layout is one column that fits a phone.
 */
const STYLESHEET = `
:root{color-scheme:light;--fg:#16191d;--muted:#4a5361;--bg:#fff;--panel:#f3f5f8;--line:#c7ced8;--accent:#1d4ed8;--danger:#a31d1d;--focus:#b45309}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
header{background:var(--panel);border-bottom:1px solid var(--line)}
.bar{max-width:50rem;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem}
.brand{font-weight:700;font-size:1.1rem;color:var(--fg);text-decoration:none;margin-right:auto}
nav{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem}
main{max-width:50rem;margin:0 auto;padding:1.5rem 1rem 3rem}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 1rem}
h2{font-size:1.2rem;line-height:1.3;margin:2.25rem 0 .75rem}
p{margin:.75rem 0}
a{color:var(--accent);text-underline-offset:2px}
label{display:block;font-weight:600;margin:1rem 0 .3rem}
input[type=email],input[type=text],select{display:block;width:100%;max-width:28rem;font:inherit;color:var(--fg);background:#fff;padding:.55rem .65rem;border:1px solid #69707d;border-radius:6px}
button{font:inherit;font-weight:600;line-height:1.25;min-height:44px;padding:.6rem 1.1rem;border:2px solid var(--accent);border-radius:6px;background:var(--accent);color:#fff;cursor:pointer}
button:hover{filter:brightness(.92)}
button.secondary{background:#fff;color:var(--accent)}
button.danger{background:#fff;color:var(--danger);border-color:var(--danger)}
button.small{min-height:36px;padding:.3rem .8rem;font-size:.95rem}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
form{margin:0}
form.stack>button{margin-top:1rem}
.muted{color:var(--muted)}
.notice{padding:.75rem 1rem;margin:1rem 0;border:1px solid;border-left-width:6px;border-radius:6px}
.notice.ok{background:#edf7f0;border-color:#2b7a4b;color:#123d25}
.notice.error{background:#fdf0f0;border-color:#b42323;color:#6b1010}
.notice.warn{background:#fff7e0;border-color:#a86b00;color:#4a3000}
.notice>:first-child{margin-top:0}.notice>:last-child{margin-bottom:0}
code,.secret,.code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
.secret{display:block;margin:.5rem 0;padding:.75rem;background:#fff;border:1px dashed #69707d;border-radius:6px;word-break:break-all;user-select:all}
.code{font-size:clamp(2.2rem,11vw,3.5rem);font-weight:700;line-height:1.1;letter-spacing:.12em;text-indent:.12em;text-align:center;margin:1.25rem 0;padding:1rem .5rem;background:var(--panel);border:2px solid var(--fg);border-radius:10px}
.choices{display:grid;grid-template-columns:1fr 1fr;gap:1rem;margin:1.5rem 0}
.choices form{display:flex}
.choices button{flex:1;min-height:3.5rem;font-size:1.05rem}
.table-wrap{overflow-x:auto;margin:.5rem 0}
pre{overflow-x:auto;max-width:100%;margin:.75rem 0;padding:.75rem;background:var(--panel);border:1px solid var(--line);border-radius:6px;font-size:.9rem;line-height:1.45}
p code,li code{overflow-wrap:anywhere}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;vertical-align:middle;padding:.5rem .6rem;border-bottom:1px solid var(--line)}
th{font-size:.9rem;color:var(--muted)}
@media (max-width:40rem){
.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
.cards tr{display:block;padding:.6rem 0;border-bottom:1px solid var(--line)}
.cards td{display:grid;grid-template-columns:7.5rem 1fr;gap:.75rem;align-items:center;padding:.2rem 0;border:0}
.cards td::before{content:attr(data-label);font-weight:600;color:var(--muted)}
}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0}
`.trim();

const STYLE_HASH = createHash("sha256").update(STYLESHEET).digest("base64");

/** The CSP source that allows the layout's inline stylesheet, for pages that send their own policy. */
export const LAYOUT_STYLE_SOURCE = `'sha256-${STYLE_HASH}'`;

/**
 * Nothing but this page's own stylesheet may load or run; forms post only here; no one may frame
 * the page (clickjacking a "Continue" button is the attack to stop).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  // Pages hold CSRF tokens, codes and once a token's secret: never keep them in a cache.
  "cache-control": "no-store",
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  // Not `no-referrer`: browsers then send `Origin: null` on form posts, which the same-origin check refuses.
  "referrer-policy": "same-origin",
};

/** A page as a response with the security headers every page carries. */
export function pageResponse(document: SafeHtml, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(document.value, { status, headers: { ...PAGE_HEADERS, ...headers } });
}

/** The hidden field that carries the session's CSRF token in a signed-in form. */
export const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;

/** A sign-out button; `next` is where to land afterwards (a path on this server). */
export function signOutForm(csrf: string, options: { next?: string; label?: string; className?: string } = {}): SafeHtml {
  return html`<form method="post" action="/account/sign-out">${csrfField(csrf)}${
    options.next && html`<input type="hidden" name="next" value="${options.next}">`
  }<button type="submit" class="${options.className ?? "secondary small"}">${options.label ?? "Sign out"}</button></form>`;
}

/** The one page frame: header with who is signed in, then the page's own content. */
export function layout({ title, body, session, subnav, head }: LayoutOptions): SafeHtml {
  const nav = session
    ? html`<nav aria-label="Account">
        <a href="/account/sites">Sites</a>
        <a href="/account">Account</a>
        <a href="/account/apps">Apps</a>
        <a href="/account/billing">Billing</a>
        <a href="/account/code-host">Code host</a>
        ${session.isOperator && html`<a href="/admin">Operator dashboard</a>`}
        <span class="muted">${session.email}</span>
        ${signOutForm(session.csrf)}
      </nav>`
    : null;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · Reposite</title>
<style>${new SafeHtml(STYLESHEET)}</style>
${head}
</head>
<body>
<header><div class="bar"><a class="brand" href="/account">Reposite</a>${nav}</div></header>
<main id="main">
${subnav}
${body}
</main>
</body>
</html>
`;
}
