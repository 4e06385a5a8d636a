import { html, plainTextHtml, type ReplyView, type SafeHtml, type ThreadView } from "@reposite/core";

/**
 * Bodies of the site's dynamic pages. Each is the inside of the design's content area; the design's
 * header, menu and footer come from renderSitePage. Every value is escaped by `html`.
 */

export interface SignedIn {
  email: string;
  csrf: string;
}

export type AuthForm = "sign-in" | "sign-up";

function notice(message: string | undefined, kind: "error" | "ok" = "error"): SafeHtml {
  if (!message) return html``;
  return kind === "error"
    ? html`<div class="notice error" role="alert"><p>${message}</p></div>`
    : html`<div class="notice" role="status"><p>${message}</p></div>`;
}

const hidden = (name: string, value: string | null | undefined) => (value ? html`<input type="hidden" name="${name}" value="${value}">` : html``);

/** `2026-03-01 12:30:00` -> a `<time>` showing `2026-03-01 12:30 UTC`. */
function time(timestamp: string): SafeHtml {
  return html`<time datetime="${timestamp.replace(" ", "T")}Z">${timestamp.slice(0, 16)} UTC</time>`;
}

/** Who is signed in, and a way out. */
function signedInBar(who: SignedIn, next: string): SafeHtml {
  return html`<div class="who"><span>Signed in as <strong>${who.email}</strong></span><form method="post" action="/auth/sign-out">${hidden("csrf", who.csrf)}${hidden("next", next)}<button class="link-button" type="submit">Sign out</button></form></div>`;
}

function credentialsForm(form: AuthForm, options: { email?: string; next?: string | null; error?: string }): SafeHtml {
  const title = form === "sign-in" ? "Sign in" : "Create an account";
  const autocomplete = form === "sign-in" ? "current-password" : "new-password";
  return html`<form class="form" method="post" action="/auth/${form}" aria-labelledby="${form}-title">
<h2 id="${form}-title">${title}</h2>
${notice(options.error)}${hidden("next", options.next)}
<div class="field"><label for="${form}-email">Email</label><input id="${form}-email" name="email" type="email" autocomplete="email" value="${options.email ?? ""}" required></div>
<div class="field"><label for="${form}-password">Password</label><input id="${form}-password" name="password" type="password" autocomplete="${autocomplete}" minlength="8" maxlength="200" required>${
    form === "sign-up" ? html`<span class="hint">At least 8 characters.</span>` : ""
  }</div>
<button class="btn" type="submit">${title}</button>
</form>`;
}

/** The sign-in and sign-up forms, with what went wrong above the form that was sent. */
export function authBody(options: { failed?: AuthForm; error?: string; email?: string; next?: string | null; intro?: string }): SafeHtml {
  const forForm = (form: AuthForm) =>
    options.failed === form ? { email: options.email, next: options.next, error: options.error } : { next: options.next };
  return html`<h1>Sign in</h1>
<p class="lead">${options.intro ?? "Sign in with your email and password, or create an account."}</p>
<div class="forms">${credentialsForm("sign-in", forForm("sign-in"))}${credentialsForm("sign-up", forForm("sign-up"))}</div>`;
}

export function accountBody(options: { who: SignedIn; community: boolean; app: boolean }): SafeHtml {
  const links = [
    options.community ? html`<a class="btn" href="/community">Go to the community</a>` : "",
    options.app ? html`<a class="btn" href="/app/">Open the app</a>` : "",
    html`<a class="btn btn-alt" href="/">Home</a>`,
  ];
  return html`<h1>Your account</h1>
${signedInBar(options.who, "/")}
<div class="actions">${links}</div>`;
}

export interface Draft {
  title?: string;
  body?: string;
}

