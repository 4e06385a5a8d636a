import { randomString } from "../util/secrets.js";

export const SLUG_MIN_LENGTH = 3;
export const SLUG_MAX_LENGTH = 60;

/**
 * Addresses no project may have, because the service, mail or common conventions use them under
 * `{sites_domain}` (or a person would take them for the service's own). The list is part of the
 * API's behaviour: `GET /app/subdomain-check` answers `reserved` for each, and the docs list them.
 * Add names only before they are taken; removing one frees it.
 */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  // The service itself
  "www", "api", "app", "apps", "admin", "administrator", "auth", "login", "logout", "signin", "signup",
  "register", "account", "accounts", "billing", "checkout", "payment", "payments", "pay", "dashboard",
  "console", "panel", "settings", "operator", "reposite", "sites", "oauth", "sso", "token", "tokens",
  "agent", "webhook", "webhooks", "callback",
  // Mail, DNS and other protocols
  "mail", "email", "webmail", "smtp", "imap", "pop", "pop3", "ftp", "sftp", "ssh", "dns", "ns1", "ns2",
  "ns3", "ns4", "autoconfig", "autodiscover", "postmaster", "hostmaster", "webmaster", "abuse", "noc",
  "security", "vpn", "proxy", "gateway", "ldap", "git", "svn", "wss",
  // Content the operator may serve
  "blog", "docs", "doc", "help", "support", "status", "static", "assets", "cdn", "media", "img", "images",
  "files", "download", "downloads", "uploads", "news", "community", "forum", "about", "legal", "privacy",
  "terms", "careers", "jobs", "shop", "store", "portal", "home", "web", "mobile",
  // Environments and machines
  "root", "test", "testing", "staging", "stage", "dev", "development", "prod", "production", "demo",
  "beta", "alpha", "preview", "sandbox", "internal", "intranet", "local", "localhost", "server", "host",
  "health", "metrics", "monitor", "monitoring", "grafana", "prometheus", "kibana",
]);

export type SlugProblem = "invalid" | "reserved";

/**
 * Why a slug cannot be an address, or null when it can (it may still be taken).
 * `invalid`: not 3 to 60 characters of `a-z`, `0-9`, `-`; or, stricter than those characters alone,
 * a hyphen first or last (a DNS label may not have one there) or `--` in third and fourth place
 * (reserved for internationalized names, `xn--`), since such a host could get no certificate.
 */
export function slugProblem(slug: string): SlugProblem | null {
  if (!isValidSlug(slug)) return "invalid";
  if (RESERVED_SLUGS.has(slug)) return "reserved";
  return null;
}

export function isValidSlug(slug: unknown): slug is string {
  return (
    typeof slug === "string" &&
    slug.length >= SLUG_MIN_LENGTH &&
    slug.length <= SLUG_MAX_LENGTH &&
    /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(slug) &&
    slug.slice(2, 4) !== "--"
  );
}

/**
 * A valid slug made from a project name: lower case, accents dropped, anything else a hyphen,
 * cut to fit. Names with nothing usable give `site`; short ones get `-site` appended. The result
 * may be reserved: callers try `slugCandidates` next.
 */
export function slugFromName(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  // Runs of other characters became one hyphen, so `--` (reserved in third and fourth place) never appears.
  const slug = fit(base || "site", SLUG_MAX_LENGTH);
  return slug.length < SLUG_MIN_LENGTH ? `${slug}-site` : slug;
}

/**
 * Addresses to try, in order, for a project whose derived slug is `base`: `base`, `base-2` …
 * `base-9`, then `base-` and six random characters a few times. Each fits 60 characters and is
 * valid; reserved ones are left out.
 */
export function* slugCandidates(base: string, randomTries = 5): Generator<string> {
  const candidates = function* () {
    yield base;
    for (let n = 2; n <= 9; n++) yield withSuffix(base, `-${n}`);
    for (let i = 0; i < randomTries; i++) yield withSuffix(base, `-${randomString("abcdefghijkmnpqrstuvwxyz23456789", 6)}`);
  };
  for (const candidate of candidates()) {
    if (slugProblem(candidate) === null) yield candidate;
  }
}

function withSuffix(base: string, suffix: string): string {
  return `${fit(base, SLUG_MAX_LENGTH - suffix.length)}${suffix}`;
}

/** Cuts to `max` characters without leaving a hyphen at the end. */
function fit(slug: string, max: number): string {
  return slug.slice(0, max).replace(/-+$/, "");
}
