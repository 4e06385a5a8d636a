import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { extract, pack } from "tar-stream";

/** A build context on its way to the Engine, its Dockerfile read (and changed) as it passes. */
export interface ContextWithDockerfile {
  context: Readable;
  /** The Dockerfile as sent, once the context was read; null when it is not a regular file of the context (a link). */
  dockerfile(): string | null;
}

/**
 * Passes `context` through, with the regular file at `path` replaced by `edit(text)`. Streamed:
 * only the Dockerfile is held in memory.
 */
export function withDockerfile(context: Readable, path: string, edit: (text: string) => string): ContextWithDockerfile {
  const target = normalize(path);
  const reader = extract();
  const packer = pack();
  let sent: string | null = null;
  reader.on("entry", (header, stream, next) => {
    if (header.type !== "file" || normalize(header.name) !== target) {
      stream.pipe(packer.entry(header, (error) => next(error ?? undefined)));
      return;
    }
    const chunks: Buffer[] = [];
    stream.on("data", (chunk) => chunks.push(chunk as Buffer));
    stream.on("end", () => {
      sent = edit(Buffer.concat(chunks).toString("utf8"));
      const content = Buffer.from(sent);
      packer.entry({ ...header, size: content.length }, content, (error) => next(error ?? undefined));
    });
  });
  reader.on("finish", () => packer.finalize());
  pipeline(context, reader).catch((error: unknown) => packer.destroy(error as Error));
  return { context: Readable.from(packer, { objectMode: false }), dockerfile: () => sent };
}

const normalize = (name: string) => name.replace(/^(\.\/|\/)+/, "");
