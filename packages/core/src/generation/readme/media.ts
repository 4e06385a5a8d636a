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
  /** A logo, icon or wordmark rather than a screenshot. */
  logo: boolean;
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

interface Scan {
  images: ReadmeImage[];
  links: ReadmeLink[];
}

const attribute = (tag: string, name: string) =>
  new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag)?.slice(1).find((value) => value !== undefined) ?? null;

const plainLabel = (text: string) =>
  text
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/<[^>]+>/g, "")
    .replace(/[*_`~]/g, "")
    .replace(/:[a-z0-9_+-]+:/gi, "")
    .replace(/[\p{Extended_Pictographic}\u{FE0F}\u{200D}]/gu, "")
    .replace(/\s+/g, " ")
    .trim();

/**
 * Scans the README for pictures and links, line by line, skipping code blocks. Link reference
 * definitions (`[logo]: docs/logo.png`) are followed.
 */
export function scanMedia(source: string, addresses: RepositoryAddresses | null): Scan {
  const lines = source.slice(0, 200_000).split("\n");
  const definitions = new Map<string, string>();
  for (const line of lines) {
    const definition = /^\s{0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (definition) definitions.set(definition[1]!.toLowerCase(), definition[2]!);
  }
  const images: ReadmeImage[] = [];
  const links: ReadmeLink[] = [];
  const seen = new Set<string>();
  let heading: string | null = null;
  let fence: string | null = null;
  let htmlLink: string | null = null;

  const addImage = (rawSrc: string, alt: string, linkHref: string | null, logoHint: boolean) => {
    const src = absolute(rawSrc, addresses?.raw ?? null);
    if (!src || seen.has(src) || images.length >= 40) return;
    seen.add(src);
    if (isBadge(src, alt, linkHref)) return;
    const file = src.split(/[?#]/)[0]!.split("/").pop() ?? "";
    images.push({ src, alt: plainLabel(alt).slice(0, 300), heading, logo: logoHint || LOGO.test(alt) || LOGO.test(file) });
  };
  const addLink = (label: string, rawHref: string) => {
    const href = absolute(rawHref, addresses?.page ?? null);
    const text = plainLabel(label);
    if (href && text && links.length < 200) links.push({ label: text, href, heading });
  };

  for (let index = 0; index < lines.length; index++) {
    // Bounded work on any input: a real line with pictures and links is short.
    const line = lines[index]!.slice(0, 4000);
    const fenceMark = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (fenceMark && fenceMark[0] === fence[0] && fenceMark.length >= fence.length) fence = null;
      continue;
    }
    if (fenceMark) {
      fence = fenceMark;
      continue;
    }
    const atx = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    const htmlHeading = /<h[1-6]\b[^>]*>([\s\S]*?)<\/h[1-6]>/i.exec(line);
    const setext = /^\s{0,3}(?:=+|-{2,})\s*$/.test(lines[index + 1] ?? "") && line.trim() && !/^\s*[-*+]\s/.test(line) && !/\|/.test(line);
    const headingText = atx?.[1] ?? (htmlHeading && plainLabel(htmlHeading[1]!) ? htmlHeading[1] : setext ? line : null);
    if (headingText && plainLabel(headingText)) heading = plainLabel(headingText.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")).replace(/^\d+(?:\.\d+)*[.)]\s+/, "");

    // Markdown pictures, linked or not, then links.
    const logoHint = heading === null && /<h1\b/i.test(line);
    for (const match of line.matchAll(/(\[\s*)?!\[([^\]]{0,300})\]\(\s*(<[^>]{1,2048}>|[^)\s]{1,2048})(?:\s+["'][^"']{0,300}["'])?\s*\)(?:\s*\]\(\s*([^)\s]{1,2048})[^)]{0,300}\))?/g)) {
      addImage(match[3]!, match[2]!, match[4] ?? htmlLink, logoHint);
    }
    for (const match of line.matchAll(/(\[\s*)?!\[([^\]]*)\]\[([^\]]*)\](?:\s*\]\(\s*([^)\s]+)[^)]*\))?/g)) {
      const target = definitions.get((match[3] || match[2]!).toLowerCase());
      if (target) addImage(target, match[2]!, match[4] ?? htmlLink, logoHint);
    }
    // HTML: <a href> opens a link that may hold an <img>.
    for (const tag of line.matchAll(/<a\b[^>]*>|<\/a>|<img\b[^>]*>/gi)) {
      const text = tag[0];
      if (/^<\/a>/i.test(text)) htmlLink = null;
      else if (/^<a\b/i.test(text)) htmlLink = attribute(text, "href");
      else {
        const src = attribute(text, "src");
        if (src) addImage(src, attribute(text, "alt") ?? "", htmlLink, logoHint || (heading === null && Number(attribute(text, "width") ?? "999") <= 256));
      }
    }
    for (const match of line.matchAll(/(?<!!)\[((?:!\[[^\]\n]{0,300}\]\([^)\s]{0,2048}\)|[^\][!\n]|!(?!\[)){1,400})\]\(\s*([^)\s]{1,2048})[^)]{0,300}\)/g)) {
      if (!/^\s*!\[/.test(match[1]!)) addLink(match[1]!, match[2]!);
    }
    for (const match of line.matchAll(/<a\b[^>]*\shref\s*=\s*["']([^"']+)["'][^>]*>([\s\S]*?)<\/a>/gi)) addLink(match[2]!, match[1]!);
  }
  return { images, links };
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
