import { LAYOUT_STYLE_SOURCE } from "../pages/layout.js";
import { dashboardPaths } from "./dashboard-paths.js";

/**
 * The dashboard's Content-Security-Policy: scripts only from this server's /dashboard/assets
 * folder (a path-limited source, so no other file of this origin runs either), styles from the
 * layout's own inline sheet and that folder, pictures and frames (design and page previews) and
 * fetches only from this server. Nothing from a third-party origin; no inline script.
 * `formsLeave`: a screen with a form that sends the person to another site (the code host's
 * authorization page, the payment provider's page).
 */
export function dashboardPolicy(baseUrl: string, options: { formsLeave?: boolean } = {}): string {
  const assets = `${new URL(baseUrl).origin}${dashboardPaths.assets}/`;
  return [
    "default-src 'none'",
    `script-src ${assets}`,
    `style-src ${LAYOUT_STYLE_SOURCE} ${assets}`,
    "img-src 'self'",
    "frame-src 'self'",
    "connect-src 'self'",
    formAction(baseUrl, options.formsLeave),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/**
 * `form-action`: this server, and with `formsLeave` other sites too. A form whose answer
 * redirects to another site (the code host's authorization page, the payment provider's page)
 * needs its scheme here: Chromium checks the redirect too (http as well when this server runs on it).
 */
export function formAction(baseUrl: string, formsLeave = false): string {
  if (!formsLeave) return "form-action 'self'";
  return new URL(baseUrl).protocol === "http:" ? "form-action 'self' https: http:" : "form-action 'self' https:";
}
