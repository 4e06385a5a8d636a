import { createInterface } from "node:readline";

/**
 * Lines typed on stdin, one at a time, trimmed. `next()` answers undefined once stdin has ended.
 * `close()` lets go of stdin so the process can exit.
 */
export function lineReader(stdin: NodeJS.ReadableStream): { next(): Promise<string | undefined>; close(): void } {
  const lines = createInterface({ input: stdin, terminal: false, crlfDelay: Infinity });
  const iterator = lines[Symbol.asyncIterator]();
  return {
    async next() {
      const result = await iterator.next();
      return result.done ? undefined : String(result.value).trim();
    },
    close() {
      lines.close();
      (stdin as NodeJS.ReadStream).destroy?.();
    },
  };
}
