import type { Mailer } from "@reposite/core";
import { afterEach, describe, expect, it } from "vitest";

/** A message as the receiving end saw it, decoded (line breaks as `\n`). */
export interface ReceivedMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html?: string;
}

export interface MailerContractSetup {
  mailer: Mailer;
  /** Every message that has arrived so far, oldest first. */
  received(): Promise<ReceivedMail[]>;
  teardown(): Promise<void>;
}

/**
 * What core relies on from a Mailer (sign-in links above all), proved the same way for the
 * embedded outbox and for every real provider.
 */
export function mailerContract(name: string, setup: () => Promise<MailerContractSetup>) {
  describe(`mailer contract: ${name}`, () => {
    let current: MailerContractSetup | undefined;
    const start = async () => (current = await setup());
    afterEach(async () => {
      await current?.teardown();
      current = undefined;
    });

    it("delivers text, html and a unicode subject intact", async () => {
      const { mailer, received } = await start();
      const message = {
        to: "ada@example.com",
        subject: "Zoë's café — ✓ sign in to Reposite 🚀",
        text: "Hello Ada,\n\nYour site is ready. Grüße, 日本語も大丈夫。\n",
        html: "<p>Hello Ada,</p><p>Your site is <strong>ready</strong>. Grüße, 日本語も大丈夫。</p>",
      };
      await mailer.send(message);

      const mails = await received();
      expect(mails).toHaveLength(1);
      const [mail] = mails;
      expect(mail).toMatchObject({ to: message.to, subject: message.subject, text: message.text });
      expect(mail!.html?.trim()).toBe(message.html);
      expect(mail!.from).toMatch(/@/);
    });

    it("delivers a message without html as text only", async () => {
      const { mailer, received } = await start();
      await mailer.send({ to: "ada@example.com", subject: "Plain", text: "Just text.\n" });
      const [mail] = await received();
      expect(mail).toMatchObject({ subject: "Plain", text: "Just text.\n" });
      expect(mail!.html).toBeUndefined();
    });

    it("delivers two messages, both, in the order sent", async () => {
      const { mailer, received } = await start();
      await mailer.send({ to: "ada@example.com", subject: "First", text: "one\n" });
      await mailer.send({ to: "grace@example.com", subject: "Second", text: "two\n" });

      const mails = await received();
      expect(mails.map((mail) => [mail.to, mail.subject, mail.text])).toEqual([
        ["ada@example.com", "First", "one\n"],
        ["grace@example.com", "Second", "two\n"],
      ]);
    });

    it("keeps a long sign-in link unbroken in a long text", async () => {
      const { mailer, received } = await start();
      const link = `https://reposite.example.com/auth/callback?token=rs_${"Ab9_-".repeat(40)}&next=%2Fprojects%2Fsite_0123456789abcdef%3Ftab%3Ddesign`;
      const filler = "Someone asked to sign in to Reposite with this address. ".repeat(12);
      const text = `${filler}\n\nOpen this link within 15 minutes to sign in:\n\n${link}\n\n${filler}\n`;
      await mailer.send({ to: "ada@example.com", subject: "Your sign-in link", text, html: `<p><a href="${link.replace(/&/g, "&amp;")}">Sign in</a></p>` });

      const [mail] = await received();
      expect(mail!.text).toBe(text);
      expect(mail!.text.split(/\s+/)).toContain(link);
      expect(mail!.html).toContain(link.replace(/&/g, "&amp;"));
    });
  });
}
