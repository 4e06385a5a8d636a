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
    // "#gh-dark-mode-only" only tells GitHub which picture to show: no part of the address.
    return target && /^https?:\/\//i.test(target) ? target.replace(/#gh-(?:dark|light)-mode-only$/, "") : null;
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
  // "DMG Installer" or "Installer" is a download; "the package installer" in a sentence is not.
  ["download", /\bdownloads?\b|\bget (?:it )?(?:for|on)\b|\b(?:dmg|exe|msi|pkg|appimage|windows|macos|mac|linux|android|ios)\b.*\binstallers?\b|^installers?$/i, "Download"],
  ["homepage", /\b(?:website|homepage|home page|official site|web ?site|landing page)\b/i, "Website"],
  ["demo", /\b(?:live demo|demo|playground|try it(?: online| now)?|try online)\b/i, "Live demo"],
  ["docs", /\b(?:docs|documentation|user guide|guide|manual|handbook|read the docs|api reference|wiki)\b/i, "Documentation"],
];

/** Places that are not the product's own destinations: chat, social networks, the repository's issues, badges' and download counts' services. */
const ELSEWHERE =
  /(?:^|\.)(?:pepy\.tech|npmcharts\.com|npm-stat\.com|npmtrends\.com|pypistats\.org|twitter\.com|x\.com|discord\.gg|discord\.com|t\.me|gitter\.im|slack\.com|reddit\.com|facebook\.com|linkedin\.com|youtube\.com|mastodon\.social|shields\.io|opencollective\.com|patreon\.com|ko-fi\.com|buymeacoffee\.com|star-history\.com)$/i;

/** App stores and package registries: where a product's own downloads are. */
const STORES =
  /(?:^|\.)(?:apps\.apple\.com|play\.google\.com|microsoft\.com|flathub\.org|snapcraft\.io|f-droid\.org|formulae\.brew\.sh|chocolatey\.org|winget\.run|npmjs\.com|pypi\.org|crates\.io|aur\.archlinux\.org|hub\.docker\.com)$/i;

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
  // A download count ("npm downloads/month", "weekly downloads from npm") is no download page.
  const COUNT = /\b(?:npm|pypi|monthly|weekly|daily|total)\s+downloads?\b|\bdownloads?\s*(?:\/|per\s+)\s*(?:month|week|day)|\bdownloads? from\b/i;
  // Documentation is the product's own: on its repository, its site, or an address naming it (docs.rs/bat, docs.astral.sh/uv), not another project's.
  const ownDocs = (href: string) =>
    (repository && href.toLowerCase().startsWith(repository)) || ownSite(href) || (product.length >= 2 && new RegExp(`/${product}(?:[/?#.]|$)`, "i").test(href.replace(/[^a-z0-9/?#.]/gi, "")));
  links = links.filter((link) => !COUNT.test(link.label));
  // A download is the product's: from its repository or site, a store or package registry, or a link naming no other product ("download and install Node.js" is a prerequisite).
  const ownDownload = (link: ReadmeLink) =>
    (repository && link.href.toLowerCase().startsWith(repository)) ||
    ownSite(link.href) ||
    STORES.test(hostOf(link.href)) ||
    !/\b(?:install|download)\w*\s+(?:the\s+)?(?:latest\s+)?\p{Lu}/u.test(link.label) ||
    new RegExp(product, "i").test(link.label.replace(/[^a-z0-9]/gi, ""));
  for (const [kind, pattern, name] of KINDS) {
    // A link that says what it is comes first ("Download for macOS" before "Installer" under Download).
    const named = links.find(
      (link) =>
        !ELSEWHERE.test(hostOf(link.href)) &&
        pattern.test(link.label) &&
        (kind === "download" ? ownDownload(link) : !link.href.toLowerCase().startsWith(repository)) &&
        (kind !== "docs" || ownDocs(link.href)),
    );
    const found = named ?? links.find((link) => {
      if (ELSEWHERE.test(hostOf(link.href))) return false;
      const own = repository && link.href.toLowerCase().startsWith(repository);
      if (kind === "download") return (pattern.test(link.label) && ownDownload(link)) || (own && /\/releases(?:\/|$)/.test(link.href)) || (link.heading !== null && /^downloads?\b/i.test(link.heading));
      // The repository's own files are no homepage, demo or docs site ("docs/" in the repository is, for docs).
      // A link written as its address ("https://github.com/tmux/tmux/wiki") counts by that address.
      const written = link.label === link.href || /^https?:\/\//.test(link.label);
      if (own) return kind === "docs" && (written || (pattern.test(link.label) && !/[/.]/.test(link.label))) && /\/(?:docs?|documentation|wiki)(?:\/(?:README\.md)?)?$/i.test(link.href);
      const namedOther = KINDS.some(([other, otherPattern]) => other !== "homepage" && otherPattern.test(link.label));
      if (kind === "homepage" && ownSite(link.href) && !namedOther && !/^docs?\./.test(hostOf(link.href)) && new URL(link.href).pathname.length <= 1) return true;
      if (kind === "docs") return ownDocs(link.href) && (pattern.test(link.label) || /^docs\.|readthedocs\.io$|\.readthedocs\.org$|^pkg\.go\.dev$|^docs\.rs$/.test(hostOf(link.href)));
      return pattern.test(link.label);
    });
    if (!found || out.some((existing) => existing.href === found.href)) {
      // A README that links only pages of the product's own site (pnpm.io/installation) has that site as its homepage.
      const page = kind === "homepage" && !found ? links.find((link) => ownSite(link.href) && !/^docs?\./.test(hostOf(link.href)) && !KINDS.some(([, otherPattern]) => otherPattern.test(link.label))) : undefined;
      if (page) out.push({ kind, label: name, href: new URL(page.href).origin });
      continue;
    }
    // One platform's file of a release ("…/releases/latest/download/tool.exe") leads to the release, where every platform's file is.
    const release = /^(.*\/releases\/(?:latest|tag\/[^/]+))\/download\/[^/]+$/.exec(found.href)?.[1] ?? /^(.*\/releases)\/download\/[^/]+\/[^/]+$/.exec(found.href)?.[1];
    if (kind === "download" && release) {
      if (!out.some((existing) => existing.href === release)) out.push({ kind, label: name, href: release });
      continue;
    }
    const short = found.label.length <= 30 && found.label.split(/\s+/).length <= 4 && pattern.test(found.label) && !/^https?:\/\/|\.\w{2,}(?:\/|$)/.test(found.label);
    out.push({ kind, label: short ? found.label : name, href: found.href });
  }
  return out;
}
