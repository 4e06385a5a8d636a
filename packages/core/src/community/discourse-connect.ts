import { createHmac, timingSafeEqual } from "node:crypto";
import { RepositeError } from "../errors.js";

/**
 * DiscourseConnect (Discourse's single sign-on) with the published site as the identity provider.
 * Discourse sends the browser to `/community/sso?sso=<base64 payload>&sig=<hex HMAC-SHA256 of the
 * payload>`; the payload is a query string with `nonce` and `return_sso_url`. We answer by sending
 * the browser to `return_sso_url` with our own signed payload: `nonce`, `email`, `external_id`,
 * `username`, `name`. See https://meta.discourse.org/t/13045.
 */

/** The operator's Discourse instance (REPOSITE_DISCOURSE_URL, REPOSITE_DISCOURSE_SECRET). */
export interface DiscourseOptions {
  /** The instance's address, for example `https://forum.example.com`. */
  url: string;
  /** Discourse's `discourse_connect_secret` setting. */
  secret: string;
}

/** A verified request from Discourse. */
export interface DiscourseConnectRequest {
  nonce: string;
  /** Where the answer goes; always on the configured Discourse instance. */
  returnSsoUrl: string;
}

/** Who signs in to Discourse. */
export interface DiscourseUser {
  /** The member id: Discourse links its account to this, not to the email. */
  external_id: string;
  email: string;
  username: string;
  name: string;
}

/** Payloads Discourse sends are a few hundred bytes; refuse anything far larger unread. */
const MAX_PAYLOAD_CHARS = 4096;

/** Hex HMAC-SHA256 of the base64 payload, keyed with the shared secret: DiscourseConnect's `sig`. */
export function signDiscoursePayload(payload: string, secret: string): string {
  return createHmac("sha256", secret).update(payload).digest("hex");
}

const invalid = (message: string) => new RepositeError(400, message, "invalid_sso_request");

/**
 * Checks `sig` against the payload in constant time, then reads `nonce` and `return_sso_url`.
 * `return_sso_url` must be on the configured Discourse instance, so a signed answer never goes
 * anywhere else.
 */
export function verifyDiscourseRequest(sso: unknown, sig: unknown, options: DiscourseOptions): DiscourseConnectRequest {
  if (typeof sso !== "string" || typeof sig !== "string" || !sso || sso.length > MAX_PAYLOAD_CHARS) {
    throw invalid("This single sign-on request is incomplete. Start again from the forum.");
  }
  if (!/^[0-9a-f]{64}$/i.test(sig)) throw invalid("This single sign-on request has a malformed signature.");
  const expected = Buffer.from(signDiscoursePayload(sso, options.secret), "hex");
  if (!timingSafeEqual(expected, Buffer.from(sig, "hex"))) {
    throw new RepositeError(403, "This single sign-on request is not signed by the forum.", "invalid_sso_signature");
  }
  const fields = new URLSearchParams(Buffer.from(sso, "base64").toString("utf8"));
  const nonce = fields.get("nonce");
  const returnSsoUrl = fields.get("return_sso_url");
  if (!nonce || !returnSsoUrl) throw invalid("This single sign-on request has no nonce or return address.");
  let target: URL;
  try {
    target = new URL(returnSsoUrl);
  } catch {
    throw invalid("This single sign-on request has a malformed return address.");
  }
  if (target.origin !== new URL(options.url).origin) {
    throw invalid("This single sign-on request returns to another site than the configured forum.");
  }
  return { nonce, returnSsoUrl: target.href };
}

/**
 * The signed answer: `return_sso_url?sso=<base64 payload>&sig=<hex HMAC>`. The payload also asks
 * Discourse to confirm the email itself (`require_activation`), because sites take sign-ups with
 * a password and do not prove that the address belongs to the person.
 */
export function buildDiscourseResponse(
  request: DiscourseConnectRequest,
  user: DiscourseUser,
  secret: string,
): { sso: string; sig: string; url: string } {
  const payload = new URLSearchParams({
    nonce: request.nonce,
    email: user.email,
    external_id: user.external_id,
    username: user.username,
    name: user.name,
    require_activation: "true",
  });
  const sso = Buffer.from(payload.toString(), "utf8").toString("base64");
  const sig = signDiscoursePayload(sso, secret);
  const url = new URL(request.returnSsoUrl);
  url.searchParams.set("sso", sso);
  url.searchParams.set("sig", sig);
  return { sso, sig, url: url.href };
}

/**
 * A Discourse username from an email's local part: letters, digits, `_`, `.` and `-`, 3 to 20
 * characters, starting and ending with a letter or digit. Discourse adds a number when it is taken.
 */
export function discourseUsername(email: string): string {
  const local = (email.split("@")[0] ?? "")
    .normalize("NFKD")
    .replace(/[^\w.-]/g, "_")
    // Discourse takes no two special characters in a row, and no special character at either end.
    .replace(/[._-]{2,}/g, "_");
  const trimmed = local.slice(0, 20).replace(/^[^a-z0-9]+/i, "").replace(/[^a-z0-9]+$/i, "");
  if (trimmed.length >= 3) return trimmed;
  return trimmed ? `${trimmed}_member` : "member";
}

/** Where `/community` sends people: Discourse's own start of a DiscourseConnect sign-in. */
export function discourseLoginUrl(options: Pick<DiscourseOptions, "url">, returnPath = "/"): string {
  const base = new URL(options.url);
  const url = new URL(`${base.pathname.replace(/\/+$/, "")}/session/sso`, base);
  url.searchParams.set("return_path", returnPath);
  return url.href;
}
