/** The server's pages use core's escaping template, the one the site renderer uses. */
export { escapeHtml, html, SafeHtml, trustedHtml } from "@reposite/core";
