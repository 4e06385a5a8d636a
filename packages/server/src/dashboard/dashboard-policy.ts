import { LAYOUT_STYLE_SOURCE } from "../pages/layout.js";
import { dashboardPaths } from "./dashboard-paths.js";

/**
 * The dashboard's Content-Security-Policy: scripts only from this server's /dashboard/assets
 * folder (a path-limited source, so no other file of this origin runs either), styles from the
 * layout's own inline sheet and that folder, pictures and frames (design and page previews) and
 * fetches only from this server. Nothing from a third-party origin; no inline script.
 */
export function dashboardPolicy(baseUrl: string): string {
  const assets = `${new URL(baseUrl).origin}${dashboardPaths.assets}/`;
  return [
    "default-src 'none'",
    `script-src ${assets}`,
    `style-src ${LAYOUT_STYLE_SOURCE} ${assets}`,
    "img-src 'self'",
    "frame-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}
