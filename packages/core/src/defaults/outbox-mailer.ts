import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Mailer, MailMessage } from "../ports/mailer.js";

export interface OutboxMailerOptions {
  /** Folder that receives one JSON file per message. */
  dir: string;
  /** Sender shown in the file, as an SMTP provider would use it. */
  from: string;
  /** Where the one line per message goes; default `console.log`. */
  log?: (line: string) => void;
}

/** What an outbox file holds. */
export interface OutboxMessage extends MailMessage {
  from: string;
  sent_at: string;
}

/**
 * Mail for a server without SMTP: each message becomes a file a person (or a test) can open,
 * and one log line says where it went. Sign-in links work locally this way.
 */
export function createOutboxMailer(options: OutboxMailerOptions): Mailer {
  const log = options.log ?? ((line: string) => console.log(line));
  // File names sort by send time; a strictly increasing clock keeps same-millisecond sends in order.
  let last = 0;
  return {
    async send(message) {
      last = Math.max(Date.now(), last + 1);
      const sentAt = new Date(last);
      // Messages hold sign-in links: only the service's user may read them.
      await mkdir(options.dir, { recursive: true, mode: 0o700 });
      const file = join(options.dir, `${sentAt.toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.json`);
      const record: OutboxMessage = { from: options.from, ...message, sent_at: sentAt.toISOString() };
      await writeFile(file, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
      log(`[reposite] mail to ${message.to}: "${message.subject}" written to ${file}`);
    },
  };
}
