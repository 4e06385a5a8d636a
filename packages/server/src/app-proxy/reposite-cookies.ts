/**
 * Whether a cookie name is Reposite's: `reposite_member` and `reposite_session`, their `__Host-`
 * forms, and anything else under `reposite_` or `__Host-reposite`/`__Secure-reposite`. The app
 * behind `/app/` never receives these and can never set them: a member's session must not leak
 * into the app's logs, and the app must not plant a session (or a `__Host-` cookie Reposite would
 * read) on the site's host. Prefixes are compared without case, as browsers do for `__Host-`.
 */
export function isRepositeCookie(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith("reposite_") || lower.startsWith("__host-reposite") || lower.startsWith("__secure-reposite");
}
