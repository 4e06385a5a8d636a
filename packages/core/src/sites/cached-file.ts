import { promisify } from "node:util";
import { brotliCompress, brotliDecompress, constants as zlibConstants, gzip } from "node:zlib";
import { notFound } from "../errors.js";
import type { PublishedFile } from "./published-site.js";

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
const unbrotliAsync = promisify(brotliDecompress);

/** How a body is sent: `Content-Encoding` br or gzip, or as published. */
export type BodyEncoding = "br" | "gzip" | "identity";

/** Content types worth compressing: text formats. Images (og.png) are compressed already. */
const COMPRESSIBLE = /^(?:text\/|application\/(?:xml|xhtml\+xml|rss\+xml|atom\+xml|javascript|json|manifest\+json)|image\/svg\+xml)/i;

/** Whether a file of this content type gets gzip and brotli variants. */
export const isCompressible = (contentType: string): boolean => COMPRESSIBLE.test(contentType);

/**
 * Bytes counted per file beyond its bodies: the object, its strings and the header lists the
 * runtime makes for it. An estimate, measured with the site-serving benchmark.
 */
export const FILE_OVERHEAD_BYTES = 1_024;

/**
 * One file of a cached site. Memory holds one body per file: brotli for text that brotli makes
 * smaller, else the body as published; nothing for a file kept apart (the preview image), which is
 * read from storage when asked for. gzip and the plain body of a text file are made on the first
 * request that needs them (most clients take brotli) and kept while the cache's byte budget allows.
 */
export interface CachedFile {
  readonly path: string;
  readonly contentType: string;
  /** The snapshot's strong ETag of the body, quoted. */
  readonly etag: string;
  /** `lastModified` as an HTTP date (`Tue, 03 Mar 2026 10:00:00 GMT`), or null when the snapshot's is not a date. */
  readonly lastModified: string | null;
  /** Length of the body as published, in bytes. */
  readonly size: number;
  /** Text that brotli makes smaller: sent in br and gzip too, and varies by `Accept-Encoding`. */
  readonly compressible: boolean;
  /** Kept in storage, never in memory: each answer with a body reads it. */
  readonly apart: boolean;
  /** Whether `encoding` is worth sending: identity always; gzip until it proved no smaller than the body. */
  offers(encoding: BodyEncoding): boolean;
  /** The body in `encoding` when memory holds it (synchronous: the hot path), else undefined. */
  held(encoding: BodyEncoding): Buffer | undefined;
  /**
   * The body in `encoding`: held, or made from the held body (and then kept, when the budget
   * allows), or read from storage for a file kept apart. Null when the encoding is not offered, or
   * proved not to be worth it (gzip of a tiny file). A file kept apart that is gone meanwhile: `404`.
   */
  load(encoding: BodyEncoding): Promise<Buffer | null>;
  /** Bytes of the bodies memory holds now. */
  heldBytes(): number;
}

/** What a cached file asks of its cache: room for bytes it would keep, and its body in storage. */
export interface CachedFileHooks {
  /** Answers whether `bytes` more may be kept (and counts them when so). Default: always. */
  keep?: (bytes: number) => boolean;
  /** Reads the body of a file kept apart. */
  readApart?: (file: PublishedFile) => Promise<Buffer | null>;
}

