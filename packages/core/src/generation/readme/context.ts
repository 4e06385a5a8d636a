import type { PageRequest } from "../page-author.js";
import { readmeCasing } from "../name-casing.js";
import { repositoryLabel } from "../repository-label.js";
import { isInstallCommand, readReadme, withoutLinks, type ReadmeFacts, type ReadmeSection } from "../readme-reader.js";
import { keepIntroduced, type Shown } from "./introductions.js";
import { sentences, wholeText } from "./whole-text.js";

/** What every page builder of the README author reads: the request, the README's facts, and names. */
export interface Context {
  request: PageRequest;
  facts: ReadmeFacts;
  /** The product name, in the README's casing when it matches the repository's name. */
  name: string;
  saas: boolean;
  /** "GitHub", "GitLab", … or null for another host. */
  host: string | null;
  /** The repository address without the scheme, for plain text; a local folder's name only (`repositoryLabel`). */
  repo: string;
  /** The repository's description (the owner's own words), "" when there is none. */
  description: string;
  /** The README's opening statement, else the description; null when neither says anything. */
  summary: string | null;
  license: string | null;
  language: string | null;
  /** The README's install section (a heading that says so), or null: no install block is made up. */
  installSection: ReadmeSection | null;
  /** Install commands from that section's code, as written (without a "$ " prompt). */
  installCommands: string[];
  /** The README's own Download link, or null. */
  download: { label: string; href: string } | null;
  /**
   * Where the hero's button leads before the repository: the README's download page, homepage,
   * live demo or documentation (the first it has, in that order); null when it links none.
   */
  primary: { label: string; href: string } | null;
  /** The README's documentation, when the hero's button leads elsewhere: the second button. */
  docs: { label: string; href: string } | null;
}

const HOSTS: Record<string, string> = {
  "github.com": "GitHub",
  "gitlab.com": "GitLab",
  "bitbucket.org": "Bitbucket",
  "codeberg.org": "Codeberg",
  "git.sr.ht": "SourceHut",
};

