import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { OutboxMessage } from "@reposite/core";

/** The messages the outbox mailer wrote to `dir`, oldest first. */
export async function readOutbox(dir: string): Promise<OutboxMessage[]> {
  const files = (await readdir(dir).catch(() => [] as string[])).filter((file) => file.endsWith(".json")).sort();
  return Promise.all(files.map(async (file) => JSON.parse(await readFile(join(dir, file), "utf8")) as OutboxMessage));
}

/** The newest message to `to`, waiting briefly for it to arrive. */
export async function lastMailTo(dir: string, to: string, timeoutMs = 5_000): Promise<OutboxMessage> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mine = (await readOutbox(dir)).filter((message) => message.to === to);
    if (mine.length > 0) return mine[mine.length - 1]!;
    if (Date.now() > deadline) throw new Error(`no mail to ${to} in ${dir}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The first http(s) link in a message's text. */
export function linkIn(message: { text: string }): string {
  const match = /https?:\/\/\S+/.exec(message.text);
  if (!match) throw new Error(`no link in: ${message.text}`);
  return match[0];
}
