import { createHash } from "node:crypto";
import { inject, injectable } from "tsyringe";
import { CONFIG, type RepositeConfig } from "../config.js";
import { RepositeError } from "../errors.js";
import type { PageContent } from "../generation/page-content.js";
import type { RunningJob } from "../jobs/jobs-service.js";
import { PageVersionsService } from "../pages/page-versions-service.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { LogoFetcher } from "../projects/logo-fetcher.js";
import type { PageKind } from "../projects/project.js";
import { ProjectStore } from "../projects/project-store.js";
import { ImageDownloader, ImageUnavailable } from "../util/image-downloader.js";
import { pictureSlots } from "./page-pictures.js";
import type { PublishedFile } from "./published-site.js";
import { readmeLogo } from "./readme-logo.js";

/** Where a site serves the pictures copied for it: `/_images/<first 16 hex of sha256>.<ext>`. */
export const SITE_IMAGES_PATH = "/_images/";

/** A README picture larger than this is left out: 2 MB holds a full-width screenshot, even a short GIF. */
export const MAX_SITE_IMAGE_BYTES = 2 * 1024 * 1024;

/**
 * Pictures one site may have. Published pictures are part of the site's snapshot, which the site
 * runtime holds in memory (its cache has 64 MiB for all sites by default): 8 × 2 MB bounds what
 * one site costs there, and a product page rarely shows more than a hero and a few screenshots.
 */
export const MAX_SITE_IMAGES = 8;

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
  "image/svg+xml": "svg",
};

/** A copied picture's address on a site; its name is its content's hash, so it never changes. */
const PICTURE_PATH = /\/_images\/([0-9a-f]{16})\.(png|jpg|gif|webp|avif|svg)(?![\w.])/g;

/** A copied picture as stored, once per site and content (`site-images:<site_id>:<name>`). */
interface StoredImage {
  /** The whole sha256 of the body, hex; the name is its first 16 characters. */
  sha256: string;
  content_type: string;
  /** base64 */
  body: string;
  /** Where it was copied from (first copy). */
  source_url: string;
}

const imageKey = (siteId: string, name: string) => `site-images:${siteId}:${name}`;
const imagePrefix = (siteId: string) => `site-images:${siteId}:`;

/** A picture to publish with a site. */
export interface SiteImageFile {
  path: string;
  contentType: string;
  body: Buffer;
}

/**
 * The generation job a page is written in: notes for the person go to its stream (each on a line
 * of its own, after the page's text), and its signal stops the downloads.
 */
export type ImageJob = Pick<RunningJob, "write" | "signal">;

const say = (job: ImageJob, sentence: string) => job.write(`\n${sentence}\n`);

/** The names (`<hash16>`) and paths of the copied pictures `text` (a page's HTML) refers to, in order. */
export function referencedPictures(text: string): Array<{ name: string; path: string }> {
  const found = new Map<string, string>();
  for (const match of text.matchAll(PICTURE_PATH)) if (!found.has(match[1]!)) found.set(match[1]!, match[0]);
  return [...found].map(([name, path]) => ({ name, path }));
}

/** Whether `path` is where a site serves a copied picture. */
export const isSiteImagePath = (path: string) => path.startsWith(SITE_IMAGES_PATH);

/**
 * The README's pictures, copied to the site. A page's content names pictures by their address on
 * another host (the README's raw files); pages never make third-party requests, so after a page is
 * written each picture is downloaded once (`ImageDownloader`: public addresses only, image types,
 * at most 2 MB), stored once per site by its content's hash, and named by its address on the site,
 * `/_images/<hash>.<ext>`. A picture that cannot be copied is left out of the page, with a note.
 * Publishing adds the pictures a site's pages name to its files (`publishedFiles`).
 *
 * The README's logo becomes the project's logo when the project has none of its own
 * (`adoptReadmeLogo`).
 */
@injectable()
export class SiteImages {
  private readonly downloader: ImageDownloader;

  constructor(
    @inject(CONFIG) config: RepositeConfig,
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(PageVersionsService) private readonly versions: PageVersionsService,
    @inject(ProjectStore) private readonly projects: ProjectStore,
    @inject(LogoFetcher) private readonly logos: LogoFetcher,
  ) {
    this.downloader = new ImageDownloader(config);
  }

