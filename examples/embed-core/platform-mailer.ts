// A port implementation of the platform's own: Reposite's Mailer, delivered through the
// platform's notification service instead of SMTP (what @reposite/provider-smtp does).
import type { Mailer, MailMessage } from "@reposite/core";

/** What the platform's notification service takes (its own shape, not Reposite's). */
export interface PlatformNotification {
  recipient: string;
  title: string;
  body: string;
  channel: "email";
}

/**
 * A Mailer that hands each message to `notify`. A failure of `notify` is thrown on, as the port
 * asks: Reposite then tells the person the mail did not go out instead of waiting for it.
 */
export function createPlatformMailer(notify: (notification: PlatformNotification) => Promise<void>): Mailer {
  return {
    async send(message: MailMessage) {
      await notify({ recipient: message.to, title: message.subject, body: message.text, channel: "email" });
    },
  };
}
