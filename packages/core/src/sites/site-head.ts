import { escapeAttribute } from "../rendering/escape.js";
import { FAVICON_LINK } from "../rendering/favicon-link.js";

/** Marks what publishing adds to a page's `<head>`, so a later publish or a rename replaces it. */
const START = "<!-- reposite:published-head -->";
const END = "<!-- /reposite:published-head -->";
const MARKED = /<!-- reposite:published-head -->[\s\S]*?<!-- \/reposite:published-head -->/g;
/** The marked block with its indentation and line break, for removal. */
const BLOCK = /[ \t]*<!-- reposite:published-head -->[\s\S]*?<!-- \/reposite:published-head -->\r?\n?/g;

/** Only ids of the shapes the project settings accept reach a script; anything else adds no tag. */
const GA_ID = /^(G-[A-Z0-9]{4,20}|UA-\d{4,12}-\d{1,4})$/;

export const PREVIEW_IMAGE_PATH = "/og.png";
export const PREVIEW_IMAGE_WIDTH = 1200;
export const PREVIEW_IMAGE_HEIGHT = 630;

export interface SiteHeadInput {
  /** Absolute address of this page (the canonical URL). */
  pageUrl: string;
  /** The site's address, without a trailing slash; the preview image is `<siteUrl>/og.png`. */
  siteUrl: string;
  siteName: string;
  title: string;
  description: string;
  /** Google Analytics id (`G-…`, `UA-…`); the gtag.js snippet is added only when it is set. */
  gaId?: string;
  /** Keeps the page out of search results (sign-in, not-found). */
  noindex?: boolean;
}

/**
 * Tags publishing puts in a page's `<head>`: canonical link, the icon, Open Graph and Twitter card tags
 * with the site's preview image, and the analytics tag when the owner set an id. Every value is
 * escaped. The analytics tag loads gtag.js from googletagmanager.com, the one third-party
 * request a published page makes, and only because the owner asked for it.
 */
export function siteHead(input: SiteHeadInput): string {
  const image = `${input.siteUrl}${PREVIEW_IMAGE_PATH}`;
  const meta = (attribute: "name" | "property", key: string, value: string) =>
    `<meta ${attribute}="${key}" content="${escapeAttribute(value)}">`;
  const tags = [
    `<link rel="canonical" href="${escapeAttribute(input.pageUrl)}">`,
    FAVICON_LINK,
    ...(input.noindex ? [meta("name", "robots", "noindex")] : []),
    meta("property", "og:type", "website"),
    meta("property", "og:site_name", input.siteName),
    meta("property", "og:title", input.title),
    meta("property", "og:description", input.description),
    meta("property", "og:url", input.pageUrl),
    meta("property", "og:image", image),
    meta("property", "og:image:type", "image/png"),
    meta("property", "og:image:width", String(PREVIEW_IMAGE_WIDTH)),
    meta("property", "og:image:height", String(PREVIEW_IMAGE_HEIGHT)),
    meta("property", "og:image:alt", input.siteName),
    meta("name", "twitter:card", "summary_large_image"),
    meta("name", "twitter:title", input.title),
    meta("name", "twitter:description", input.description),
    meta("name", "twitter:image", image),
    ...analyticsTags(input.gaId),
  ];
  return `${START}\n${tags.join("\n")}\n${END}`;
}

/** The 404 page's additions: the icon, kept out of search results, and counted when the owner set an analytics id. */
export function notFoundHead(gaId?: string): string {
  return `${START}\n${[FAVICON_LINK, `<meta name="robots" content="noindex">`, ...analyticsTags(gaId)].join("\n")}\n${END}`;
}

function analyticsTags(gaId: string | undefined): string[] {
  if (!gaId || !GA_ID.test(gaId)) return [];
  // The id is known to be letters, digits and dashes, so it is safe in the URL and the script.
  return [
    `<script async src="https://www.googletagmanager.com/gtag/js?id=${gaId}"></script>`,
    `<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}gtag("js",new Date());gtag("config","${gaId}");</script>`,
  ];
}

/** Changes what publishing added to a page (each marked block), leaving the page itself alone. */
export function mapSiteHead(html: string, change: (block: string) => string): string {
  return html.replace(MARKED, change);
}

/** The HTML without anything an earlier publish added to its head. */
export function stripSiteHead(html: string): string {
  return html.replace(BLOCK, "");
}

/**
 * Puts `head` into the document's `<head>` (before `</head>`), replacing what an earlier publish
 * added. A page without a head (custom HTML may be a fragment) gets one.
 */
export function injectHead(html: string, head: string): string {
  const page = stripSiteHead(html);
  const close = page.search(/<\/head\s*>/i);
  if (close >= 0) return `${page.slice(0, close)}${head}\n${page.slice(close)}`;
  const open = /<head(?:\s[^>]*)?>/i.exec(page);
  if (open) return `${page.slice(0, open.index + open[0].length)}\n${head}\n${page.slice(open.index + open[0].length)}`;
  const body = page.search(/<body[\s>]/i);
  if (body >= 0) return `${page.slice(0, body)}<head>\n${head}\n</head>\n${page.slice(body)}`;
  const opening = /^\s*(<!doctype[^>]*>\s*)?(<html[^>]*>\s*)?/i.exec(page)![0];
  return `${opening}<head>\n${head}\n</head>\n${page.slice(opening.length)}`;
}

/** What a page says about itself: its `<title>` and meta description, as plain text. */
export function pageMeta(html: string): { title: string | null; description: string | null } {
  const page = stripSiteHead(html);
  const title = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(page)?.[1];
  let description: string | null = null;
  for (const match of page.matchAll(/<meta\b([^>]*)>/gi)) {
    const attributes = parseAttributes(match[1]!);
    if (attributes.name?.toLowerCase() === "description" && attributes.content !== undefined) {
      description = clean(decodeEntities(attributes.content));
      break;
    }
  }
  const text = title === undefined ? null : clean(decodeEntities(title.replace(/<[^>]*>/g, "")));
  return { title: text || null, description: description || null };
}

function parseAttributes(source: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of source.matchAll(/([^\s=/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    attributes[match[1]!.toLowerCase()] = match[2] ?? match[3] ?? match[4] ?? "";
  }
  return attributes;
}

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, code: string) => {
    if (code[0] === "#") {
      const point = code[1] === "x" || code[1] === "X" ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
      return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : entity;
    }
    return NAMED_ENTITIES[code.toLowerCase()] ?? entity;
  });
}

const clean = (text: string) => text.replace(/\s+/g, " ").trim();