  /**
   * `content` with its remote pictures copied to the site and named by their site address; a
   * picture that cannot be copied (or past the site's 8) is left out, and the job's stream says why. The
   * site's other current pages count towards the 8; a picture already on the site counts once.
   * Pictures already on the site or inline (`data:`) stay as they are; any other address goes.
   */
  async copyInto<T extends PageContent>(ownerId: string, siteId: string, content: T, job: ImageJob): Promise<T> {
    const { signal } = job;
    const { slots, result } = pictureSlots(content);
    if (slots.length === 0) return content;
    const onSite = await this.namesOnOtherPages(ownerId, siteId, content.kind);
    const copied = new Map<string, string | ImageUnavailable>();
    for (const slot of slots) {
      const src = slot.picture.src.trim();
      const own = referencedPictures(src)[0];
      if (own && own.path === src) {
        onSite.add(own.name);
        continue;
      }
      if (/^data:image\//i.test(src)) continue;
      if (!/^https?:\/\//i.test(src)) {
        slot.drop();
        continue;
      }
      let outcome = copied.get(src);
      if (outcome === undefined) {
        outcome = onSite.size >= MAX_SITE_IMAGES ? new ImageUnavailable(`the site has ${MAX_SITE_IMAGES} pictures already, the most it may have.`) : await this.copy(siteId, src, signal);
        copied.set(src, outcome);
      }
      if (outcome instanceof ImageUnavailable) {
        signal?.throwIfAborted();
        slot.drop();
        say(job, `The picture at ${src} was left out: ${outcome.reason}`);
        continue;
      }
      onSite.add(referencedPictures(outcome)[0]!.name);
      slot.setSrc(outcome);
    }
    return result();
  }

  /**
   * Makes the README's logo the project's (copied as a `data:` image with the logo's 64 KB limit),
   * when the project has no `logo_url` of its own: each time its landing page is written, and for
   * any page while it has no logo yet. Which picture is the logo: `readmeLogo`. Why a logo could
   * not be used goes to the job's stream.
   */
  async adoptReadmeLogo(siteId: string, kind: PageKind, readme: string | null, job: ImageJob): Promise<void> {
    const project = await this.projects.get(siteId);
    if (!project || project.logo_url !== "" || (kind !== "template" && project.logo_image)) return;
    const logo = readmeLogo(readme, project.repository);
    if (!logo) return;
    let image: string;
    try {
      image = await this.logos.fetchAsDataUrl(logo, job.signal);
    } catch (error) {
      if (!RepositeError.isInstance(error)) throw error;
      say(job, `The README's logo at ${error.message.replace(/^The logo at /, "")}`);
      return;
    }
    // A logo_url set meanwhile wins.
    await this.projects.modify(siteId, (record) => (record.logo_url === "" ? { ...record, logo_image: image } : record));
  }

  /**
   * The copied pictures the HTML files among `files` name, to publish with them (at most 8, in the
   * order the pages name them). A picture missing from storage is skipped.
   */
  async publishedFiles(siteId: string, files: Record<string, PublishedFile>): Promise<SiteImageFile[]> {
    const named = new Map<string, string>();
    for (const file of Object.values(files)) {
      if (!/^text\/html\b/i.test(file.contentType) || file.encoding === "base64") continue;
      for (const { name, path } of referencedPictures(file.body)) if (!named.has(name)) named.set(name, path);
    }
    const out: SiteImageFile[] = [];
    for (const [name, path] of named) {
      if (out.length >= MAX_SITE_IMAGES) break;
      const stored = await this.storage.getItem<StoredImage>(imageKey(siteId, name));
      if (!stored || EXTENSIONS[stored.content_type] !== path.split(".").pop()) continue;
      out.push({ path, contentType: stored.content_type, body: Buffer.from(stored.body, "base64") });
    }
    return out;
  }

  /** Removes every picture copied for the site (a purge). */
  async removeAll(siteId: string): Promise<void> {
    for (const key of await this.storage.getKeys(imagePrefix(siteId))) await this.storage.removeItem(key);
  }

  /** Downloads and stores one picture: its site address, or why it could not be copied. */
  private async copy(siteId: string, url: string, signal?: AbortSignal): Promise<string | ImageUnavailable> {
    let image;
    try {
      image = await this.downloader.download(url, { maxBytes: MAX_SITE_IMAGE_BYTES, purpose: "README picture copy", ...(signal ? { signal } : {}) });
    } catch (error) {
      if (error instanceof ImageUnavailable) return error;
      throw error;
    }
    const sha256 = createHash("sha256").update(image.body).digest("hex");
    const name = sha256.slice(0, 16);
    const key = imageKey(siteId, name);
    // Stored once: the same picture from another page or generation is the same record (with the type it was first stored with).
    const stored = await this.storage.getItem<StoredImage>(key);
    if (!stored) {
      const record: StoredImage = { sha256, content_type: image.contentType, body: image.body.toString("base64"), source_url: url };
      await this.storage.setItem(key, record);
    }
    return `${SITE_IMAGES_PATH}${name}.${EXTENSIONS[stored?.content_type ?? image.contentType]}`;
  }

  /** Names of the copied pictures the site's current pages other than `kind` show. */
  private async namesOnOtherPages(ownerId: string, siteId: string, kind: PageKind): Promise<Set<string>> {
    const names = new Set<string>();
    for (const record of await this.versions.currentPages(ownerId, siteId)) {
      if (record.kind === kind) continue;
      for (const { name } of referencedPictures(record.html)) names.add(name);
    }
    return names;
  }
}
