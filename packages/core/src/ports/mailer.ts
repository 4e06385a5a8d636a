import type { InjectionToken } from "tsyringe";

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text; every message has it, so any mail client can show it. */
  text: string;
  html?: string;
}

/**
 * Sends one message. The embedded default writes it to `<dataDir>/outbox/`; the SMTP provider
 * delivers it. Failures throw, so a caller can tell the person the mail did not go out.
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export const MAILER: InjectionToken<Mailer> = Symbol.for("reposite.Mailer");
