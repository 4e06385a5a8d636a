import type { Block } from "./flow.js";
import type { ResolveLink } from "./inline-text.js";
import { absolute, type ReadmeLink, type RepositoryAddresses } from "./media.js";
import type { Outline } from "./sections.js";

/**
 * The README's links: every one with its text and absolute address (a relative one leads to the
 * repository's file on its host), and the destinations a page's buttons can use before the
 * repository: the download page, the homepage, a live demo, the documentation.
 */

export type DestinationKind = "download" | "homepage" | "demo" | "docs";

export interface ReadmeDestination {
  kind: DestinationKind;
  /** The README's own words for it when short, else a plain name ("Documentation"). */
  label: string;
  href: string;
}

/** Relative addresses lead to the repository's files on its host; anchors and mail lead nowhere a page can link. */
export function linkResolver(addresses: RepositoryAddresses | null): ResolveLink {
  return (href) => {
    const target = absolute(href, addresses?.page ?? null);
    return target && /^https?:\/\//i.test(target) ? target : null;
  };
}

/** Every link of the README with text, in order, with the heading it is under. */
export function readLinks(outline: Outline, resolve: ResolveLink): ReadmeLink[] {
  const out: ReadmeLink[] = [];
  const add = (blocks: Block[], heading: string | null) => {
    for (const block of blocks) {
      const found =
        block.type === "list" ? block.items.flatMap((item) => item.links) : block.type === "table" ? [...block.header, ...block.rows.flat()].flatMap((cell) => cell.links) : block.type === "code" ? [] : block.links;
      for (const link of found) {
        const href = resolve(link.href);
        const label = link.label.replace(/\s+/g, " ").trim();
        if (href && label && out.length < 300) out.push({ label, href, heading });
      }
    }
  };
  add(outline.intro, null);
  for (const section of outline.sections) add(section.blocks, section.heading);
  return out;
}

const KINDS: [DestinationKind, RegExp, string][] = [
  ["download", /\bdownloads?\b|\bget (?:it )?(?:for|on)\b|\binstallers?\b/i, "Download"],
  ["homepage", /\b(?:website|homepage|home page|official site|web ?site|landing page)\b/i, "Website"],
  ["demo", /\b(?:live demo|demo|playground|try it(?: online| now)?|try online)\b/i, "Live demo"],
  ["docs", /\b(?:docs|documentation|user guide|guide|manual|handbook|read the docs|api reference|wiki)\b/i, "Documentation"],
];

/** Places that are not the product's own destinations: chat, social networks, the repository's issues, badges' services. */
const ELSEWHERE =
  /(?:^|\.)(?:twitter\.com|x\.com|discord\.gg|discord\.com|t\.me|gitter\.im|slack\.com|reddit\.com|facebook\.com|linkedin\.com|youtube\.com|mastodon\.social|shields\.io|opencollective\.com|patreon\.com|ko-fi\.com|buymeacoffee\.com|star-history\.com)$/i;

const CODE_HOSTS = /(?:^|\.)(?:github\.com|gitlab\.com|bitbucket\.org|githubusercontent\.com|npmjs\.com|pypi\.org|crates\.io|docs\.rs|pkg\.go\.dev)$/i;

const hostOf = (href: string) => {
  try {
    return new URL(href).hostname.replace(/^www\./, "");
  } catch {
    return "";
  }
};

/**
 * The README's destinations, one of each kind, in the order buttons use them: download, homepage,
 * demo, docs. A link counts by its text ("Documentation", "Download for macOS"), or by its address
 * (a releases page, a docs site).
 */
export function destinations(links: ReadmeLink[], repositoryUrl: string, name = ""): ReadmeDestination[] {
  const repository = repositoryUrl.replace(/\.git$/, "").replace(/\/$/, "").toLowerCase();
  const out: ReadmeDestination[] = [];
  // The product's own site: a host named after it (pnpm.io, scrapy.org), not a code or package host.
  const product = name.toLowerCase().replace(/[^a-z0-9]/g, "");
  const ownSite = (href: string) => {
    const host = hostOf(href).toLowerCase();
    return product.length >= 3 && !CODE_HOSTS.test(host) && !ELSEWHERE.test(host) && host.replace(/[^a-z0-9]/g, "").includes(product);
  };
  for (const [kind, pattern, name] of KINDS) {
    // A link that says what it is comes first ("Download for macOS" before "Installer" under Download).
    const named = links.find((link) => !ELSEWHERE.test(hostOf(link.href)) && pattern.test(link.label) && (kind === "download" || !link.href.toLowerCase().startsWith(repository)));
    const found = named ?? links.find((link) => {
      if (ELSEWHERE.test(hostOf(link.href))) return false;
      const own = repository && link.href.toLowerCase().startsWith(repository);
      if (kind === "download") return pattern.test(link.label) || (own && /\/releases(?:\/|$)/.test(link.href)) || (link.heading !== null && /^downloads?\b/i.test(link.heading));
      // The repository's own files are no homepage, demo or docs site ("docs/" in the repository is, for docs).
      // A link written as its address ("https://github.com/tmux/tmux/wiki") counts by that address.
      const written = link.label === link.href || /^https?:\/\//.test(link.label);
      if (own) return kind === "docs" && (written || (pattern.test(link.label) && !/[/.]/.test(link.label))) && /\/(?:docs?|documentation|wiki)(?:\/(?:README\.md)?)?$/i.test(link.href);
      const namedOther = KINDS.some(([other, otherPattern]) => other !== "homepage" && otherPattern.test(link.label));
      if (kind === "homepage" && ownSite(link.href) && !namedOther && !/^docs?\./.test(hostOf(link.href)) && new URL(link.href).pathname.length <= 1) return true;
      if (kind === "docs" && (/^docs\.|readthedocs\.io$|\.readthedocs\.org$|^pkg\.go\.dev$|^docs\.rs$/.test(hostOf(link.href)))) return true;
      return pattern.test(link.label);
    });
    if (!found || out.some((existing) => existing.href === found.href)) {
      // A README that links only pages of the product's own site (pnpm.io/installation) has that site as its homepage.
      const page = kind === "homepage" && !found ? links.find((link) => ownSite(link.href) && !/^docs?\./.test(hostOf(link.href)) && !KINDS.some(([, otherPattern]) => otherPattern.test(link.label))) : undefined;
      if (page) out.push({ kind, label: name, href: new URL(page.href).origin });
      continue;
    }
    const short = found.label.length <= 30 && found.label.split(/\s+/).length <= 4 && pattern.test(found.label);
    out.push({ kind, label: short ? found.label : name, href: found.href });
  }
  return out;
}
