import { createHash } from "node:crypto";
import type { PublishedFile } from "./published-site.js";
import { mapSiteHead } from "./site-head.js";
import { escapeXml } from "./sitemap.js";

/**
 * A site's public address: where its canonical links, link previews, sitemap and robots.txt
 * point. Publishing stores the pages with the project's address (`https://<slug>.<sites domain>`);
 * while the project has a verified custom domain the site cache serves them with the domain's
 * address instead (see `readdressFiles`), so adding or removing a domain needs no publish.
 */

/** A plain host name as the domains table keeps it: lower case ASCII (punycode), dots, digits, dashes. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * The address of a site on its custom domain: the scheme of the site's own address (https in
 * production, where both get certificates; http only on a local http server), the domain, no
 * port. Null for a name that is not a plain host name, so nothing odd reaches a page.
 */
export function customDomainUrl(siteUrl: string, domain: string): string | null {
  if (!HOST_NAME.test(domain)) return null;
  const scheme = new URL(siteUrl).protocol === "http:" ? "http" : "https";
  return `${scheme}://${domain}`;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `url` where it stands as an address: followed by a path, a quote, a tag, a space or the end. */
function addressPattern(url: string): RegExp {
  return new RegExp(`${escapeRegExp(url)}(?=[/"<\\s]|$)`, "g");
}

/** The URLs publishing put in an HTML page's head (canonical, og:url, og:image, twitter:image) moved from `from` to `to`. */
export function readdressHtml(html: string, from: string, to: string): string {
  const old = addressPattern(from);
  return mapSiteHead(html, (block) => block.replace(old, to));
}

const HTML = /^text\/html\b/i;

/**
 * A snapshot's files as served at the address `to` instead of `from`: the head of each page,
 * the sitemap's `<loc>`s and robots.txt's `Sitemap:` line. Page content, the preview image and
 * other files are as published. A changed file gets an ETag of its new bytes (a copy cached under
 * the other address is not taken for current) and no Last-Modified (the change is the address's,
 * not the file's: only the ETag says whether a copy is current).
 */
export function readdressFiles(files: Record<string, PublishedFile>, from: string, to: string): Record<string, PublishedFile> {
  const moved: Record<string, PublishedFile> = {};
  for (const [path, file] of Object.entries(files)) moved[path] = readdressFile(file, from, to);
  return moved;
}

function readdressFile(file: PublishedFile, from: string, to: string): PublishedFile {
  if (file.apart || file.encoding === "base64") return file;
  let body = file.body;
  if (HTML.test(file.contentType)) body = readdressHtml(body, from, to);
  else if (file.path === "/sitemap.xml") body = body.replace(new RegExp(`<loc>${escapeRegExp(escapeXml(from))}(?=[/<])`, "g"), `<loc>${escapeXml(to)}`);
  else if (file.path === "/robots.txt") body = body.replace(new RegExp(`^(Sitemap:\\s*)${escapeRegExp(from)}(?=/)`, "gim"), `$1${to}`);
  if (body === file.body) return file;
  const etag = `"${createHash("sha256").update(body, "utf8").digest("base64url").slice(0, 22)}"`;
  return { ...file, body, etag, lastModified: "" };
}
