import { html, type SafeHtml } from "../escape.js";
import type { RenderContext } from "./layout.js";
import { brand, footer, nav, skipLink } from "./shared.js";

/** The frame around a page's content: what a layout puts in `<body>` besides its `<main>`. */

/**
 * The skip link, the header, `<main id="main">` and the footer, one per line. Every layout keeps this
 * `<main>`: the skip link points at it and `renderSitePage` swaps what is inside it.
 */
export function pageFrame(parts: { header: SafeHtml; main: SafeHtml; footer: SafeHtml; mainClass?: string }): SafeHtml {
  return html`${skipLink()}
${parts.header}
<main id="main"${parts.mainClass ? html` class="${parts.mainClass}"` : ""}>${parts.main}</main>
${parts.footer}`;
}

export interface HeaderRowOptions {
  headerClass?: string;
  rowClass?: string;
  /** The brand and the menu as the layout dresses them; the plain ones by default. */
  brand?: SafeHtml;
  menu?: SafeHtml;
}

/** A `<header>` with the brand and the menu in one row. */
export function headerRow(ctx: RenderContext, options: HeaderRowOptions = {}): SafeHtml {
  const { headerClass = "top", rowClass = "wrap top-row" } = options;
  return html`<header class="${headerClass}"><div class="${rowClass}">${options.brand ?? brand(ctx)}${options.menu ?? nav(ctx)}</div></header>`;
}

/** The plainest frame: brand and menu in a top bar, the standard footer. The layout's CSS sets them apart. */
export function topBarFrame(ctx: RenderContext, main: SafeHtml): SafeHtml {
  return pageFrame({ header: headerRow(ctx), main, footer: footer(ctx) });
}
