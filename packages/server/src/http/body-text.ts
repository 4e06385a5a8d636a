import type { H3Event } from "h3";

/** How much more than its limit an oversized body is read (and thrown away) before the answer. */
export const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
/** How long an oversized body is read before the answer goes out all the same. */
export const DISCARD_MAX_MS = 10_000;

/**
 * The request body as UTF-8 text, or null when it is over `limit` bytes.
 *
 * An oversized body is read to its end and thrown away before the caller answers `413`. A client
 * that is still sending when the server closes the connection gets a reset (the kernel answers
 * unread data with RST) and never reads the answer; h3's `assertBodySize` cancels the body, which
 * destroys the socket before anything is written. Reading on is bounded: past `DISCARD_MAX_BYTES`
 * more, `DISCARD_MAX_MS`, or a declared length beyond both, the answer goes out at once and the
 * connection closes (`Connection: close` on every 413), so nobody can hold the server with an
 * endless body; only such a client may miss the answer.
 */
export async function readBodyText(event: H3Event, limit: number): Promise<string | null> {
  const body = event.req.body;
  if (!body) return "";
  const declared = Number(event.req.headers.get("content-length") ?? Number.NaN);
  if (declared > limit + DISCARD_MAX_BYTES) return null;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let discardUntil = declared > limit ? Date.now() + DISCARD_MAX_MS : Number.POSITIVE_INFINITY;
  try {
    for (;;) {
      const next = await readBefore(reader, discardUntil);
      if (!next || next.done) break;
      size += next.value.byteLength;
      if (size <= limit) {
        chunks.push(next.value);
        continue;
      }
      if (chunks.length > 0) chunks.length = 0;
      if (discardUntil === Number.POSITIVE_INFINITY) discardUntil = Date.now() + DISCARD_MAX_MS;
      if (size > limit + DISCARD_MAX_BYTES) break;
    }
  } finally {
    reader.releaseLock();
  }
  return size > limit ? null : new TextDecoder().decode(Buffer.concat(chunks));
}

/** The next chunk, or null when `deadline` (a time in ms) passes first. */
async function readBefore(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  deadline: number,
): Promise<ReadableStreamReadResult<Uint8Array> | null> {
  const read = reader.read();
  if (deadline === Number.POSITIVE_INFINITY) return read;
  // Released on a timeout, the reader rejects this read; nobody waits for it any more.
  read.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
