import { request as httpGet, type IncomingMessage } from "node:http";
import { request as httpsGet } from "node:https";
import type { RepositeConfig } from "../config.js";
import { isPrivateLiteralHost, publicOnlyLookup } from "./public-address.js";

/** Image types every browser draws in an `<img>`; an SVG there cannot run scripts. */
export const IMAGE_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/svg+xml"]);

const MAX_REDIRECTS = 3;
const TIMEOUT_MS = 10_000;

/** An image copied from another host: its type (one of `IMAGE_TYPES`, parameters dropped) and its bytes. */
export interface DownloadedImage {
  contentType: string;
  body: Buffer;
}

export interface DownloadOptions {
  /** Larger images are refused, without reading past the limit. */
  maxBytes: number;
  /** Said in the User-Agent, so the image's host sees why it is asked ("logo copy"). */
  purpose: string;
  /** Stops the download (a cancelled job). */
  signal?: AbortSignal;
}

/** Why an image could not be copied, as the end of a sentence: "it answered 404." */
export class ImageUnavailable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "ImageUnavailable";
  }
}

/**
 * Downloads an image a user or a README names (a project's `logo_url`, a README's screenshots),
 * once, so published pages carry it instead of asking another host on every visit. Follows up to
 * 3 redirects, takes only the image types browsers draw, stops reading past `maxBytes` and after
 * 10 seconds without an answer. Every address, redirects included, must be public (unless
 * `allowPrivateFetch`), so an image address cannot reach the server's own network.
 */
export class ImageDownloader {
  constructor(private readonly config: Pick<RepositeConfig, "allowPrivateFetch">) {}

  /** The image, or `ImageUnavailable` saying why not. */
  async download(url: string, options: DownloadOptions): Promise<DownloadedImage> {
    let current = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const response = await this.get(current, options);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume();
        if (!URL.canParse(response.headers.location, current)) throw new ImageUnavailable("it redirects to an address that is not a valid URL.");
        current = new URL(response.headers.location, current).href;
        continue;
      }
      if (status !== 200) {
        response.resume();
        throw new ImageUnavailable(`it answered ${status}.`);
      }
      const contentType = (response.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
      if (!IMAGE_TYPES.has(contentType)) {
        response.resume();
        throw new ImageUnavailable(`it is ${contentType || "of no stated type"}, not a PNG, JPEG, GIF, WebP, AVIF or SVG image.`);
      }
      let body: Buffer | null;
      try {
        body = await readAtMost(response, options.maxBytes);
      } catch (error) {
        throw new ImageUnavailable(`the download broke off (${(error as Error).message}).`);
      }
      if (!body) throw new ImageUnavailable(`it is larger than ${sizeText(options.maxBytes)}.`);
      if (body.length === 0) throw new ImageUnavailable("it is empty.");
      return { contentType, body };
    }
    throw new ImageUnavailable(`it redirects more than ${MAX_REDIRECTS} times.`);
  }

  private get(target: string, options: DownloadOptions): Promise<IncomingMessage> {
    if (!URL.canParse(target)) return Promise.reject(new ImageUnavailable("it is not a valid URL."));
    const parsed = new URL(target);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      return Promise.reject(new ImageUnavailable(`it leads to ${parsed.protocol} addresses, not http(s).`));
    }
    const guarded = !this.config.allowPrivateFetch;
    if (guarded && isPrivateLiteralHost(parsed.hostname)) {
      return Promise.reject(new ImageUnavailable(`${parsed.hostname} is not on the public internet.`));
    }
    const send = parsed.protocol === "https:" ? httpsGet : httpGet;
    return new Promise((resolve, reject) => {
      const request = send(
        parsed,
        {
          method: "GET",
          headers: { accept: [...IMAGE_TYPES].join(", "), "user-agent": `Reposite (${options.purpose})` },
          timeout: TIMEOUT_MS,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(guarded ? { lookup: publicOnlyLookup } : {}),
        },
        resolve,
      );
      request.on("timeout", () => request.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} seconds`)));
      request.on("error", (error: NodeJS.ErrnoException) => {
        const reason = error.code === "EPRIVATEADDRESS" ? error.message : `it could not be reached (${error.message}).`;
        reject(new ImageUnavailable(reason));
      });
      request.end();
    });
  }
}

/** "64 KB", "2 MB". */
function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** The whole body, or null as soon as it passes `limit` bytes (the rest is not read). */
async function readAtMost(response: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    response.destroy();
    return null;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      response.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
