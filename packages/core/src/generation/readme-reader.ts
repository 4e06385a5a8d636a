import { isElement, inlineText, type ResolveLink } from "./readme/inline-text.js";
import { readFeatures, type ReadmeFeature } from "./readme/feature-list.js";
import { readFlow, type Block, type Inline } from "./readme/flow.js";
import { readInstall, sampleLanguage } from "./readme/install.js";
import { destinations, linkResolver, readLinks, type ReadmeDestination } from "./readme/links.js";
import { readPictures, repositoryAddresses, type ReadmeImage, type ReadmeLink } from "./readme/media.js";
import { markdownTree, parseReadme } from "./readme/parse.js";
import { readQuestions, type ReadmeQuestion } from "./readme/questions.js";
import { isPromotionOrNotice } from "./readme/promotions.js";
import { deepFreeze, Recent } from "./readme/recent.js";
import { isProse, leadsOf, sectionText, type ReadmeLead } from "./readme/section-text.js";
import { outline, type SectionRole } from "./readme/sections.js";
import { taglineCandidates } from "./readme/taglines.js";

export type { ReadmeImage, ReadmeLink } from "./readme/media.js";
export type { ReadmeDestination, DestinationKind } from "./readme/links.js";
export type { ReadmeFeature } from "./readme/feature-list.js";
export type { ReadmeQuestion } from "./readme/questions.js";
export type { ReadmeLead } from "./readme/section-text.js";
export type { SectionRole } from "./readme/sections.js";
export { roleOf } from "./readme/sections.js";
export { isInstallCommand } from "./readme/install.js";

/**
 * Reads a README into facts the README author (and the AI author's prompt) build pages from. The
 * README is parsed into a syntax tree (Markdown with GitHub's extensions, its HTML in the same
 * tree; reStructuredText and AsciiDoc through a simple rewrite to Markdown), and each fact is a
 * small reader over the tree's blocks (readme/*). Text fields keep the README's links as
 * `[label](https://…)` and its code as `code`; titles are plain. Never throws; bounded work.
 */

export interface ReadmeSection {
  /** The heading as plain text. */
  heading: string;
  /** 1 for a top-level heading, up to 6. */
  level: number;
  role: SectionRole;
  /** Paragraphs with "\n\n" between them; list items as "- item" lines; links as `[label](href)`. */
  text: string;
  /** Code blocks, in order, as written. */
  code: string[];
  /** The section's top-level list items. */
  items: string[];
  /** The section's tables (benchmarks, requirements, download tables), cells as text with links. */
  tables: ReadmeTable[];
  /** Paragraphs that end with a colon, and what follows each in the README: what they introduce. */
  leads: ReadmeLead[];
}

export interface ReadmeTable {
  header: string[];
  rows: string[][];
}

export interface ReadmeFacts {
  /** The document title (a leading top-level heading), else the fallback name, else null. */
  title: string | null;
  /** The best tagline candidate, else the fallback description. */
  tagline: string | null;
  /** The README's one-liner candidates, best first (see readme/taglines.ts). */
  taglines: string[];
  /** Paragraphs before the first section that say something (no link rows, notices or captions). */
  intro: string[];
  sections: ReadmeSection[];
  /** Bullets under Features/Highlights/Why/What it does, else a leading feature list. */
  features: ReadmeFeature[];
  /** Code under Install/Installation/Getting started/Setup; else install commands found elsewhere. */
  install: string[];
  /** The prose of the first install section. */
  installText: string;
  /** Code under Usage/Example(s)/Quick start. */
  usage: string[];
  /** The prose of the first usage section. */
  usageText: string;
  /** Headings ending in "?", and questions under an FAQ section. */
  faq: ReadmeQuestion[];
  /** A recognised license name such as "MIT" or "Apache-2.0"; null when none is stated. */
  license: string | null;
  /** The language of the README's code samples; null when unclear. */
  language: string | null;
  /** Pictures (badges left out), addresses absolute, in the README's order. */
  images: ReadmeImage[];
  /** Links with text, addresses absolute, in order. */
  links: ReadmeLink[];
  /** Where the README sends visitors: download, homepage, demo, docs (one of each at most, in that order). */
  destinations: ReadmeDestination[];
  /** True when the README was longer than the reader looks at. */
  truncated: boolean;
}

export interface ReadmeFallback {
  name?: string;
  description?: string;
  /** The repository's address and branch, to make the README's relative addresses absolute. */
  repositoryUrl?: string;
  defaultBranch?: string;
  /** The product's name, to know its own site among the README's links (pnpm.io for pnpm); not a title. */
  productName?: string;
}

