import type { AddressInfo } from "node:net";
import { RepositeError } from "@reposite/core";
import { freePort, mailerContract, type ReceivedMail, failure } from "@reposite/test-support";
import { simpleParser, type AddressObject } from "mailparser";
import { SMTPServer } from "smtp-server";
import { describe, expect, it } from "vitest";
import { createSmtpMailer } from "../src/index.js";

const USER = "reposite";
const PASSWORD = "s3cret:p@ss/w0rd";
const FROM = "no-reply@reposite.test";

/** A real SMTP server on loopback that checks a login and keeps the raw messages it accepted. */
async function startSmtpServer() {
  const raw: Buffer[] = [];
  const server = new SMTPServer({
    secure: false,
    // Loopback only: no certificate to offer, so log in over plain text.
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) callback(null, { user: auth.username });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      // Kept before answering 250, so a message is here by the time send() resolves.
      stream.on("end", () => {
        raw.push(Buffer.concat(chunks));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    async received(): Promise<ReceivedMail[]> {
      return Promise.all(raw.map(toReceived));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function toReceived(message: Buffer): Promise<ReceivedMail> {
  const parsed = await simpleParser(message);
  const address = (field: AddressObject | AddressObject[] | undefined) =>
    (Array.isArray(field) ? field[0] : field)?.value[0]?.address ?? "";
  return {
    to: address(parsed.to),
    from: address(parsed.from),
    subject: parsed.subject ?? "",
    // SMTP carries CRLF line ends; the contract compares with what was sent.
    text: (parsed.text ?? "").replace(/\r\n/g, "\n"),
    ...(typeof parsed.html === "string" ? { html: parsed.html.replace(/\r\n/g, "\n") } : {}),
  };
}

const smtpUrl = (port: number, password = PASSWORD) =>
  `smtp://${encodeURIComponent(USER)}:${encodeURIComponent(password)}@127.0.0.1:${port}`;

// The server offers no STARTTLS; tell nodemailer not to look for it.
const loopback = { ignoreTLS: true, connectionTimeout: 5_000 };

mailerContract("SMTP provider against smtp-server on loopback", async () => {
  const server = await startSmtpServer();
  const mailer = createSmtpMailer({ url: smtpUrl(server.port), from: FROM, transportOptions: loopback });
  return {
    mailer,
    received: server.received,
    async teardown() {
      mailer.close();
      await server.close();
    },
  };
});

describe("createSmtpMailer", () => {
  it("reports a login the server refuses as 502 mail_failed, without the password", async () => {
    const server = await startSmtpServer();
    const wrong = "wr0ng-Passw0rd!";
    const mailer = createSmtpMailer({ url: smtpUrl(server.port, wrong), from: FROM, transportOptions: loopback });
    try {
      const error = await failure(mailer.send({ to: "ada@example.com", subject: "Hi", text: "Hello\n" }));
      expect(error.status).toBe(502);
      expect(error.code).toBe("mail_failed");
      expect(error.message).toMatch(/^\[smtp\] could not send mail: .*(login|auth)/i);
      for (const secret of [wrong, encodeURIComponent(wrong), Buffer.from(wrong).toString("base64")]) {
        expect(error.message).not.toContain(secret);
        expect(JSON.stringify(error)).not.toContain(secret);
      }
      expect(await server.received()).toEqual([]);
    } finally {
      mailer.close();
      await server.close();
    }
  });

  it("reports an SMTP server that is not listening as 502 mail_failed", async () => {
    const port = await freePort();
    const mailer = createSmtpMailer({ url: smtpUrl(port), from: FROM, transportOptions: loopback });
    try {
      const error = await failure(mailer.send({ to: "ada@example.com", subject: "Hi", text: "Hello\n" }));
      expect(error.status).toBe(502);
      expect(error.code).toBe("mail_failed");
      expect(error.message).toMatch(/^\[smtp\] could not send mail: .*ECONNREFUSED/);
      expect(error.message).not.toContain(PASSWORD);
    } finally {
      mailer.close();
    }
  });

  it("rejects a URL it cannot use without echoing it", () => {
    for (const url of ["not a url :secret-in-url", "https://user:secret-in-url@mail.example.com"]) {
      let caught: unknown;
      try {
        createSmtpMailer({ url, from: FROM });
      } catch (error) {
        caught = error;
      }
      expect(RepositeError.isInstance(caught)).toBe(true);
      expect((caught as RepositeError).code).toBe("smtp_url_invalid");
      expect((caught as RepositeError).message).not.toContain("secret-in-url");
    }
  });
});