/** Decodes one file of a snapshot and, for text, makes its brotli body (in zlib's thread pool). */
export async function prepareFile(path: string, file: PublishedFile, hooks: CachedFileHooks = {}): Promise<CachedFile> {
  const modified = new Date(file.lastModified);
  const meta = {
    path,
    contentType: file.contentType,
    etag: file.etag,
    lastModified: Number.isNaN(modified.getTime()) ? null : modified.toUTCString(),
  };
  if (file.apart) return new MemoryFile(meta, file.apart.size, {}, { apart: file, hooks });
  const body = Buffer.from(file.body, file.encoding === "base64" ? "base64" : "utf8");
  if (isCompressible(file.contentType) && body.length > 0) {
    const br = await brotliAsync(body, {
      params: {
        [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
        [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY,
        [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
    // The body as published is not kept: it is made again from brotli for the clients that need it.
    if (br.length < body.length) return new MemoryFile(meta, body.length, { br: exact(br) }, { hooks });
  }
  // A variant that is not smaller (tiny files) is never worth the Vary and the CPU of the client.
  return new MemoryFile(meta, body.length, { identity: exact(body) }, { hooks });
}

/**
 * `buffer` in an allocation of exactly its size: zlib answers slices of 16 KB chunks and small
 * strings are decoded into Node's shared 8 KB pool, and a kept slice keeps the whole of either.
 */
function exact(buffer: Buffer): Buffer {
  if (buffer.byteOffset === 0 && buffer.buffer.byteLength === buffer.length) return buffer;
  const copy = Buffer.allocUnsafeSlow(buffer.length);
  buffer.copy(copy);
  return copy;
}

interface FileMeta {
  path: string;
  contentType: string;
  etag: string;
  lastModified: string | null;
}

class MemoryFile implements CachedFile {
  readonly path: string;
  readonly contentType: string;
  readonly etag: string;
  readonly lastModified: string | null;
  readonly compressible: boolean;
  readonly apart: boolean;
  private gzipWorse = false;
  private pending: Map<BodyEncoding, Promise<Buffer | null>> | undefined;
  private readonly apartFile: PublishedFile | undefined;
  private readonly hooks: CachedFileHooks;

  constructor(
    meta: FileMeta,
    readonly size: number,
    private readonly bodies: Partial<Record<BodyEncoding, Buffer>>,
    options: { apart?: PublishedFile; hooks: CachedFileHooks },
  ) {
    this.path = meta.path;
    this.contentType = meta.contentType;
    this.etag = meta.etag;
    this.lastModified = meta.lastModified;
    this.compressible = bodies.br !== undefined;
    this.apart = options.apart !== undefined;
    this.apartFile = options.apart;
    this.hooks = options.hooks;
  }

  offers(encoding: BodyEncoding): boolean {
    if (encoding === "identity") return true;
    return this.compressible && !(encoding === "gzip" && this.gzipWorse);
  }

  held(encoding: BodyEncoding): Buffer | undefined {
    return this.bodies[encoding];
  }

  heldBytes(): number {
    return (this.bodies.br?.length ?? 0) + (this.bodies.gzip?.length ?? 0) + (this.bodies.identity?.length ?? 0);
  }

  load(encoding: BodyEncoding): Promise<Buffer | null> {
    if (!this.offers(encoding)) return Promise.resolve(null);
    const held = this.bodies[encoding];
    if (held) return Promise.resolve(held);
    // Concurrent first requests for one encoding share one piece of work.
    this.pending ??= new Map();
    let pending = this.pending.get(encoding);
    if (!pending) {
      pending = (this.apartFile ? this.readApart(this.apartFile) : this.make(encoding)).finally(() => this.pending?.delete(encoding));
      this.pending.set(encoding, pending);
    }
    return pending;
  }

  private async readApart(file: PublishedFile): Promise<Buffer> {
    const body = await this.hooks.readApart?.(file);
    if (!body) throw notFound("This file is not here any more; the site was published again. Reload the page.");
    return body;
  }

  private async make(encoding: BodyEncoding): Promise<Buffer | null> {
    const identity = this.bodies.identity ?? exact(await unbrotliAsync(this.bodies.br!));
    let body = identity;
    if (encoding === "gzip") {
      const gzipped = await gzipAsync(identity, { level: zlibConstants.Z_BEST_COMPRESSION });
      if (gzipped.length >= identity.length) {
        this.gzipWorse = true;
        return null;
      }
      body = exact(gzipped);
    }
    // Kept while the budget allows: the next such request is answered from memory, on the fast path.
    if (this.hooks.keep?.(body.length) ?? true) this.bodies[encoding] = body;
    return body;
  }
}
