import { html, type SafeHtml } from "./html.js";
import { layout } from "./layout.js";

const TITLES: Record<number, string> = {
  400: "Something in the form is not right",
  403: "Not allowed",
  404: "Not found",
  409: "That cannot be done now",
  410: "This link no longer works",
  413: "Too much was sent",
  415: "This form cannot be read",
  429: "Too many tries",
};

export interface ErrorPageInput {
  status: number;
  /** Written for the person reading it; never internals. */
  message: string;
  code?: string | undefined;
}

/** What a page route answers when it fails: the same words the API would send, as a page. */
export function errorPage({ status, message, code }: ErrorPageInput): SafeHtml {
  const title = TITLES[status] ?? (status >= 500 ? "Something went wrong" : "This did not work");
  return layout({
    title,
    body: html`<h1>${title}</h1>
<p>${message}</p>
${code && html`<p class="muted">Error code: <code>${code}</code> (HTTP ${status})</p>`}
<p><a href="/account">Go to your account page</a></p>`,
  });
}