function threadForm(who: SignedIn, draft: Draft, error: string | undefined): SafeHtml {
  return html`<form class="form" method="post" action="/community/new" aria-labelledby="new-thread-title">
<h2 id="new-thread-title">Start a thread</h2>
${notice(error)}${hidden("csrf", who.csrf)}
<div class="field"><label for="thread-title">Title</label><input id="thread-title" name="title" type="text" maxlength="200" value="${draft.title ?? ""}" required></div>
<div class="field"><label for="thread-body">Message</label><textarea id="thread-body" name="body" maxlength="20000" required>${draft.body ?? ""}</textarea></div>
<button class="btn" type="submit">Post thread</button>
</form>`;
}

const signInLink = (next: string, what: string) =>
  html`<p class="notice"><a href="/auth?next=${encodeURIComponent(next)}">Sign in or create an account</a> ${what}</p>`;

export function forumBody(options: { siteName: string; threads: ThreadView[]; who: SignedIn | null; draft?: Draft; error?: string }): SafeHtml {
  const list = options.threads.length
    ? html`<ul class="threads">${options.threads.map(
        (thread) => html`<li><a href="/community/t/${thread.id}">${thread.title}</a><p class="meta">${thread.author_name} · ${thread.reply_count} ${
          thread.reply_count === 1 ? "reply" : "replies"
        } · last activity ${time(thread.last_activity_at)}</p></li>`,
      )}</ul>`
    : html`<p class="empty">No threads yet. ${options.who ? "Start the first one." : "Members can start the first one."}</p>`;
  return html`<h1>Community</h1>
<p class="lead">Questions, ideas and tips from the people who use ${options.siteName}.</p>
${options.who ? signedInBar(options.who, "/community") : ""}
<section aria-labelledby="threads-title"><h2 id="threads-title" class="sr-only">Threads</h2>${list}</section>
${options.who ? threadForm(options.who, options.draft ?? {}, options.error) : signInLink("/community", "to start a thread.")}`;
}

export function threadBody(options: { thread: ThreadView; replies: ReplyView[]; who: SignedIn | null; draft?: Draft; error?: string }): SafeHtml {
  const { thread } = options;
  const path = `/community/t/${thread.id}`;
  const replyForm = options.who
    ? html`<form class="form" method="post" action="${path}/reply" aria-labelledby="reply-title">
<h2 id="reply-title">Reply</h2>
${notice(options.error)}${hidden("csrf", options.who.csrf)}
<div class="field"><label for="reply-body">Your reply</label><textarea id="reply-body" name="body" maxlength="20000" required>${options.draft?.body ?? ""}</textarea></div>
<button class="btn" type="submit">Post reply</button>
</form>`
    : signInLink(path, "to reply.");
  return html`<p><a href="/community">← All threads</a></p>
<h1>${thread.title}</h1>
${options.who ? signedInBar(options.who, path) : ""}
<article class="post" id="post"><p class="meta">${thread.author_name} · ${time(thread.created_at)}</p><div class="post-body">${plainTextHtml(thread.body)}</div></article>
<section class="replies" aria-label="Replies">${options.replies.map(
    (reply) => html`<article class="post" id="${reply.id}"><p class="meta">${reply.author_name} · ${time(reply.created_at)}</p><div class="post-body">${plainTextHtml(reply.body)}</div></article>`,
  )}</section>
${replyForm}`;
}

/** A page with one message: an error, or the app that is not there yet. */
export function messageBody(title: string, message: string, action: { href: string; label: string } = { href: "/", label: "Back to the home page" }): SafeHtml {
  return html`<h1>${title}</h1><p class="lead">${message}</p><div class="actions"><a class="btn" href="${action.href}">${action.label}</a></div>`;
}

/** Headers of the site's own pages (sign-in, forum, the app's status pages). */
export const SITE_PAGE_HEADERS = {
  "content-type": "text/html;charset=UTF-8",
  // Pages show who is signed in: nobody may keep a copy.
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "SAMEORIGIN",
  "referrer-policy": "strict-origin-when-cross-origin",
  // Inline styles only, nothing runs. form-action is left out: a sign-in's redirect may leave the
  // site (`next=/community` goes on to Discourse through the service host).
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'self'; base-uri 'none'; object-src 'none'",
};