export function clean(text: string | null | undefined): string {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

export function createContext(request: PageRequest): Context {
  const { product } = request;
  // GitHub shows ":cherry_blossom:" in a description as its emoji: a page shows neither.
  const described = clean(product.description.replace(/(^|\s):[a-z0-9_+-]+:(?=\s|$)/gi, "$1"));
  // "tmux source code", "Mirror of …": a description of the repository, not of the product.
  const description = /^(?:\S+\s+)?(?:source(?: code)?|mirror|repository|repo|code)\.?$|^(?:official\s+)?(?:mirror|repository|repo|source code)\s+(?:of|for)\b/i.test(described) ? "" : described;
  const facts = readReadme(request.readme, { productName: clean(product.name), description, repositoryUrl: product.repositoryUrl, defaultBranch: product.defaultBranch });
  let hostname = "";
  try {
    hostname = new URL(product.repositoryUrl).hostname.replace(/^www\./, "");
  } catch {
    hostname = "";
  }
  const repoName = /\/([^/]+?)(?:\.git)?\/?$/.exec(product.repositoryUrl)?.[1] ?? "";
  const name = readmeCasing(clean(product.name), repoName, facts.title, request.readme) || facts.title || repoName || "This project";
  const installSection = facts.sections.find((section) => section.role === "install") ?? null;
  const installCommands = installSection
    ? facts.install
        .flatMap((code) => code.split("\n"))
        .filter(isInstallCommand)
        .map((line) => line.trim().replace(/^\$\s*/, ""))
    : [];
  return {
    request,
    facts,
    name,
    saas: request.type === "saas",
    host: HOSTS[hostname] ?? null,
    repo: repositoryLabel(product.repositoryUrl),
    description,
    summary: facts.tagline,
    license: facts.license,
    // From the repository's files (GenerationService), never guessed from the README's samples or topics.
    language: product.language ?? null,
    installSection,
    installCommands,
    ...destinationButtons(facts),
  };
}

// ---------------------------------------------------------------------------------------------
// Text helpers

const normalize = (text: string) => withoutLinks(text).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
export { normalize as normal };

/** True when two texts say the same thing (one contains the other, ignoring case and punctuation). */
export function similar(a: string, b: string): boolean {
  const x = normalize(a);
  const y = normalize(b);
  return Boolean(x && y) && (x.includes(y) || y.includes(x));
}

export const capitalize = (text: string) => (text ? text[0]!.toUpperCase() + text.slice(1) : text);

/**
 * Ends a README text with a full stop unless it already ends a sentence (or a list); a closing
 * bracket or quote ends one only after a sentence mark ("(optional)" becomes "(optional).").
 */
export function sentence(text: string): string {
  const s = text.trim().replace(/[:;,]$/, "");
  if (/\n\s*-\s/.test(s) || /^-\s/.test(s)) return s;
  return /[.!?…。！？]["'”’)\]]*$/.test(s) ? s : `${s}.`;
}

/** Paragraphs of a README section's text that are prose (not list lines). */
export function paragraphs(text: string): string[] {
  return text
    .split("\n\n")
    .map((part) => part.trim())
    .filter((part) => part && !/^\s*-\s/.test(part));
}

/**
 * A README section's text, whole or cut to whole paragraphs/sentences that fit; "" when none fits.
 * An introduction ("…:") stays only with what it introduces (`shown`: what the page shows after the text).
 */
export function sectionBody(section: ReadmeSection, max: number, shown: Shown = new Set()): string {
  const body = wholeText(section.text, max) ?? wholeText(paragraphs(section.text)[0] ?? "", max) ?? "";
  return keepIntroduced(body, section.leads, shown);
}

/** The first sentence of a README text. */
export const firstOf = (text: string) => sentences(text)[0] ?? "";

/** A command or file name as inline code, for fields the pages render with `code` spans. */
export const code = (text: string) => (text.includes("`") ? text : `\`${text}\``);

/** What can be said of a project with neither a README nor a description: true of the site itself. */
export function fallbackSummary(context: Context): string {
  return projectLine(context.name, context.saas, context.host);
}

/** A closing band's text when every README text is on the page already: where to go next, true of the site itself. */
export function closingLine(context: Context): string {
  return sourceLine(context.name, context.saas, context.host);
}

const projectLine = (name: string, saas: boolean, host: string | null) =>
  saas ? `${name} runs in your browser: open the app on this site.` : `${name} is a project ${host ? `on ${host}` : "in its repository"}.`;

const sourceLine = (name: string, saas: boolean, host: string | null) =>
  saas ? "Sign in to open the app, or create an account." : `The source of ${name} is ${host ? `on ${host}` : "in its repository"}.`;

/** Every sentence `fallbackSummary` and `closingLine` may write for a product name, whatever the site's type and host. */
export function frameLines(name: string): string[] {
  return [true, false].flatMap((saas) => [null, ...Object.values(HOSTS)].flatMap((host) => [projectLine(name, saas, host), sourceLine(name, saas, host)]));
}

/** The README's destinations as buttons: a download first, else its homepage, demo or docs; the docs second. */
function destinationButtons(facts: ReadmeFacts): Pick<Context, "download" | "primary" | "docs"> {
  const button = (kind: string) => {
    const found = facts.destinations.find((destination) => destination.kind === kind);
    return found ? { label: found.label.slice(0, 40), href: found.href } : null;
  };
  // A download leads when the README names one (a desktop app); else the product's own site, docs or demo, then its releases.
  const named = facts.destinations.filter((destination) => destination.kind !== "download" || /download|get it|installer/i.test(destination.label));
  const order = ["download", "homepage", "docs", "demo"];
  const first = [...named].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind))[0] ?? facts.destinations[0];
  const primary = first ? { label: first.label.slice(0, 40), href: first.href } : null;
  const docs = button("docs");
  // The second button: the docs, else the product's site (a saas site's first button opens the app).
  const second = [docs, button("homepage"), button("demo")].find((candidate) => candidate && candidate.href !== primary?.href) ?? null;
  return { download: button("download"), primary, docs: second };
}
