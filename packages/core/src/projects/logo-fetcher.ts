import { inject, injectable } from "tsyringe";
import { CONFIG, type RepositeConfig } from "../config.js";
import { unprocessable } from "../errors.js";
import { ImageDownloader, ImageUnavailable } from "../util/image-downloader.js";

/**
 * Logos go into every page as `data:` URLs (pages make no third-party requests), so they must be
 * small: 64 KB is ample for an SVG or a 256-pixel PNG and keeps each page light.
 */
export const MAX_LOGO_BYTES = 64 * 1024;

/**
 * Copies the image a project's `logo_url` names (or its README's logo, `SiteImages`), once, so
 * published pages carry it inline instead of asking another host on every visit. The download and
 * its rules (public addresses only unless `allowPrivateFetch`, image types, redirects, time) are
 * `ImageDownloader`'s; a logo adds the 64 KB limit and the `data:` form.
 */
@injectable()
export class LogoFetcher {
  private readonly downloader: ImageDownloader;

  constructor(@inject(CONFIG) config: RepositeConfig) {
    this.downloader = new ImageDownloader(config);
  }

  /** The image as a `data:` URL, or `422 logo_unavailable` saying why not. */
  async fetchAsDataUrl(url: string, signal?: AbortSignal): Promise<string> {
    try {
      const image = await this.downloader.download(url, { maxBytes: MAX_LOGO_BYTES, purpose: "logo copy", ...(signal ? { signal } : {}) });
      return `data:${image.contentType};base64,${image.body.toString("base64")}`;
    } catch (error) {
      if (error instanceof ImageUnavailable) {
        throw unprocessable(`The logo at ${url} could not be used: ${error.reason}`, "logo_unavailable", { field: "logo_url" });
      }
      throw error;
    }
  }
}
