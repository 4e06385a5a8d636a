import { dashboardPaths } from "../dashboard/dashboard-paths.js";
import { formAction } from "../dashboard/dashboard-policy.js";
import { LAYOUT_STYLE_SOURCE } from "./layout.js";

/**
 * The App and Domain screens' Content-Security-Policy: the dashboard's, plus this server's
 * /account/assets (the screen's script and xterm.js). With a bare box's terminal also a
 * WebSocket back to this server, and inline styles: xterm.js writes its own `<style>` elements,
 * which CSP cannot allow by hash (and a hash in the list would switch 'unsafe-inline' off).
 * Scripts stay this server's two asset folders only. `formsLeave`: a Buy button, whose answer
 * is the payment provider's page.
 */
export function appScreenPolicy(baseUrl: string, options: { terminal?: boolean; formsLeave?: boolean } = {}): string {
  const base = new URL(baseUrl);
  const assets = `${base.origin}${dashboardPaths.assets}/ ${base.origin}/account/assets/`;
  const socket = `${base.protocol === "https:" ? "wss:" : "ws:"}//${base.host}`;
  return [
    "default-src 'none'",
    `script-src ${assets}`,
    options.terminal ? "style-src 'self' 'unsafe-inline'" : `style-src ${LAYOUT_STYLE_SOURCE} ${assets}`,
    "img-src 'self'",
    options.terminal ? `connect-src 'self' ${socket}` : "connect-src 'self'",
    formAction(baseUrl, options.formsLeave),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}
