export { renderPage, renderNotFoundPage, type RenderPageOptions } from "./render-page.js";
export { escapeHtml, escapeAttribute, html, joinHtml, trustedHtml, SafeHtml, type HtmlValue } from "./escape.js";
export { resolveTheme, invertPalette, readableOn, requestedScheme, type Theme } from "./theme.js";
export { PAGE_PATHS, type SiteContext } from "./site-context.js";
