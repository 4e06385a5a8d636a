import type { LanguageModel } from "@reposite/core";
import { afterEach, describe, expect, it, vi } from "vitest";

/** What the model behind a setup is to answer, for every request until teardown. */
export interface LanguageModelScript {
  /** The whole answer. */
  reply: string;
  /** Pause before each piece of the answer, so a test can act mid-stream. Default none. */
  delayMs?: number;
}

export interface LanguageModelContractSetup {
  model: LanguageModel;
  /** True once the model's server has seen a request cancelled by its client, that is, stopped generating. */
  serverSawAbort(): boolean | Promise<boolean>;
  teardown(): Promise<void>;
}

const REQUEST = {
  system: "You write product pages. Answer in Markdown.",
  prompt: "Write the page for reposite/reposite.",
};

/**
 * What core relies on from a LanguageModel: the answer arrives intact and in pieces, and
 * cancelling ends it at once with an AbortError (so callers can tell it from a failure) while
 * the provider stops the generation it asked for. `setup` scripts the model's answer, usually on a
 * loopback fake of the provider's API.
 */
export function languageModelContract(name: string, setup: (script: LanguageModelScript) => Promise<LanguageModelContractSetup>) {
  describe(`language model contract: ${name}`, () => {
    let current: LanguageModelContractSetup | undefined;
    const start = async (script: LanguageModelScript) => (current = await setup(script));
    afterEach(async () => {
      await current?.teardown();
      current = undefined;
    });

    it("streams the whole answer: the deltas joined are the reply, unicode and line breaks intact", async () => {
      const reply = "# Zoë's café ✓\n\nReposite turns a repository into a site.\r\nGrüße, 日本語も大丈夫。🚀👩‍💻\n\n- one\n- two\n";
      const { model } = await start({ reply });
      const deltas = await collect(model.streamText(REQUEST));
      expect(deltas.join("")).toBe(reply);
      for (const delta of deltas) {
        expect(typeof delta).toBe("string");
        expect(delta).not.toBe("");
      }
    });

    it("delivers a long answer in more than one delta, as it is written", async () => {
      const reply = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1}: Reposite writes pages from a README.`).join("\n\n");
      const { model } = await start({ reply });
      const deltas = await collect(model.streamText({ ...REQUEST, maxOutputTokens: 2000 }));
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join("")).toBe(reply);
    });

    it("answers one request after another", async () => {
      const { model } = await start({ reply: "Same answer." });
      expect((await collect(model.streamText(REQUEST))).join("")).toBe("Same answer.");
      expect((await collect(model.streamText(REQUEST))).join("")).toBe("Same answer.");
    });

    it("ends with an AbortError soon after an abort mid-stream, and the server stops generating", async () => {
      const reply = "word ".repeat(2000);
      // Paced so the whole answer would take far longer than the test allows.
      const { model, serverSawAbort } = await start({ reply, delayMs: 20 });
      const controller = new AbortController();
      const received: string[] = [];
      let abortedAt = 0;
      const error = await (async () => {
        try {
          for await (const delta of model.streamText({ ...REQUEST, signal: controller.signal })) {
            received.push(delta);
            if (received.length === 2) {
              abortedAt = Date.now();
              controller.abort();
            }
          }
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();

      expect(error).toBeInstanceOf(Error);
      expect((error as Error).name).toBe("AbortError");
      // The rest of the answer would take about 40 s: a failure means the stream ran on after the abort.
      expect(Date.now() - abortedAt).toBeLessThan(5_000);
      expect(received.length).toBeGreaterThanOrEqual(2);
      expect(reply.startsWith(received.join(""))).toBe(true);
      expect(received.join("").length).toBeLessThan(reply.length);
      await vi.waitFor(async () => expect(await serverSawAbort()).toBe(true), { timeout: 10_000, interval: 20 });
    });

    it("ends with an AbortError without a delta when the signal is already aborted", async () => {
      const { model } = await start({ reply: "Never sent." });
      const controller = new AbortController();
      controller.abort();
      const received: string[] = [];
      await expect(
        (async () => {
          for await (const delta of model.streamText({ ...REQUEST, signal: controller.signal })) received.push(delta);
        })(),
      ).rejects.toMatchObject({ name: "AbortError" });
      expect(received).toEqual([]);
    });

    it("stops the generation when the caller leaves the loop early", async () => {
      const { model, serverSawAbort } = await start({ reply: "word ".repeat(2000), delayMs: 20 });
      const received: string[] = [];
      for await (const delta of model.streamText(REQUEST)) {
        received.push(delta);
        if (received.length === 2) break;
      }
      expect(received).toHaveLength(2);
      await vi.waitFor(async () => expect(await serverSawAbort()).toBe(true), { timeout: 10_000, interval: 20 });
    });
  });
}

async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const deltas: string[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
}
