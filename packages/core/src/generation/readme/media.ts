import type { Block, RawPicture } from "./flow.js";
import type { Outline } from "./sections.js";

/**
 * The README's pictures and links, with absolute addresses: screenshots and the logo (badges
 * left out), and links a page can use as calls to action (a Download page, say). Relative
 * addresses are resolved against the repository: pictures against its raw files, links against
 * its file pages.
 */

export interface ReadmeImage {
  /** An absolute http(s) address. */
  src: string;
  alt: string;
  /** The heading the picture is under (plain text), or null before the first heading. */
  heading: string | null;
  /** The project's logo, icon or wordmark rather than a screenshot. */
  logo: boolean;
  /** Someone else's picture: a sponsor's or user's logo (under Sponsors, Used by, …). */
  thirdParty: boolean;
}

export interface ReadmeLink {
  /** The link's text, plain. */
  label: string;
  /** An absolute http(s) address. */
  href: string;
  heading: string | null;
}

export interface RepositoryAddresses {
  /** Where the repository's files are served raw, ending in "/". */
  raw: string;
  /** Where the repository's files are shown, ending in "/". */
  page: string;
}

/** Raw-file and file-page addresses of a repository on GitHub, GitLab, or a Gitea-like host. */
export function repositoryAddresses(repositoryUrl: string, defaultBranch: string): RepositoryAddresses | null {
  let url: URL;
  try {
    url = new URL(repositoryUrl.replace(/\.git\/?$/, "").replace(/\/$/, ""));
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  const branch = encodeURIComponent(defaultBranch.trim() || "HEAD").replace(/%2F/gi, "/");
  const base = `${url.origin}${url.pathname}`;
  const host = url.hostname.replace(/^www\./, "");
  if (host === "github.com") {
    return { raw: `https://raw.githubusercontent.com${url.pathname}/${branch}/`, page: `${base}/blob/${branch}/` };
  }
  if (host === "gitlab.com") return { raw: `${base}/-/raw/${branch}/`, page: `${base}/-/blob/${branch}/` };
  return { raw: `${base}/raw/branch/${branch}/`, page: `${base}/src/branch/${branch}/` };
}

/** An address from the README made absolute, or null (data:, mailto:, anchors, junk). */
export function absolute(address: string, base: string | null): string | null {
  const value = address.trim().replace(/^<|>$/g, "");
  if (!value || value.startsWith("#") || /\s/.test(value) || value.length > 2048) return null;
  if (value.startsWith("//")) return `https:${value}`;
  if (/^https?:\/\//i.test(value)) {
    // A picture shown on GitHub's file page: its raw file.
    const blob = /^https:\/\/github\.com\/([^/]+\/[^/]+)\/blob\/(.+?)(?:\?raw=true)?$/i.exec(value);
    return blob ? `https://raw.githubusercontent.com/${blob[1]}/${blob[2]}` : value;
  }
  if (/^[a-z][\w+.-]*:/i.test(value) || !base) return null;
  try {
    return new URL(value.replace(/^\/+/, ""), base).href;
  } catch {
    return null;
  }
}

const BADGE_HOSTS =
  /(?:^|\.)(?:shields\.io|badge\.fury\.io|badgen\.net|travis-ci\.(?:org|com)|circleci\.com|ci\.appveyor\.com|codecov\.io|coveralls\.io|codacy\.com|snyk\.io|david-dm\.org|deepscan\.io|sonarcloud\.io|pepy\.tech|badgesize\.io|api\.netlify\.com|gitter\.im|bestpractices\.coreinfrastructure\.org|bestpractices\.dev|api\.star-history\.com|star-history\.com|contrib\.rocks|opencollective\.com|buymeacoffee\.com|ko-fi\.com|liberapay\.com|img\.badgesize\.io|codeclimate\.com|app\.fossa\.(?:io|com)|readthedocs\.org|hits\.seeyoufarm\.com|visitor-badge\.laobi\.icu|github-readme-stats\.vercel\.app|deploy\.workers\.cloudflare\.com|vercel\.com|heroku\.com|repl\.it|replit\.com|mybinder\.org|colab\.research\.google\.com|discordapp\.com|discord\.com|snapcraft\.io|flathub\.org|packagephobia\.com|bundlephobia\.com)$/i;
const BADGE_PATH = /badge|\/workflows\/.+\.svg|\/status\.svg|\/build-status|\/coverage\.svg|\/shield/i;
const BADGE_LINK_HOSTS =
  /(?:^|\.)(?:npmjs\.com|npmjs\.org|pypi\.org|crates\.io|docs\.rs|pkg\.go\.dev|godoc\.org|packagist\.org|rubygems\.org|nuget\.org|anaconda\.org|travis-ci\.(?:org|com)|circleci\.com|codecov\.io|coveralls\.io|opensource\.org|discord\.gg|discord\.com|gitter\.im|twitter\.com|x\.com|mastodon\.social|hub\.docker\.com|artifacthub\.io|formulae\.brew\.sh|snapcraft\.io|marketplace\.visualstudio\.com|open-vsx\.org|jsr\.io|deno\.land|bundlephobia\.com|patreon\.com|github\.com\/sponsors)$/i;
const BADGE_ALT = /\b(?:badge|build(?: status)?|ci|coverage|codecov|license|npm|pypi|version|downloads?|release|discord|chat|twitter|follow|stars?|sponsors?|donate|status|docs|documentation|crates\.io|go reference|go report|maintained|PRs? welcome)\b/i;

const hostOf = (address: string) => {
  try {
    return new URL(address).hostname;
  } catch {
    return "";
  }
};

/** True for a badge: on a badge service, a badge-like path, or a small status picture linked to a registry or CI. */
export function isBadge(src: string, alt: string, linkHref: string | null): boolean {
  if (BADGE_HOSTS.test(hostOf(src))) return true;
  const path = src.replace(/^https?:\/\/[^/]+/, "");
  if (BADGE_PATH.test(path)) return true;
  if (linkHref && (BADGE_LINK_HOSTS.test(hostOf(linkHref)) || /\/actions(?:\/|$)|\/releases(?:\/|$)|LICENSE|\/sponsors\//i.test(linkHref))) {
    return /\.svg(?:$|\?)/i.test(src) || BADGE_ALT.test(alt);
  }
  return /\.svg(?:$|\?)/i.test(src) && BADGE_ALT.test(alt) && !/logo|screenshot/i.test(alt);
}

const LOGO = /\b(?:logo|icon|wordmark|emblem|brand|banner|mascot)\b|logo/i;

/** A picture named as a logo, icon or wordmark (in its alt text or file name). */
export function isLogo(picture: { src: string; alt: string }): boolean {
  const file = picture.src.split(/[?#]/)[0]!.split("/").pop() ?? "";
  return LOGO.test(picture.alt) || LOGO.test(file);
}
/** Headings of pictures that are other people's logos: sponsors, users, partners. */
const THIRD_PARTY = /\b(?:sponsors?|backers?|supporters?|donat\w*|funding|used by|who uses|users|partners?|powered by|thanks|credits|contributors|featured|as seen|trusted by|companies)\b/i;

/**
 * The README's pictures in reading order, badges left out, addresses absolute (against the
 * repository's raw files). A logo is a picture in the title, a small one in the header, or one named
 * so; a third party's picture is under Sponsors, Used by, …; neither is ever a screenshot.
 */
export function readPictures(outline: Outline, addresses: RepositoryAddresses | null, name = ""): ReadmeImage[] {
  const product = name.toLowerCase().replace(/[^a-z0-9]/g, "");
  const siteOf = (href: string) => {
    try {
      return new URL(href).hostname.replace(/^www\./, "").toLowerCase();
    } catch {
      return "";
    }
  };
  // A picture that links to another company's site (a sponsor's banner, a merch shop, a video): theirs, not the product's screenshot.
  const elsewhere = (link: string | null, src: string) => {
    if (!link || !/^https?:/i.test(link)) return false;
    const host = siteOf(link);
    if (!host || host === siteOf(src) || /(?:^|\.)(?:github\.com|githubusercontent\.com|gitlab\.com|imgur\.com)$/.test(host)) return false;
    return !(product.length >= 3 && host.replace(/[^a-z0-9]/g, "").includes(product));
  };
  const images: ReadmeImage[] = [];
  const seen = new Set<string>();
  const add = (picture: RawPicture, heading: string | null, header: boolean) => {
    const src = absolute(picture.src, addresses?.raw ?? null);
    if (!src || seen.has(src) || images.length >= 40) return;
    seen.add(src);
    const link = picture.linkHref ? absolute(picture.linkHref, addresses?.page ?? null) : null;
    if (isBadge(src, picture.alt, link)) return;
    const file = src.split(/[?#]/)[0]!.split("/").pop() ?? "";
    const logo =
      picture.inHeading ||
      (header && (picture.width ?? 999) <= 256) ||
      LOGO.test(picture.alt) ||
      LOGO.test(file);
    const thirdParty = (heading !== null && THIRD_PARTY.test(heading)) || elsewhere(link, src);
    images.push({ src, alt: picture.alt.replace(/\s+/g, " ").trim().slice(0, 300), heading, logo: logo && !thirdParty, thirdParty });
  };
  const visit = (blocks: Block[], heading: string | null, header: boolean) => {
    for (const block of blocks) {
      const found =
        block.type === "list" ? block.items.flatMap((item) => item.pictures) : block.type === "table" ? [...block.header, ...block.rows.flat()].flatMap((cell) => cell.pictures) : block.type === "code" ? [] : block.pictures;
      for (const picture of found) add(picture, heading, header);
    }
  };
  visit(outline.intro, null, true);
  for (const section of outline.sections) visit(section.blocks, section.heading, false);
  return images;
}

const DOWNLOAD = /\bdownload\b|\bget (?:it )?(?:for|on)\b/i;

/**
 * The README's own call to action: a Download link (its text, or "Download" when the text is
 * long). Links under a Download section come first; a link to the repository's releases counts.
 */
export function downloadLink(links: ReadmeLink[]): { label: string; href: string } | null {
  const found =
    links.find((link) => DOWNLOAD.test(link.label)) ??
    links.find((link) => link.heading !== null && /^downloads?\b/i.test(link.heading) && /\/releases\b|download/i.test(link.href));
  if (!found) return null;
  const label = found.label.length <= 40 && DOWNLOAD.test(found.label) ? found.label : "Download";
  return { label, href: found.href };
}
