import type { Design } from "../designs/design.js";
import { html, trustedHtml, type SafeHtml } from "./escape.js";
import { FAVICON_LINK } from "./favicon-link.js";
import { renderNotFoundPage } from "./render-page.js";
import type { SiteContext } from "./site-context.js";

/**
 * Styles of the site's own dynamic pages (sign-in results, forum, account). They read only the
 * design's custom properties, so they take every design's colours, type and corners.
 */
export const SITE_PAGE_CSS = `
.site-page{padding-block:calc(var(--space)*3) calc(var(--space)*4);max-width:54rem}
.site-page>h1{margin-bottom:.35em}
.site-page .notice{padding:.85rem 1.1rem;margin:0 0 1.5rem;background:var(--surface);border:1px solid var(--border);border-left:5px solid var(--accent);border-radius:var(--radius-box)}
.site-page .notice.error{border-left-color:var(--text)}
.site-page .notice>:last-child{margin-bottom:0}
.site-page .field textarea{width:100%;min-height:9rem;padding:.6rem .8rem;font:inherit;color:var(--text);background:var(--bg);border:1px solid var(--muted);border-radius:min(var(--radius),12px);resize:vertical}
.site-page .field .hint{color:var(--muted);font-size:.9rem}
.site-page .threads{list-style:none;margin:0 0 2.5rem;padding:0;border-top:1px solid var(--border)}
.site-page .threads li{padding:1rem 0;border-bottom:1px solid var(--border)}
.site-page .threads a{font-family:var(--font-head);font-weight:var(--head-weight);font-size:1.15rem}
.site-page .meta{color:var(--muted);font-size:.9rem;margin:.25rem 0 0}
.site-page .post{margin:0 0 1rem;padding:1.1rem 1.25rem;background:var(--surface);border:1px solid var(--border);border-radius:var(--radius-box)}
.site-page .post .meta{margin:0 0 .6rem}
.site-page .post-body>:last-child{margin-bottom:0}
.site-page .replies{margin:2rem 0}
.site-page .who{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;margin:0 0 1.75rem;color:var(--muted)}
.site-page .who form{display:inline}
.site-page .link-button{padding:0;background:none;border:0;font:inherit;color:var(--link);text-decoration:underline;text-underline-offset:.18em;cursor:pointer}
.site-page .form{max-width:40rem}
.site-page .forms .form{max-width:none}
.site-page .empty{color:var(--muted);margin:1rem 0 2rem}
`;

export interface SitePageOptions {
  /** The page's own title; the site's name is added. */
  title: string;
  /** The inside of the page's content area, built with `html`. */
  bodyHtml: SafeHtml;
  /** Keep the page out of search engines (sign-in results, account pages). */
  noindex?: boolean;
}

/**
 * A page of the site's own (forum, sign-in results, account) in the site's design: the design's
 * header, menu and footer around `bodyHtml`. Layouts own their frame and expose it only through
 * their pages, so this takes the design's 404 page and replaces its message: every layout keeps
 * its content in `<main id="main">`.
 */
export function renderSitePage(design: Design, site: SiteContext, options: SitePageOptions): string {
  const head = `${FAVICON_LINK}\n${options.noindex ? '<meta name="robots" content="noindex">\n' : ""}<style>${SITE_PAGE_CSS}</style>`;
  const page = renderNotFoundPage(design, site, { head });
  const open = page.indexOf("<main");
  const contentStart = page.indexOf(">", open) + 1;
  const contentEnd = page.lastIndexOf("</main>");
  if (open < 0 || contentStart <= 0 || contentEnd < contentStart) {
    throw new Error(`[reposite] [rendering] the ${design.look.layout} layout has no <main> to put a site page in`);
  }
  const title = `${options.title} · ${site.name}`;
  const content = html`<div class="wrap site-page">${options.bodyHtml}</div>`.toString();
  // Only the part before the content changes: the title, the body class, the sidebar's breadcrumb.
  const before = page
    .slice(0, contentStart)
    .replace(html`<title>${`Page not found · ${site.name}`}</title>`.toString(), () => html`<title>${title}</title>`.toString())
    .replace('<body class="page-not-found ', () => '<body class="page-site ')
    .replace(html`<span>404</span>`.toString(), () => html`<span>${options.title}</span>`.toString());
  return before + content + page.slice(contentEnd);
}

/** Markup from plain text a person wrote: paragraphs at blank lines, line breaks kept, everything escaped. */
export function plainTextHtml(text: string): SafeHtml {
  const paragraphs = text
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter(Boolean);
  return html`${paragraphs.map((paragraph) => html`<p>${paragraph.split("\n").map((line, i) => html`${i > 0 ? trustedHtml("<br>") : ""}${line}`)}</p>`)}`;
}
