import { request as httpGet, type IncomingMessage } from "node:http";
import { request as httpsGet } from "node:https";
import { inject, injectable } from "tsyringe";
import { CONFIG, type RepositeConfig } from "../config.js";
import { unprocessable } from "../errors.js";
import { isPrivateLiteralHost, publicOnlyLookup } from "../util/public-address.js";

/**
 * Logos go into every page as `data:` URLs (pages make no third-party requests), so they must be
 * small: 64 KB is ample for an SVG or a 256-pixel PNG and keeps each page light.
 */
export const MAX_LOGO_BYTES = 64 * 1024;

/** Image types every browser draws in an `<img>`; an SVG there cannot run scripts. */
const LOGO_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/svg+xml"]);

const MAX_REDIRECTS = 3;
const TIMEOUT_MS = 10_000;

const unavailable = (url: string, reason: string) =>
  unprocessable(`The logo at ${url} could not be used: ${reason}`, "logo_unavailable", { field: "logo_url" });

/**
 * Copies the image a project's `logo_url` names, once, when the URL is set, so published pages
 * carry it inline instead of asking another host on every visit. The address must be public
 * (unless `allowPrivateFetch`), so a logo URL cannot reach the server's own network.
 */
@injectable()
export class LogoFetcher {
  constructor(@inject(CONFIG) private readonly config: RepositeConfig) {}

  /** The image as a `data:` URL, or `422 logo_unavailable` saying why not. */
  async fetchAsDataUrl(url: string): Promise<string> {
    let current = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const response = await this.get(current, url);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume();
        if (!URL.canParse(response.headers.location, current)) throw unavailable(url, "it redirects to an address that is not a valid URL.");
        current = new URL(response.headers.location, current).href;
        continue;
      }
      if (status !== 200) {
        response.resume();
        throw unavailable(url, `it answered ${status}.`);
      }
      const type = (response.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
      if (!LOGO_TYPES.has(type)) {
        response.resume();
        throw unavailable(url, `it is ${type || "of no stated type"}, not a PNG, JPEG, GIF, WebP, AVIF or SVG image.`);
      }
      let body: Buffer | null;
      try {
        body = await readAtMost(response, MAX_LOGO_BYTES);
      } catch (error) {
        throw unavailable(url, `the download broke off (${(error as Error).message}).`);
      }
      if (!body) throw unavailable(url, `it is larger than ${MAX_LOGO_BYTES / 1024} KB.`);
      if (body.length === 0) throw unavailable(url, "it is empty.");
      return `data:${type};base64,${body.toString("base64")}`;
    }
    throw unavailable(url, `it redirects more than ${MAX_REDIRECTS} times.`);
  }

  private get(target: string, original: string): Promise<IncomingMessage> {
    if (!URL.canParse(target)) return Promise.reject(unavailable(original, "it is not a valid URL."));
    const parsed = new URL(target);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      return Promise.reject(unavailable(original, `it leads to ${parsed.protocol} addresses, not http(s).`));
    }
    const guarded = !this.config.allowPrivateFetch;
    if (guarded && isPrivateLiteralHost(parsed.hostname)) {
      return Promise.reject(unavailable(original, `${parsed.hostname} is not on the public internet.`));
    }
    const send = parsed.protocol === "https:" ? httpsGet : httpGet;
    return new Promise((resolve, reject) => {
      const request = send(
        parsed,
        {
          method: "GET",
          headers: { accept: [...LOGO_TYPES].join(", "), "user-agent": "Reposite (logo copy)" },
          timeout: TIMEOUT_MS,
          ...(guarded ? { lookup: publicOnlyLookup } : {}),
        },
        resolve,
      );
      request.on("timeout", () => request.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} seconds`)));
      request.on("error", (error: NodeJS.ErrnoException) => {
        const reason = error.code === "EPRIVATEADDRESS" ? error.message : `it could not be reached (${error.message}).`;
        reject(unavailable(original, reason));
      });
      request.end();
    });
  }
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
