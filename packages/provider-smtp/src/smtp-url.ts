import { RepositeError } from "@reposite/core";
import type SMTPPool from "nodemailer/lib/smtp-pool/index.js";

/**
 * Reads an `SMTP_URL` the way nodemailer's own `createTransport(url)` does (host, port, `smtps:` for
 * implicit TLS, `user:pass@`, query flags such as `?pool=false&tls.rejectUnauthorized=false`), so
 * operators can copy a URL from nodemailer docs or their mail provider. We parse it ourselves because
 * nodemailer ignores every other option once it is given a URL.
 */
export function parseSmtpUrl(url: string): Partial<SMTPPool.Options> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Node's URL error carries the input, password included; say what is wrong without it.
    throw invalid("it is not a URL");
  }
  if (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") throw invalid(`the scheme is ${parsed.protocol} instead of smtp: or smtps:`);
  if (!parsed.hostname) throw invalid("it has no host");

  const options: Partial<SMTPPool.Options> = {
    host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
    secure: parsed.protocol === "smtps:",
  };
  if (parsed.port) options.port = Number(parsed.port);
  if (parsed.username || parsed.password) {
    options.auth = { user: decode(parsed.username), pass: decode(parsed.password) };
  }

  const flags = options as Record<string, unknown>;
  for (const [key, raw] of parsed.searchParams) {
    const value = raw === "true" ? true : raw === "false" ? false : raw !== "" && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
    if (key.startsWith("tls.")) {
      options.tls = { ...options.tls, [key.slice(4)]: value };
    } else {
      flags[key] = value;
    }
  }
  return options;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw invalid("its user or password has a broken %-escape");
  }
}

function invalid(reason: string): RepositeError {
  return new RepositeError(
    500,
    `[smtp] url is not usable: ${reason}; expected smtp://user:pass@host:587 or smtps://user:pass@host:465`,
    "smtp_url_invalid",
  );
}
