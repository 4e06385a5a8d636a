/**
 * The app screen's Content-Security-Policy: the account pages' rules plus this server's own
 * scripts and a WebSocket back to it. Styles may be inline here: xterm.js writes its own
 * `<style>` elements, and CSP cannot allow those by hash. Scripts stay this server's files only.
 */
export function appScreenPolicy(baseUrl: string): string {
  const base = new URL(baseUrl);
  const socket = `${base.protocol === "https:" ? "wss:" : "ws:"}//${base.host}`;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `connect-src 'self' ${socket}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}
