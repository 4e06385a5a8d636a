import { RepositeError, type Mailer } from "@reposite/core";
import nodemailer from "nodemailer";
import type SMTPPool from "nodemailer/lib/smtp-pool/index.js";
import { parseSmtpUrl } from "./smtp-url.js";

export interface SmtpMailerOptions {
  /**
   * Where to deliver, as the operator's `SMTP_URL` gives it: `smtp://user:pass@host:587` (STARTTLS
   * when the server offers it) or `smtps://user:pass@host:465` (TLS from the first byte). Escape
   * special characters in the user and password with `%XX`. Never logged, never put in an error.
   */
  url: string;
  /** Sender of every message, as a bare address or `Name <address>`; usually `config.mailFrom`. */
  from: string;
  /**
   * Extra nodemailer SMTP options, applied over what the URL gives; mostly TLS settings such as
   * `{ tls: { ca } }`, `{ requireTLS: true }`, or `{ ignoreTLS: true }` for a loopback test server.
   * `tls` is merged with the URL's `tls.*` flags rather than replacing them.
   */
  transportOptions?: Partial<SMTPPool.Options>;
}

/** A Mailer that keeps a small pool of SMTP connections; `close()` ends them on shutdown. */
export type SmtpMailer = Mailer & { close(): void };

/**
 * Delivers mail through an SMTP server with nodemailer. Connections are pooled, so a burst of
 * sign-in links does not pay for a TLS handshake each; call `close()` when the server stops.
 */
export function createSmtpMailer(options: SmtpMailerOptions): SmtpMailer {
  const fromUrl = parseSmtpUrl(options.url);
  const extra = options.transportOptions ?? {};
  const transportOptions: SMTPPool.Options = {
    pool: true,
    // Our messages never reference files or URLs to inline, so refuse them outright.
    disableFileAccess: true,
    disableUrlAccess: true,
    ...fromUrl,
    ...extra,
    ...(fromUrl.tls || extra.tls ? { tls: { ...fromUrl.tls, ...extra.tls } } : {}),
  };
  const transporter = nodemailer.createTransport(transportOptions);
  // A pooled transport may report errors as events too; an unheard 'error' event would end the process.
  // The same failure always reaches the send() that was waiting on it.
  transporter.on("error", () => {});

  const secrets = secretsOf(transportOptions.auth);
  return {
    async send(message) {
      try {
        await transporter.sendMail({
          from: options.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          ...(message.html !== undefined ? { html: message.html } : {}),
        });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new RepositeError(502, `[smtp] could not send mail: ${redact(reason, secrets)}`, "mail_failed");
      }
    },
    close() {
      transporter.close();
    },
  };
}

/** The forms a password can take on the wire (URL-escaped, base64 in AUTH PLAIN/LOGIN), so a server echoing one is scrubbed too. */
function secretsOf(auth: SMTPPool.Options["auth"]): string[] {
  const pass = auth && "pass" in auth && typeof auth.pass === "string" ? auth.pass : "";
  if (!pass) return [];
  const user = auth && typeof auth.user === "string" ? auth.user : "";
  const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  return [pass, encodeURIComponent(pass), base64(pass), base64(`\u0000${user}\u0000${pass}`)];
}

function redact(text: string, secrets: string[]): string {
  return secrets.reduce((out, secret) => out.split(secret).join("***"), text);
}