/**
 * Work limits. A README longer than this is read up to here (the longest READMEs of well-known
 * projects are under it; lists of links can be longer, and their start says what they are).
 */
export const README_READ_LIMIT = 100_000;
const MAX_LINES = 3000;
const MAX_INLINE = 6000;
/** A line, and a run of lines without a blank one (a paragraph): Markdown's inline parsing is not linear on junk, so neither is unbounded. */
const MAX_LINE = 10_000;
const MAX_RUN = 20_000;

export interface PlainTextOptions {
  /** Keep code spans as `code` (page bodies render them); by default the marks are removed. */
  keepCode?: boolean;
  /** Keep links as `[label](href)`, resolved by this function. */
  resolve?: ResolveLink;
}

/** Markdown inline text (with HTML) as plain text: links become their text, pictures and tags go, entities are decoded. */
export function plainText(raw: string, options: PlainTextOptions = {}): string {
  const tree = markdownTree(raw.length > MAX_INLINE ? raw.slice(0, MAX_INLINE) : raw);
  return inlineText(tree.children.filter((node) => !isElement(node, "pre")) as never, options);
}

/** Plain text that keeps code spans as `code`: for fields the pages render with inline code. */
export const richText = (raw: string) => plainText(raw, { keepCode: true });

/** Removes `code` marks, for titles and other fields shown as they are. */
export const stripCode = (text: string) => text.replace(/`([^`\n]+)`/g, "$1");

/** Removes `[label](href)` link marks, keeping the label: for text shown where links are not rendered. */
export const withoutLinks = (text: string) => text.replace(/(?<!!)\[([^[\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*\)/g, "$1");

const LEADING_EMOJI = /^(?:[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u{FE0F}\u{200D}\u{20E3}]\s*)+/u;

/** Removes emoji at the start of a title ("🚀 Fast" → "Fast"). */
export function stripLeadingEmoji(text: string): string {
  return text.replace(LEADING_EMOJI, "").trim();
}

/**
 * Shortens `text` to at most `max` characters: at the last sentence end if that keeps at least
 * half, else at the last word boundary with an ellipsis.
 */
export function clip(text: string, max: number): string {
  const s = text.trim();
  if (s.length <= max) return s;
  let sentenceEnd = -1;
  for (const match of s.matchAll(/[.!?。！？]["'”’)]*(?=\s|$)/g)) {
    const end = match.index + match[0].length;
    if (end > max) break;
    sentenceEnd = end;
  }
  if (sentenceEnd >= max * 0.5) return s.slice(0, sentenceEnd).trim();
  const room = s.slice(0, max - 1);
  let cut = room.search(/\s\S*$/);
  if (cut < max * 0.3) cut = max - 1;
  const head = s.slice(0, cut).replace(/[\s,;:–—(-]+$/, "");
  return `${head || s.slice(0, max - 1)}…`;
}

/** Shortens code to at most `max` characters at a line end. */
export function clipCode(code: string, max: number): string {
  if (code.length <= max) return code;
  const cut = code.lastIndexOf("\n", max);
  return (cut > 0 ? code.slice(0, cut) : code.slice(0, max)).trimEnd();
}

const ABBREVIATION = /(?:^|\s)(?:e\.g|i\.e|etc|vs|cf|approx|incl|esp|no|dr|mr|mrs|ms|st|jr|sr|fig|ca|resp)$/i;

/** The first sentence of a text (the whole text when it has one sentence). */
export function firstSentence(text: string): string {
  const s = text.trim();
  for (const match of s.matchAll(/[.!?。！？]["'”’)]*(?=\s+\S)/g)) {
    if (match[0][0] === "." && ABBREVIATION.test(s.slice(Math.max(0, match.index - 10), match.index))) continue;
    return s.slice(0, match.index + match[0].length).trim();
  }
  return s;
}

/** A README table as header and rows, within the page schema's limits; none when a cell is too long. */
function tableOf(block: Extract<Block, { type: "table" }>): ReadmeTable[] {
  // A cell whose links make it too long keeps its words.
  const cell = (inline: Inline, max: number) => (inline.text.length <= max ? inline.text : inline.plain);
  const header = block.header.slice(0, 8).map((inline) => cell(inline, 120));
  if (!header.length || header.some((text) => text.length > 120)) return [];
  const rows = block.rows
    .map((row) => row.slice(0, 8).map((inline) => cell(inline, 300)))
    .filter((row) => row.some(Boolean))
    .slice(0, 40);
  if (!rows.length || rows.some((row) => row.some((text) => text.length > 300))) return [];
  return [{ header, rows: rows.map((row) => header.map((_text, index) => row[index] ?? "")) }];
}

const emptyFacts = (fallback: ReadmeFallback | undefined, truncated = false): ReadmeFacts => ({
  title: fallback?.name?.trim() || null,
  tagline: fallback?.description?.trim() || null,
  taglines: [],
  intro: [],
  sections: [],
  features: [],
  install: [],
  installText: "",
  usage: [],
  usageText: "",
  faq: [],
  license: null,
  language: null,
  images: [],
  links: [],
  destinations: [],
  truncated,
});

/** The README's text, bounded: line ends normalised, front matter left out, cut at the read limit. */
function boundedSource(text: string): { source: string; truncated: boolean } {
  let source = text.replace(/\r\n?/g, "\n").replace(/^\uFEFF/, "").replace(/\u0000/g, "\uFFFD");
  let truncated = false;
  if (source.length > README_READ_LIMIT) {
    const cut = source.lastIndexOf("\n", README_READ_LIMIT);
    source = source.slice(0, cut > 0 ? cut : README_READ_LIMIT);
    truncated = true;
  }
  let lines = source.split("\n");
  if (lines.length > MAX_LINES) {
    lines = lines.slice(0, MAX_LINES);
    truncated = true;
  }
  lines = boundedRuns(lines);
  if (lines[0]?.trim() === "---") {
    const end = lines.findIndex((line, index) => index > 0 && index < 60 && /^(?:---|\.\.\.)\s*$/.test(line));
    if (end > 0 && lines.slice(1, end).every((line) => !line.trim() || /^[\w"'-][^:]*:|^\s|^-/.test(line))) lines = lines.slice(end + 1);
  }
  return { source: lines.join("\n"), truncated };
}

/** Lines cut to {@link MAX_LINE}; a run of non-blank lines outside code fences cut after {@link MAX_RUN} characters. */
function boundedRuns(lines: string[]): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  let run = 0;
  for (const whole of lines) {
    const line = whole.length > MAX_LINE ? whole.slice(0, MAX_LINE) : whole;
    const mark = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (mark && mark[0] === fence[0] && mark.length >= fence.length) fence = null;
      out.push(line);
      continue;
    }
    if (mark) fence = mark;
    run = line.trim() ? run + line.length : 0;
    if (run <= MAX_RUN) out.push(line);
  }
  return out;
}

/** The facts of the last few READMEs read: every page of a generation reads the same README. */
const recentFacts = new Recent<ReadmeFacts>(8);

/**
 * Reads a README. Never throws: an empty or null README gives the fallback's name and
 * description and nothing else. At most {@link README_READ_LIMIT} characters are read. The
 * answer is shared with later reads of the same README and fallback, so it is frozen.
 */
export function readReadme(text: string | null | undefined, fallback?: ReadmeFallback): ReadmeFacts {
  if (!text || !text.trim()) return emptyFacts(fallback);
  const f = fallback ?? {};
  const key = JSON.stringify([f.name, f.description, f.repositoryUrl, f.defaultBranch, f.productName, text]);
  return recentFacts.get(key, () => deepFreeze(readFacts(text, fallback)));
}

function readFacts(text: string, fallback: ReadmeFallback | undefined): ReadmeFacts {
  const { source, truncated } = boundedSource(text);
  const addresses = fallback?.repositoryUrl ? repositoryAddresses(fallback.repositoryUrl, fallback.defaultBranch ?? "") : null;
  const resolve = linkResolver(addresses);
  const blocks = readFlow(parseReadme(source), resolve);
  const name = fallback?.productName ?? fallback?.name ?? "";
  const read = outline(blocks, name);

  const sections: ReadmeSection[] = read.sections
    .filter((section) => section.heading)
    .map((section) => ({
      heading: section.heading,
      level: section.level,
      role: section.role,
      text: sectionText(section.blocks),
      code: section.blocks.flatMap((block) => (block.type === "code" && block.code.trim() ? [block.code] : [])),
      items: section.blocks.flatMap((block) => (block.type === "list" && !block.navigation ? block.items.filter((item) => item.depth === 0 && item.text).map((item) => item.text) : [])),
      tables: section.blocks.flatMap((block) => (block.type === "table" ? tableOf(block) : [])),
      leads: leadsOf(section.blocks),
    }));
  const taglines = taglineCandidates(read, name || read.title || "");
  const install = readInstall(read, blocks);
  const links = readLinks(read, resolve);
  return {
    title: read.title ?? (fallback?.name?.trim() || null),
    tagline: taglines[0] ?? (fallback?.description?.trim() || null),
    taglines,
    // Notices, thanks and the README about itself open no page.
    intro: read.intro.filter(isProse).filter((block) => !isPromotionOrNotice(block.plain, name)).map((block) => block.text),
    sections,
    features: readFeatures(read),
    install: install.install,
    installText: install.installText,
    usage: install.usage,
    usageText: install.usageText,
    faq: readQuestions(read),
    license: readLicense(read, blocks),
    language: sampleLanguage(install, blocks),
    images: readPictures(read, addresses, name),
    links,
    destinations: destinations(links, fallback?.repositoryUrl ?? "", fallback?.productName ?? fallback?.name ?? read.title ?? ""),
    truncated,
  };
}

/** The license section's license, else a license badge's, else one a sentence names ("licensed under the ISC license"). */
function readLicense(read: ReturnType<typeof outline>, blocks: Block[]): string | null {
  const section = read.sections.find((candidate) => candidate.role === "license");
  const fromSection = section ? detectLicense(`${section.heading} ${sectionText(section.blocks)}`) : null;
  if (fromSection) return fromSection;
  const inlines = blocks.flatMap((block): Inline[] => (block.type === "paragraph" ? [block] : block.type === "list" ? block.items : block.type === "table" ? [...block.header, ...block.rows.flat()] : []));
  const badges = inlines
    .flatMap((inline) => inline.pictures)
    .flatMap((picture) => {
      const src = safeDecode(picture.src);
      const badge = /badge\/licen[cs]e-([^-)\s]+)/i.exec(src)?.[1]?.replace(/_/g, " ") ?? "";
      return /licen[cs]e/i.test(picture.alt) || badge ? [`${/licen[cs]e/i.test(picture.alt) ? picture.alt : ""} ${badge}`] : [];
    });
  const sentences = inlines.flatMap((inline) => [...inline.plain.matchAll(/(?:licensed under|released under|distributed under)[^.\n]{0,80}/gi)].map((match) => match[0]));
  return detectLicense([...badges, ...sentences].join(" "));
}

const LICENSES: [string, RegExp][] = [
  ["AGPL-3.0", /\bAGPL[\s-]?v?3|\bGNU Affero General Public License\b/i],
  ["LGPL-3.0", /\bLGPL[\s-]?v?3|\bGNU Lesser General Public License,? v(?:ersion)?\s?3/i],
  ["LGPL-2.1", /\bLGPL[\s-]?v?2|\bGNU Lesser General Public License/i],
  ["GPL-3.0", /\bGPL[\s-]?v?3|\bGNU General Public License,? v(?:ersion)?\s?3/i],
  ["GPL-2.0", /\bGPL[\s-]?v?2|\bGNU General Public License,? v(?:ersion)?\s?2/i],
  ["Apache-2.0", /\bApache(?:[\s-]License)?[\s,-]*(?:v(?:ersion)?\s?)?2(?:\.0)?\b|\bApache[\s-]2\b/i],
  ["MPL-2.0", /\bMPL[\s-]?v?2|\bMozilla Public License/i],
  ["BSD-3-Clause", /\bBSD[\s-]3[\s-]Clause|\b3[\s-]Clause BSD|\bNew BSD\b/i],
  ["BSD-2-Clause", /\bBSD[\s-]2[\s-]Clause|\b2[\s-]Clause BSD|\bSimplified BSD\b/i],
  ["EPL-2.0", /\bEPL[\s-]?v?2|\bEclipse Public License/i],
  ["EUPL-1.2", /\bEUPL\b/i],
  ["Unlicense", /\bUnlicen[sc]e\b/i],
  ["CC0-1.0", /\bCC0\b/i],
  ["ISC", /\bISC\b/],
  ["Zlib", /\bzlib license\b/i],
  ["BSL-1.0", /\bBoost Software License\b|\bBSL[\s-]1\.0\b/i],
  ["MIT", /\bMIT\b/],
  ["BSD", /\bBSD\b/],
];

/** A license name found in a text, or null. */
export function detectLicense(text: string): string | null {
  for (const [name, pattern] of LICENSES) if (pattern.test(text)) return name;
  return null;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
