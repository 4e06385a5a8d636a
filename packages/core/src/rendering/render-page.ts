import { DESIGNS } from "../designs/catalogue.js";
import type { Design, DesignLayout } from "../designs/design.js";
import type { PageContent } from "../generation/page-content.js";
import { BASE_CSS } from "./base-style.js";
import { html, trustedHtml, type SafeHtml } from "./escape.js";
import { plainText } from "./inline-text.js";
import { fitLongWords, longWordCss } from "./long-words.js";
import { bento } from "./layouts/bento.js";
import { cards } from "./layouts/cards.js";
import { centered } from "./layouts/centered.js";
import { editorial } from "./layouts/editorial.js";
import type { Layout, RenderContext } from "./layouts/layout.js";
import { magazine } from "./layouts/magazine.js";
import { minimal } from "./layouts/minimal.js";
import { poster } from "./layouts/poster.js";
import { hashString, TITLE_FIT_CSS } from "./layouts/shared.js";
import { sidebar } from "./layouts/sidebar.js";
import { split } from "./layouts/split.js";
import { terminal } from "./layouts/terminal.js";
import type { SiteContext } from "./site-context.js";
import { resolveTheme, themeCss } from "./theme.js";

const LAYOUTS: Record<DesignLayout, Layout> = { centered, split, editorial, bento, terminal, magazine, poster, sidebar, cards, minimal };

export interface RenderPageOptions {
  /** Trusted markup for `<head>` added by publishing (link previews, analytics); inserted as is. */
  head?: string;
}

/** Only a path on the site itself may be the app's address. */
function safeAppPath(path: string): string {
  return /^\/(?![/\\])[^\s"'<>]*$/.test(path) ? path : "/app/";
}

/** Only a web address may be the repository link. */
function safeRepositoryUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/**
 * Which variation of its layout a design gets: its position among the catalogue's designs with the
 * same layout (so siblings always differ), or a hash of the id for designs outside the catalogue.
 */
function layoutVariant(design: Design): number {
  const siblings = DESIGNS.filter((d) => d.look.layout === design.look.layout);
  const index = siblings.findIndex((d) => d.id === design.id);
  return index >= 0 ? index : hashString(design.id) % 4;
}

function createContext(design: Design, site: SiteContext, page: RenderContext["page"]): RenderContext {
  const repository = site.type === "saas" ? null : safeRepositoryUrl(site.repositoryUrl);
  const primary = repository
    ? { href: repository, external: true }
    : { href: site.type === "saas" ? safeAppPath(site.appPath) : "/", external: false };
  return {
    design,
    site,
    theme: resolveTheme(design, site.colorMode),
    page,
    variant: layoutVariant(design),
    seed: hashString(design.id),
    primary,
  };
}

function layoutOf(design: Design): Layout {
  const layout = LAYOUTS[design.look.layout];
  if (!layout) throw new Error(`[reposite] [rendering] unknown layout ${JSON.stringify(design.look.layout)} in design ${design.id}`);
  return layout;
}

function document(ctx: RenderContext, layout: Layout, meta: { title: string; description?: string }, body: SafeHtml, head?: string): string {
  const fitted = fitLongWords(body.toString());
  const css = themeCss(ctx.design, ctx.theme) + BASE_CSS + layout.css(ctx) + TITLE_FIT_CSS + longWordCss(fitted.lengths);
  const bodyClass = `page-${ctx.page} design-${ctx.design.id} variant-${ctx.variant}`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${plainText(meta.title)}</title>
${meta.description ? html`<meta name="description" content="${plainText(meta.description)}">\n` : ""}<meta name="color-scheme" content="${ctx.theme.scheme}">
<meta name="theme-color" content="${ctx.theme.palette.background}">
${head ? html`${trustedHtml(head)}\n` : ""}<style>${trustedHtml(css.replace(/<\/style/gi, "<\\/style"))}</style>
</head>
<body class="${bodyClass}">
${trustedHtml(fitted.markup)}
</body>
</html>
`.toString();
}

/**
 * A full HTML document for one page in one design: one inline stylesheet, no scripts, no external
 * fonts or images, nothing fetched from another origin. Same input, same bytes.
 */
export function renderPage(design: Design, content: PageContent, site: SiteContext, options: RenderPageOptions = {}): string {
  const layout = layoutOf(design);
  const ctx = createContext(design, site, content.kind);
  let body: SafeHtml;
  switch (content.kind) {
    case "template":
      body = layout.landing(content, ctx);
      break;
    case "about":
      body = layout.about(content, ctx);
      break;
    case "faq":
      body = layout.faq(content, ctx);
      break;
    case "auth":
      body = layout.auth(content, ctx);
      break;
  }
  return document(ctx, layout, content.meta, body, options.head);
}

/** The site's 404 page in the design. */
export function renderNotFoundPage(design: Design, site: SiteContext, options: RenderPageOptions = {}): string {
  const layout = layoutOf(design);
  const ctx = createContext(design, site, "not-found");
  return document(ctx, layout, { title: `Page not found · ${site.name}` }, layout.notFound(ctx), options.head);
}
