import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mailerContract, readOutbox } from "@reposite/test-support";
import { describe, expect, it } from "vitest";
import { createOutboxMailer } from "../src/index.js";

const FROM = "Reposite <no-reply@localhost>";

mailerContract("outbox mailer (the embedded default)", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "reposite-outbox-"));
  const dir = join(dataDir, "outbox");
  const mailer = createOutboxMailer({ dir, from: FROM, log: () => {} });
  return {
    mailer,
    // readOutbox reads the JSON files in name order, which is the order they were written.
    received: async () =>
      (await readOutbox(dir)).map(({ to, from, subject, text, html }) => ({
        to,
        from,
        subject,
        text,
        ...(html !== undefined ? { html } : {}),
      })),
    teardown: () => rm(dataDir, { recursive: true, force: true }),
  };
});

describe("outbox mailer", () => {
  it("logs one line per message, naming the file it wrote", async () => {
    const dir = await mkdtemp(join(tmpdir(), "reposite-outbox-"));
    const lines: string[] = [];
    const mailer = createOutboxMailer({ dir, from: FROM, log: (line) => lines.push(line) });
    try {
      await mailer.send({ to: "ada@example.com", subject: "First", text: "one\n" });
      await mailer.send({ to: "grace@example.com", subject: "Second", text: "two\n" });

      const files = (await readdir(dir)).sort();
      expect(files).toHaveLength(2);
      expect(lines).toHaveLength(2);
      const mentioned = lines.map((line) => files.find((file) => line.includes(join(dir, file))));
      expect(new Set(mentioned)).toEqual(new Set(files));
      expect(lines.find((line) => line.includes("ada@example.com"))).toContain('"First"');
      expect(lines.find((line) => line.includes("grace@example.com"))).toContain('"Second"');
      const written = await readOutbox(dir);
      expect(written.map((message) => message.from)).toEqual([FROM, FROM]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
