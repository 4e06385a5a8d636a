import { repositoryAddresses, scanMedia, type ReadmeImage, type ReadmeLink } from "./readme/media.js";

export type { ReadmeImage, ReadmeLink } from "./readme/media.js";

/**
 * Reads a README into facts the README author (and tests) can build pages from. Not a full
 * Markdown parser: a line-based reader for what READMEs really contain (Markdown with badges,
 * HTML headers, tables, `<details>`, link reference definitions; the common bits of
 * reStructuredText and AsciiDoc), written to never throw and to do bounded work on any input.
 */

/** What a section is for, from its heading (a subsection without a role of its own takes its parent's). */
export type SectionRole =
  | "toc"
  | "install"
  | "usage"
  | "features"
  | "faq"
  | "license"
  | "contributing"
  | "support"
  | "requirements"
  | "overview"
  | "reference"
  | "meta"
  | "other";

export interface ReadmeSection {
  /** The heading as plain text. */
  heading: string;
  /** 1 for a top-level heading, up to 6. */
  level: number;
  role: SectionRole;
  /** Plain-text paragraphs with "\n\n" between them; list items as "- item" lines. */
  text: string;
  /** Code blocks, in order, as written. */
  code: string[];
  /** The section's top-level list items, plain text. */
  items: string[];
  /** The section's tables (benchmarks, requirements, comparisons), cells as plain text. */
  tables: ReadmeTable[];
  /** Paragraphs that end with a colon, and what follows each in the README: what they introduce. */
  leads: ReadmeLead[];
}

/** A paragraph that introduces what follows it ("Set up Stripe once:"), as it is in `text`. */
export interface ReadmeLead {
  text: string;
  /** What comes next: a list (kept in `text`), code, a table, a picture, more prose, or the section's end. */
  next: "list" | "code" | "table" | "picture" | "text" | "end";
}

export interface ReadmeTable {
  header: string[];
  rows: string[][];
}

export interface ReadmeFeature {
  /** A lead-in such as "**Fast** — …" or "Fast: …"; null when the bullet has none. */
  title: string | null;
  body: string;
  /** The bullet's own sub-items ("**Batteries included**:" and "sessions", "a test client"), when it has any. */
  items?: string[];
}

export interface ReadmeQuestion {
  question: string;
  answer: string;
}

export interface ReadmeFacts {
  /** The document title (a leading top-level heading), else the fallback name, else null. */
  title: string | null;
  /** The first real paragraph (badges, images, HTML, navigation lines skipped), else the fallback description. */
  tagline: string | null;
  /** Plain paragraphs before the first section, the tagline first. */
  intro: string[];
  sections: ReadmeSection[];
  /** Bullets under Features/Highlights/Why/What it does, else the first list that reads like features. */
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
  /** The main programming language, from code samples and install commands; null when unclear. */
  language: string | null;
  /** Screenshots and logos (badges left out), addresses absolute, in the README's order. */
  images: ReadmeImage[];
  /** Links with text, addresses absolute, in order. */
  links: ReadmeLink[];
  /** True when the README was longer than the reader looks at. */
  truncated: boolean;
}

export interface ReadmeFallback {
  name?: string;
  description?: string;
  /** The repository's address and branch, to make the README's relative addresses absolute. */
  repositoryUrl?: string;
  defaultBranch?: string;
}

/** Work limits: a README longer than this is read up to here. */
export const README_READ_LIMIT = 200_000;
const MAX_LINES = 6000;
const MAX_INLINE = 6000;
const MAX_SECTIONS = 300;
const MAX_SECTION_TEXT = 20_000;
const MAX_CODE = 20_000;
const MAX_NAVIGATION = 3000;

// ---------------------------------------------------------------------------------------------
// Plain text

const ENTITIES: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", copy: "©", reg: "®", trade: "™",
  hellip: "…", mdash: "—", ndash: "–", middot: "·", bull: "•", rarr: "→", larr: "←", laquo: "«",
  raquo: "»", rsquo: "’", lsquo: "‘", rdquo: "”", ldquo: "“", times: "×", check: "✓",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

export interface PlainTextOptions {
  /** Keep code spans as `code` (page bodies render them); by default the marks are removed. */
  keepCode?: boolean;
}

/**
 * Markdown (or rST/AsciiDoc) inline text to plain text: links become their text, images, HTML
 * tags, emoji shortcodes and footnote marks go, emphasis and code marks are removed, entities are
 * decoded and white space is collapsed.
 */
export function plainText(raw: string, options: PlainTextOptions = {}): string {
  let s = raw.length > MAX_INLINE ? raw.slice(0, MAX_INLINE) : raw;
  s = s.replace(/<!--[\s\S]*?(?:-->|$)/g, " ");
  // rST links first: their backticks would read as code spans.
  s = s.replace(/`([^`<\n]+?)\s*<[^>\n]+>`__?(?!\w)/g, "$1").replace(/(?<!`)`([^`\n]+)`__?(?![\w`])/g, "$1");
  s = s.replace(/:[a-z][\w+-]*(?::[\w+-]+)*:(?=`)/gi, "");
  const codes: string[] = [];
  s = s.replace(/(`+)(?!`)([^\n]*?[^`])\1(?!`)/g, (_whole, _ticks: string, code: string) => {
    codes.push(code.trim());
    return `\u0000${codes.length - 1}\u0000`;
  });
  s = s
    .replace(/!\[[^\]\n]*\]\([^)\n]*\)/g, "")
    .replace(/!\[[^\]\n]*\]\[[^\]\n]*\]/g, "")
    .replace(/\bimage:{1,2}\S+?\[[^\]\n]*\]/g, "")
    .replace(/\[([^\]\n]*)\]\((?:[^()\n]|\([^()\n]*\))*\)/g, "$1")
    .replace(/\[([^\]\n]+)\]\[[^\]\n]*\]/g, "$1")
    .replace(/\[\^[^\]\n]*\]/g, "")
    .replace(/<((?:https?|ftp|mailto):[^>\s]+)>/gi, "$1")
    .replace(/\blink:(\S+?)\[([^\]\n]*)\]/g, (_w, url: string, label: string) => label || url)
    .replace(/\b(https?:\/\/[^\s[\]]+)\[([^\]\n]*)\]/g, (_w, url: string, label: string) => label || url)
    .replace(/<br\s*\/?>/gi, " ")
    .replace(/<\/?[a-zA-Z][\w-]*(?:\s[^<>]*)?\/?>/g, "")
    .replace(/(?<![\w|])\|(?=[\w-])[\w-]+(?: [\w-]+)*\|_{0,2}(?![\w|])/g, "")
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, "$2")
    .replace(/(?<![\w*\\])\*(?=[^\s*])([^*\n]*?[^\s*\\])\*(?![\w*])/g, "$1")
    .replace(/(?<![\w\\])_(?=[^\s_])([^_\n]*?[^\s_\\])_(?![\w])/g, "$1")
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "$1")
    .replace(/^\s*\[[ xX]\]\s+/, "")
    .replace(/(^|[\s(>]):[a-z0-9_+-]+:(?=$|[\s).,!?;:<])/gi, "$1")
    .replace(/\\([!-/:-@[-`{-~])/g, "$1");
  s = decodeEntities(s);
  s = s.replace(/\u0000(\d+)\u0000/g, (_w, index: string) => {
    const code = codes[Number(index)] ?? "";
    return options.keepCode && code && !code.includes("`") ? `\`${code}\`` : code;
  });
  return s.replace(/\s+/g, " ").trim();
}

/** Plain text that keeps code spans as `code`: for fields the pages render with inline code. */
export const richText = (raw: string) => plainText(raw, { keepCode: true });

/** Removes `code` marks, for titles and other fields shown as they are. */
export const stripCode = (text: string) => text.replace(/`([^`\n]+)`/g, "$1");

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

// ---------------------------------------------------------------------------------------------
// Section roles

const ROLE_PATTERNS: [SectionRole, RegExp][] = [
  ["toc", /^(?:table of contents|contents|toc|index|navigation)$/i],
  ["faq", /^(?:faqs?|f\.a\.q\.?|frequently asked questions|common questions|questions(?: and answers)?|q ?& ?a|troubleshooting)\b/i],
  ["install", /^(?:install(?:ation|ing)?|get(?:ting)?[\s-]started|setup|set[\s-]?up|downloads?|how to install|quick install|run(?:ning)?(?: it)? locally|local setup|self[\s-]?host(?:ing|ed)?)\b/i],
  ["usage", /^(?:usage|examples?|quick[\s-]?start|quickstart|how to use|basic usage|using\b|tutorial|cli usage|api usage|command[\s-]line usage)|\busage\b/i],
  ["features", /^(?:(?:key |main |core )?features?|highlights?|why\b|what it does|what (?:does|can) .{1,40} do|capabilities|what'?s included|benefits|advantages)(?!\s*requests?)/i],
  ["license", /^(?:licen[cs]e|licensing|copyright)\b/i],
  ["contributing", /^(?:contribut|development|developing|building|build from source|hacking|testing|running tests|local development|how to contribute)/i],
  ["support", /^(?:support|help|getting help|community|contact|issues|bugs|reporting (?:bugs|issues)|feedback|get in touch)\b/i],
  ["requirements", /^(?:requirements|prerequisites|dependencies|system requirements|compatibility|supported platforms|platforms)\b/i],
  ["overview", /^(?:about|overview|introduction|intro|description|what is|summary|background|motivation|philosophy|how it works|concepts|architecture|design|goals)\b/i],
  ["reference", /^(?:api|api reference|reference|configuration|config|options|cli|commands|flags|arguments|parameters|environment variables|methods|props)\b/i],
  ["meta", /^(?:credits|acknowledg|thanks|authors?|maintainers?|contributors|sponsors?|backers|donat|funding|changelog|change log|release notes|releases|history|badges|links|related|see also|star history|roadmap|todo|status|code of conduct|security|citation|cite|references|screenshots?|demo|preview|documentation|docs)/i],
];

/** The role a heading announces ("other" when none). */
export function roleOf(heading: string): SectionRole {
  const h = heading.replace(/[:.]+$/, "").trim();
  for (const [role, pattern] of ROLE_PATTERNS) if (pattern.test(h)) return role;
  return "other";
}

// ---------------------------------------------------------------------------------------------
// Blocks

interface ListItem {
  raw: string;
  depth: number;
}

type Block =
  | { type: "heading"; raw: string; style: string; level: number; summary?: boolean }
  | { type: "paragraph"; raw: string; alert?: boolean }
  | { type: "code"; lang: string; code: string }
  | { type: "list"; items: ListItem[] }
  | { type: "table"; rows: string[][] };

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^`\s{]*)[^`]*$/;
const LIST_ITEM = /^(\s*)(?:[-*+•]|\d{1,9}[.)])(?:\s+(.*))?$/;
const ADOC_LIST_ITEM = /^(\s*)(\*{1,5}|\.{1,5}|-)\s+(.*)$/;
const HR = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
const ADORNMENT = /^(?:={2,}|-{2,}|([`:'"~^_*+#<>])\1{2,})$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const LINK_DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*\S/;
const HTML_BLOCK_TAGS =
  "address|article|aside|blockquote|body|center|details|dialog|dd|div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|header|hr|html|img|li|main|nav|ol|p|picture|pre|section|source|summary|table|tbody|td|tfoot|th|thead|tr|ul|video|br|svg";
const HTML_BLOCK_START = new RegExp(`^\\s{0,3}</?(?:${HTML_BLOCK_TAGS})(?:\\s|/?>|$)`, "i");

const leading = (line: string) => /^[ \t]*/.exec(line)![0].replace(/\t/g, "    ").length;

function stripIndent(line: string, count: number): string {
  let removed = 0;
  let i = 0;
  while (i < line.length && removed < count && (line[i] === " " || line[i] === "\t")) {
    removed += line[i] === "\t" ? 4 : 1;
    i++;
  }
  return line.slice(i);
}

function dedent(lines: string[]): string {
  const indents = lines.filter((line) => line.trim()).map(leading);
  const least = indents.length ? Math.min(...indents) : 0;
  return lines
    .map((line) => stripIndent(line, least))
    .join("\n")
    .replace(/^\n+|\s+$/g, "");
}

function capCode(code: string): string {
  return code.length > MAX_CODE ? clipCode(code, MAX_CODE) : code;
}

interface ParseState {
  asciidoc: boolean;
  depth: number;
}

function readFence(lines: string[], start: number): { block: Block; next: number } {
  const open = FENCE.exec(lines[start]!)!;
  const indent = open[1]!.length;
  const mark = open[2]!;
  const body: string[] = [];
  let i = start + 1;
  for (; i < lines.length; i++) {
    const trimmed = lines[i]!.trim();
    if (trimmed[0] === mark[0] && trimmed.length >= mark.length && new RegExp(`^\\${mark[0]}+$`).test(trimmed)) {
      i++;
      break;
    }
    body.push(stripIndent(lines[i]!, indent));
  }
  return { block: { type: "code", lang: (open[3] ?? "").toLowerCase(), code: capCode(body.join("\n").replace(/\s+$/, "")) }, next: i };
}

function paragraphBlock(lines: string[]): Block {
  let raw = lines.join("\n");
  const alert = /^\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*/i.exec(raw);
  if (alert) raw = raw.slice(alert[0].length);
  // rST: "Example::" introduces a literal block and reads "Example:".
  raw = raw.replace(/\s*::$/, (m) => (m.trim() === "::" && /\S::$/.test(raw) ? ":" : ""));
  return alert ? { type: "paragraph", raw, alert: true } : { type: "paragraph", raw };
}

/** An HTML block to blocks: headings, `<summary>` (as a subheading), list items, `<pre>`, text. */
function htmlBlocks(html: string): Block[] {
  const pres: string[] = [];
  let s = html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, "")
    .replace(/<(script|style|svg)\b[\s\S]*?<\/\1>/gi, "")
    .replace(/<pre\b[^>]*>([\s\S]*?)(?:<\/pre>|$)/gi, (_w, code: string) => {
      pres.push(decodeEntities(code.replace(/<[^>]+>/g, "")).replace(/^\n+|\s+$/g, ""));
      return `\n\u0001P${pres.length - 1}\n`;
    })
    .replace(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1>/gi, (_w, level: string, text: string) => `\n\u0001H${level}${text.replace(/\n/g, " ")}\n`)
    .replace(/<summary\b[^>]*>([\s\S]*?)<\/summary>/gi, (_w, text: string) => `\n\u0001S${text.replace(/\n/g, " ")}\n`)
    .replace(/<li\b[^>]*>([\s\S]*?)(?:<\/li>|(?=<li\b)|$)/gi, (_w, text: string) => `\n\u0001L${text.replace(/\n/g, " ")}\n`)
    .replace(/<\/?(?:p|div|br|tr|table|tbody|thead|ul|ol|details|section|header|footer|blockquote|center|figure|figcaption|dl|dt|dd|hr|nav|article|main)\b[^>]*>/gi, "\n");
  s = s.replace(/<td\b[^>]*>|<th\b[^>]*>/gi, " ").replace(/<(b|strong)\b[^>]*>([^<\n]*?)<\/\1>/gi, "**$2**");
  const blocks: Block[] = [];
  let text: string[] = [];
  let items: ListItem[] = [];
  const flush = () => {
    if (text.length) blocks.push({ type: "paragraph", raw: text.join(" ") });
    if (items.length) blocks.push({ type: "list", items });
    text = [];
    items = [];
  };
  for (const line of s.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed) {
      if (text.length) flush();
      continue;
    }
    if (trimmed.startsWith("\u0001")) {
      const tag = trimmed[1];
      const rest = trimmed.slice(2);
      if (tag === "L") {
        if (text.length) flush();
        items.push({ raw: rest, depth: 0 });
        continue;
      }
      flush();
      if (tag === "H") blocks.push({ type: "heading", raw: rest.slice(1), style: "atx", level: Number(rest[0]) });
      else if (tag === "S") blocks.push({ type: "heading", raw: rest, style: "summary", level: 6, summary: true });
      else if (tag === "P") blocks.push({ type: "code", lang: "", code: capCode(pres[Number(rest)] ?? "") });
      continue;
    }
    if (items.length) flush();
    text.push(trimmed);
  }
  flush();
  return blocks;
}

function readList(lines: string[], start: number, state: ParseState): { blocks: Block[]; next: number } {
  const items: ListItem[] = [];
  const extra: Block[] = [];
  const base = leading(lines[start]!);
  const indents: number[] = [base];
  let contentIndent = base + 2;
  let blank = false;
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    if (!trimmed) {
      blank = true;
      continue;
    }
    const indent = leading(line);
    const adoc = state.asciidoc ? ADOC_LIST_ITEM.exec(line) : null;
    const item = adoc ?? (HR.test(line) ? null : LIST_ITEM.exec(line));
    if (item) {
      if (indent < base) break;
      let depth: number;
      if (adoc) {
        depth = Math.max(0, item[2]!.length - 1);
      } else {
        while (indents.length > 1 && indents[indents.length - 1]! > indent) indents.pop();
        if (indents[indents.length - 1]! < indent) indents.push(indent);
        depth = indents.length - 1;
      }
      const content = (adoc ? item[3] : item[2]) ?? "";
      items.push({ raw: content.trim(), depth });
      contentIndent = content ? line.replace(/\t/g, "    ").length - content.length : indent + 2;
      blank = false;
      continue;
    }
    const current = items[items.length - 1];
    if (current && indent >= Math.min(contentIndent, base + 2)) {
      if (FENCE.test(line)) {
        const { block, next } = readFence(lines, i);
        extra.push(block);
        i = next - 1;
        blank = false;
        continue;
      }
      if (blank && indent >= contentIndent + 4) {
        // An indented code block inside the item.
        const body: string[] = [];
        let j = i;
        while (j < lines.length && (!lines[j]!.trim() || leading(lines[j]!) >= contentIndent + 4)) body.push(lines[j++]!);
        extra.push({ type: "code", lang: "", code: capCode(dedent(body)) });
        i = j - 1;
        blank = false;
        continue;
      }
      current.raw += (blank ? "\n\n" : "\n") + trimmed;
      blank = false;
      continue;
    }
    if (current && !blank && !startsBlock(line, state)) {
      current.raw += "\n" + trimmed;
      continue;
    }
    break;
  }
  const blocks: Block[] = items.length ? [{ type: "list", items }] : [];
  return { blocks: [...blocks, ...extra], next: i };
}

function startsBlock(line: string, state: ParseState): boolean {
  return (
    FENCE.test(line) ||
    /^\s{0,3}#{1,6}(?:\s|$)/.test(line) ||
    HTML_BLOCK_START.test(line) ||
    /^\s{0,3}>/.test(line) ||
    HR.test(line) ||
    LIST_ITEM.test(line) ||
    (state.asciidoc && /^=+\s/.test(line))
  );
}

function readTable(lines: string[], start: number): { block: Block; next: number } {
  const rows: string[][] = [];
  let i = start;
  for (; i < lines.length && lines[i]!.includes("|") && lines[i]!.trim(); i++) {
    if (i === start + 1) continue;
    const cells = lines[i]!
      .trim()
      .replace(/^\|/, "")
      .replace(/\|$/, "")
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
    if (rows.length < 100) rows.push(cells);
  }
  return { block: { type: "table", rows }, next: i };
}

function parseBlocks(lines: string[], state: ParseState): Block[] {
  const blocks: Block[] = [];
  let para: string[] = [];
  let literalNext = false;
  let adocLang = "";
  const flush = () => {
    if (!para.length) return;
    const block = paragraphBlock(para);
    literalNext = /::\s*$/.test(para[para.length - 1]!);
    blocks.push(block);
    para = [];
  };

  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const trimmed = line.trim();

    if (!trimmed) {
      flush();
      i++;
      continue;
    }
    const indent = leading(line);

    // Literal and indented code: after a blank line, or after an rST "::" paragraph.
    if (!para.length && (literalNext ? indent >= 1 : indent >= 4) && !LIST_ITEM.test(line)) {
      const body: string[] = [];
      const least = literalNext ? 1 : 4;
      while (i < lines.length && (!lines[i]!.trim() || leading(lines[i]!) >= least)) body.push(lines[i++]!);
      blocks.push({ type: "code", lang: "", code: capCode(dedent(body)) });
      literalNext = false;
      continue;
    }
    if (!para.length) literalNext = false;

    if (trimmed.startsWith("<!--")) {
      flush();
      while (i < lines.length && !lines[i]!.includes("-->")) i++;
      i++;
      continue;
    }
    if (FENCE.test(line)) {
      flush();
      const { block, next } = readFence(lines, i);
      if (block.type === "code" && !block.lang && adocLang) block.lang = adocLang;
      blocks.push(block);
      adocLang = "";
      i = next;
      continue;
    }

    if (state.asciidoc) {
      if (/^(?:-{4,}|\.{4,})$/.test(trimmed)) {
        flush();
        const body: string[] = [];
        let j = i + 1;
        while (j < lines.length && lines[j]!.trim() !== trimmed) body.push(lines[j++]!);
        blocks.push({ type: "code", lang: adocLang, code: capCode(body.join("\n").replace(/\s+$/, "")) });
        adocLang = "";
        i = j + 1;
        continue;
      }
      const source = /^\[(?:source)?,\s*([\w+#-]+)/.exec(trimmed);
      if (source || /^\[[^\]]*\]$/.test(trimmed) || /^:[\w-]+:/.test(trimmed) || /^(?:image|include|ifdef|ifndef|endif|toc)::/.test(trimmed)) {
        flush();
        if (source) adocLang = source[1]!.toLowerCase();
        i++;
        continue;
      }
      const heading = /^(={1,6})\s+(.+)$/.exec(trimmed);
      if (heading) {
        flush();
        blocks.push({ type: "heading", raw: heading[2]!, style: "adoc", level: heading[1]!.length });
        i++;
        continue;
      }
    }

    // reStructuredText directives and comments: code blocks are kept, the rest is skipped.
    if (/^\.\.(?:\s|$)/.test(trimmed) && indent === 0) {
      flush();
      const code = /^\.\.\s+(?:code-block|code|sourcecode|highlight)::\s*(\S*)/.exec(trimmed);
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && (!lines[j]!.trim() || leading(lines[j]!) > 0)) body.push(lines[j++]!);
      if (code) {
        const content = body.filter((bodyLine) => !/^\s+:[\w-]+:/.test(bodyLine));
        blocks.push({ type: "code", lang: (code[1] ?? "").toLowerCase(), code: capCode(dedent(content)) });
      }
      i = j;
      continue;
    }

    const atx = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (atx && atx[2]) {
      flush();
      blocks.push({ type: "heading", raw: atx[2] ?? "", style: "atx", level: atx[1]!.length });
      i++;
      continue;
    }

    // Setext and reStructuredText headings.
    if (ADORNMENT.test(trimmed)) {
      if (para.length) {
        const text = para.join(" ");
        para = [];
        if (text.length <= 150) blocks.push({ type: "heading", raw: text, style: `under${trimmed[0]}`, level: 0 });
        else blocks.push(paragraphBlock([text]));
        i++;
        continue;
      }
      const title = lines[i + 1]?.trim() ?? "";
      const under = lines[i + 2]?.trim() ?? "";
      if (title && !ADORNMENT.test(title) && ADORNMENT.test(under) && under[0] === trimmed[0]) {
        blocks.push({ type: "heading", raw: title, style: `over${trimmed[0]}`, level: 0 });
        i += 3;
        continue;
      }
      i++;
      continue;
    }
    if (HR.test(line)) {
      flush();
      i++;
      continue;
    }

    if (/^\+[-=+]{3,}\+$/.test(trimmed)) {
      // A reStructuredText grid table: skipped.
      flush();
      while (i < lines.length && lines[i]!.trim()) i++;
      continue;
    }
    if (!para.length && trimmed.includes("|") && TABLE_DELIMITER.test(lines[i + 1] ?? "") && (lines[i + 1] ?? "").includes("|")) {
      const { block, next } = readTable(lines, i);
      blocks.push(block);
      i = next;
      continue;
    }
    if (LINK_DEFINITION.test(line)) {
      flush();
      i++;
      continue;
    }

    if (HTML_BLOCK_START.test(line)) {
      flush();
      const html: string[] = [];
      if (/^\s*<pre\b/i.test(line)) {
        while (i < lines.length) {
          html.push(lines[i]!);
          if (/<\/pre>/i.test(lines[i++]!)) break;
        }
      } else {
        while (i < lines.length && lines[i]!.trim()) html.push(lines[i++]!);
      }
      blocks.push(...htmlBlocks(html.join("\n")));
      continue;
    }

    if (/^\s{0,3}>/.test(line)) {
      flush();
      const quoted: string[] = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i]!)) quoted.push(lines[i++]!.replace(/^\s{0,3}>\s?/, ""));
      if (state.depth < 3) blocks.push(...parseBlocks(quoted, { ...state, depth: state.depth + 1 }));
      continue;
    }

    const item = state.asciidoc ? ADOC_LIST_ITEM.exec(line) ?? LIST_ITEM.exec(line) : LIST_ITEM.exec(line);
    if (item && (!para.length || (item[2] ?? "").trim())) {
      flush();
      const { blocks: listBlocks, next } = readList(lines, i, state);
      if (next === i) {
        para.push(trimmed);
        i++;
        continue;
      }
      blocks.push(...listBlocks);
      i = next;
      continue;
    }

    para.push(trimmed);
    i++;
  }
  flush();
  return blocks;
}

/** Gives underline-style headings a level: Markdown's `=`/`-` as 1/2, other adornments in order of appearance. */
function resolveLevels(blocks: Block[]): void {
  const headings = blocks.filter((block): block is Extract<Block, { type: "heading" }> => block.type === "heading");
  const hasLeveled = headings.some((heading) => heading.style === "atx" || heading.style === "adoc");
  const order: string[] = [];
  for (const heading of headings) {
    if (heading.level > 0) continue;
    if (hasLeveled && heading.style === "under=") heading.level = 1;
    else if (hasLeveled && heading.style === "under-") heading.level = 2;
    else {
      if (!order.includes(heading.style)) order.push(heading.style);
      heading.level = Math.min(6, order.indexOf(heading.style) + 1 + (hasLeveled ? 2 : 0));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// From blocks to facts

/** True when a paragraph is only badges, images or links with separators. */
function isNavigation(raw: string): boolean {
  // A line of badges or links is short; the cap keeps the patterns below from working long on junk.
  if (raw.length > MAX_NAVIGATION) return false;
  const rest = raw
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/!\[[^\]]*\]\[[^\]]*\]/g, "")
    .replace(/\[[^\]]*\]\((?:[^()]|\([^()]*\))*\)/g, "")
    .replace(/\[[^\]]*\]\[[^\]]*\]/g, "")
    .replace(/<[^>]+>/g, "")
    .replace(/\|[\w-]+\|_?/g, "")
    .replace(/:[a-z0-9_+-]+:/g, "")
    .replace(/&[a-z]+;|&#\d+;/gi, "");
  return /^[\s|•·,/:*_–—-]*$/.test(rest);
}

function headingText(raw: string): string {
  return stripLeadingEmoji(plainText(raw))
    .replace(/^\d+(?:\.\d+)*[.)]\s+/, "")
    .replace(/\s*[:：]$/, "")
    .trim();
}

interface RawSection {
  heading: string;
  level: number;
  role: SectionRole;
  blocks: Block[];
  parent: number | null;
}

function itemText(item: ListItem): string {
  return richText(item.raw.split("\n\n")[0] ?? "");
}

function sectionText(blocks: Block[]): string {
  const parts: string[] = [];
  let size = 0;
  for (const block of blocks) {
    let part = "";
    if (block.type === "paragraph" && !isNavigation(block.raw)) part = richText(block.raw);
    else if (block.type === "list") {
      part = block.items
        .map((item) => `${"  ".repeat(Math.min(item.depth, 3))}- ${itemText(item)}`)
        .filter((line) => !/^\s*- $/.test(line))
        .join("\n");
    }
    if (!part) continue;
    parts.push(part);
    size += part.length;
    if (size > MAX_SECTION_TEXT) break;
  }
  return parts.join("\n\n");
}

/** The section's paragraphs that end with a colon, each with the kind of block that follows it. */
function leadsOf(blocks: Block[]): ReadmeLead[] {
  const out: ReadmeLead[] = [];
  blocks.forEach((block, index) => {
    if (block.type !== "paragraph" || isNavigation(block.raw)) return;
    const text = richText(block.raw);
    if (!/[:：]$/.test(text)) return;
    const next = blocks[index + 1];
    let kind: ReadmeLead["next"] = "end";
    if (next?.type === "list" || next?.type === "code" || next?.type === "table") kind = next.type;
    else if (next?.type === "paragraph") kind = !richText(next.raw) && /!\[|<img\b/i.test(next.raw) ? "picture" : "text";
    out.push({ text, next: kind });
  });
  return out;
}

/** Features from a list's top-level items, each with its direct sub-items. */
function listFeatures(items: ListItem[]): ReadmeFeature[] {
  const out: ReadmeFeature[] = [];
  items.forEach((item, index) => {
    if (item.depth !== 0) return;
    const feature = splitFeature(item.raw);
    if (!feature) return;
    const children: string[] = [];
    for (let next = index + 1; next < items.length && items[next]!.depth > 0; next++) {
      if (items[next]!.depth === 1) children.push(itemText(items[next]!));
    }
    const kept = children.filter(Boolean);
    out.push(kept.length ? { ...feature, items: kept } : feature);
  });
  return out;
}

function splitFeature(raw: string): ReadmeFeature | null {
  const firstParagraph = raw.split("\n\n")[0] ?? "";
  const bold = /^\s*(?:[\p{Extended_Pictographic}\u{FE0F}\u{200D}]\s*)*(?:\[)?(\*\*|__)(.+?)\1(?:\]\([^)]*\))?\s*([:：.!—–-]\s*)?([\s\S]*)$/u.exec(firstParagraph);
  if (bold) {
    const title = headingText(bold[2]!).replace(/[.!:]$/, "");
    const separated = Boolean(bold[3]) || /[.!:]$/.test(bold[2]!);
    // "**Reminders** by e-mail …" is one sentence: the bold part is its title, the whole its body.
    const body = separated ? richText(bold[4] ?? "").replace(/^[:：—–-]\s*/, "") : stripLeadingEmoji(richText(firstParagraph));
    if (title) return { title, body: body || title };
  }
  const text = stripLeadingEmoji(richText(firstParagraph));
  if (!text) return null;
  const lead = /^([^:.!?]{2,50}?)\s*(?:[:：]|\s[—–-])\s+(.{3,})$/.exec(text);
  if (lead && !/^https?$/i.test(lead[1]!)) return { title: stripCode(lead[1]!.trim()), body: lead[2]!.trim() };
  return { title: null, body: text };
}

function tableFeatures(rows: string[][]): ReadmeFeature[] {
  return rows
    .slice(1)
    .filter((row) => row.length >= 2)
    .map((row) => ({ title: headingText(row[0]!), body: richText(row[1]!) }))
    .filter((feature) => feature.title && feature.body && !/^[✓✔✗✘❌✅xX-]$/.test(feature.body));
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

const FENCE_LANGUAGES: Record<string, string> = {
  js: "JavaScript", javascript: "JavaScript", jsx: "JavaScript", mjs: "JavaScript", cjs: "JavaScript",
  ts: "TypeScript", typescript: "TypeScript", tsx: "TypeScript", mts: "TypeScript",
  py: "Python", python: "Python", python3: "Python", pycon: "Python",
  rs: "Rust", rust: "Rust", go: "Go", golang: "Go", rb: "Ruby", ruby: "Ruby", php: "PHP",
  java: "Java", kt: "Kotlin", kotlin: "Kotlin", swift: "Swift", c: "C", cpp: "C++", "c++": "C++",
  cxx: "C++", cs: "C#", csharp: "C#", "c#": "C#", ex: "Elixir", exs: "Elixir", elixir: "Elixir",
  hs: "Haskell", haskell: "Haskell", scala: "Scala", dart: "Dart", lua: "Lua", julia: "Julia",
  zig: "Zig", nim: "Nim", clj: "Clojure", clojure: "Clojure", erlang: "Erlang", ocaml: "OCaml",
  fsharp: "F#", "f#": "F#", perl: "Perl", r: "R", elm: "Elm", crystal: "Crystal", v: "V",
};

const INSTALL_COMMAND =
  /^\s*(?:\$\s*)?(?:sudo\s+)?(?:npm\s+(?:i|install|add)\b|yarn\s+(?:global\s+)?add\b|pnpm\s+(?:add|i|install)\b|bun\s+(?:add|install|i)\b|npx\s+\S|pip3?\s+install\b|python3?\s+-m\s+pip\s+install\b|pipx\s+install\b|uv\s+(?:add|pip\s+install|tool\s+install)\b|poetry\s+add\b|conda\s+install\b|cargo\s+(?:install|add)\b|go\s+(?:install|get)\b|gem\s+install\b|bundle\s+add\b|composer\s+(?:global\s+)?require\b|brew\s+install\b|apt(?:-get)?\s+install\b|dnf\s+install\b|yum\s+install\b|pacman\s+-S\b|snap\s+install\b|choco\s+install\b|scoop\s+install\b|winget\s+install\b|dotnet\s+(?:add|tool\s+install)\b|docker\s+(?:pull|run)\b|helm\s+install\b|deno\s+(?:add|install)\b|nix\s+profile\s+install\b|mix\s+archive\.install\b|curl\s.+\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|wget\s.+\|\s*(?:sudo\s+)?(?:ba)?sh\b)/i;

const COMMAND_LANGUAGES: [RegExp, string][] = [
  [/\b(?:pip3?|pipx|poetry|conda)\s+(?:install|add)\b|\buv\s+(?:add|pip)\b/, "Python"],
  [/\bcargo\s+(?:install|add)\b/, "Rust"],
  [/\bgo\s+(?:install|get)\b/, "Go"],
  [/\b(?:gem\s+install|bundle\s+add)\b/, "Ruby"],
  [/\bcomposer\s+(?:global\s+)?require\b/, "PHP"],
];

/** True when a line is a package-manager install command (`npm install x`, `pip install x`, …). */
export function isInstallCommand(line: string): boolean {
  return INSTALL_COMMAND.test(line);
}

function findQuestionsInBlocks(blocks: Block[]): ReadmeQuestion[] {
  const out: ReadmeQuestion[] = [];
  let current: { question: string; answer: string[] } | null = null;
  const close = () => {
    if (current && current.answer.length) out.push({ question: current.question, answer: current.answer.join("\n\n") });
    current = null;
  };
  for (const block of blocks) {
    if (block.type === "paragraph") {
      const text = richText(block.raw);
      if (!text) continue;
      const both = /^(?:Q\s*[:.]\s*)?(.{3,200}?\?)\s+(?:A\s*[:.]\s*)?(.+)$/s.exec(text);
      const startsAsQuestion = /^\s*(?:\*\*|__|Q\s*[:.])/.test(block.raw);
      if (both && startsAsQuestion) {
        close();
        out.push({ question: both[1]!.trim(), answer: both[2]!.trim() });
      } else if (/\?$/.test(text) && text.length <= 200) {
        close();
        current = { question: text.replace(/^Q\s*[:.]\s*/, ""), answer: [] };
      } else if (current) {
        current.answer.push(text.replace(/^A\s*[:.]\s*/, ""));
      }
    } else if (block.type === "list") {
      for (const item of block.items) {
        if (item.depth > 0) continue;
        const text = richText(item.raw);
        const both = /^(?:Q\s*[:.]\s*)?(.{3,200}?\?)\s+(?:A\s*[:.]\s*)?(.+)$/s.exec(text);
        if (both) {
          close();
          out.push({ question: both[1]!.trim(), answer: both[2]!.trim() });
        } else if (current) {
          current.answer.push(`- ${text}`);
        }
      }
    }
  }
  close();
  return out;
}

/** `**How do I …?**` lines outside FAQ sections, answered by the rest of the line or the next paragraph. */
function findBoldQuestions(blocks: Block[]): ReadmeQuestion[] {
  const out: ReadmeQuestion[] = [];
  blocks.forEach((block, index) => {
    if (block.type !== "paragraph") return;
    const bold = /^\s*(\*\*|__)([^*_\n]{3,200}?\?)\1\s*([\s\S]*)$/.exec(block.raw);
    if (!bold) return;
    const next = blocks[index + 1];
    // The next paragraph answers only when it is not the next question.
    const answer = richText(bold[3]!) || (next?.type === "paragraph" && !/^\s*(?:\*\*|__)[^\n]*\?(?:\*\*|__)/.test(next.raw) ? richText(next.raw) : "");
    if (answer) out.push({ question: richText(bold[2]!), answer });
  });
  return out;
}

const emptyFacts = (fallback: ReadmeFallback | undefined, truncated = false): ReadmeFacts => ({
  title: fallback?.name?.trim() || null,
  tagline: fallback?.description?.trim() || null,
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
  truncated,
});

/**
 * Reads a README. Never throws: an empty or null README gives the fallback's name and
 * description and nothing else. At most {@link README_READ_LIMIT} characters are read.
 */
export function readReadme(text: string | null | undefined, fallback?: ReadmeFallback): ReadmeFacts {
  if (!text || !text.trim()) return emptyFacts(fallback);
  let source = text.replace(/\r\n?/g, "\n").replace(/^\uFEFF/, "");
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
  // YAML front matter.
  if (lines[0]?.trim() === "---") {
    const end = lines.findIndex((line, index) => index > 0 && index < 60 && /^(?:---|\.\.\.)\s*$/.test(line));
    if (end > 0 && lines.slice(1, end).every((line) => !line.trim() || /^[\w"'-][^:]*:|^\s|^-/.test(line))) lines = lines.slice(end + 1);
  }

  const asciidoc = lines.some((line) => /^={1,2}\s+\S/.test(line)) && !lines.some((line) => /^#{1,6}\s+\S/.test(line));
  // Headings with no text (a logo in an <h1>, a lone emoji) are dropped: their content joins the section before.
  const blocks = parseBlocks(lines, { asciidoc, depth: 0 }).filter((block) => block.type !== "heading" || headingText(block.raw));
  resolveLevels(blocks);

  // The title: a leading heading of the top level that does not name a usual section.
  const headingIndexes = blocks.flatMap((block, index) => (block.type === "heading" ? [index] : []));
  const topLevel = Math.min(...headingIndexes.map((index) => (blocks[index] as { level: number }).level), 7);
  let title: string | null = null;
  let firstSectionBlock = headingIndexes[0] ?? blocks.length;
  const titleIndex = headingIndexes[0];
  if (titleIndex !== undefined) {
    const heading = blocks[titleIndex] as Extract<Block, { type: "heading" }>;
    const text = headingText(heading.raw);
    const parasBefore = blocks
      .slice(0, titleIndex)
      .filter((block) => block.type === "paragraph" && !isNavigation(block.raw) && plainText(block.raw).length > 40).length;
    if (text && heading.level === topLevel && !heading.summary && parasBefore === 0 && roleOf(text) === "other") {
      title = text;
      firstSectionBlock = headingIndexes[1] ?? blocks.length;
    }
  }
  const introBlocks = blocks.slice(0, firstSectionBlock).filter((block) => block.type !== "heading");

  // Sections, with roles inherited from the parent section when a heading names none.
  const raw: RawSection[] = [];
  for (let index = firstSectionBlock; index < blocks.length && raw.length < MAX_SECTIONS; index++) {
    const block = blocks[index]!;
    if (block.type === "heading") {
      const heading = headingText(block.raw);
      let parent: number | null = raw.length - 1;
      while (parent !== null && parent >= 0 && raw[parent]!.level >= block.level) parent = raw[parent]!.parent;
      if (parent !== null && parent < 0) parent = null;
      const own = roleOf(heading);
      const role = own === "other" && parent !== null ? raw[parent]!.role : own;
      raw.push({ heading, level: block.level, role, blocks: [], parent });
    } else {
      raw[raw.length - 1]?.blocks.push(block);
    }
  }

  const sections: ReadmeSection[] = raw
    .filter((section) => section.heading)
    .map((section) => ({
      heading: section.heading,
      level: section.level,
      role: section.role,
      text: sectionText(section.blocks),
      code: section.blocks.flatMap((block) => (block.type === "code" && block.code.trim() ? [block.code] : [])),
      items: section.blocks.flatMap((block) =>
        block.type === "list" ? block.items.filter((item) => item.depth === 0).map(itemText).filter(Boolean) : [],
      ),
      tables: section.blocks.flatMap((block) => (block.type === "table" ? readTableBlock(block.rows) : [])),
      leads: leadsOf(section.blocks),
    }));

  const descendants = (index: number): RawSection[] => {
    const out: RawSection[] = [raw[index]!];
    for (let next = index + 1; next < raw.length && raw[next]!.level > raw[index]!.level; next++) out.push(raw[next]!);
    return out;
  };
  const firstOfRole = (role: SectionRole) => raw.findIndex((section) => section.role === role && raw[section.parent ?? -1]?.role !== role);

  // Intro and tagline.
  const intro = introBlocks
    .filter((block): block is Extract<Block, { type: "paragraph" }> => block.type === "paragraph" && !isNavigation(block.raw))
    .map((block) => ({ text: richText(block.raw), alert: block.alert === true }))
    .filter((paragraph) => paragraph.text);
  const isReal = (paragraph: { text: string; alert: boolean }) =>
    !paragraph.alert &&
    paragraph.text.split(/\s+/).length >= 3 &&
    /\p{L}/u.test(paragraph.text) &&
    !/^(?:table of contents|contents)\b/i.test(paragraph.text) &&
    !/^(?:https?:\/\/\S+)$/.test(paragraph.text);
  let tagline = intro.find(isReal)?.text ?? null;
  if (!tagline && title) {
    const parts = /^(.+?)\s+(?:[—–-]|:)\s+(.+)$/.exec(title) ?? /^(.+?):\s+(.+)$/.exec(title);
    if (parts && parts[2]!.split(/\s+/).length >= 3) tagline = parts[2]!;
  }
  if (!tagline) {
    const overview = raw.find((section) => section.role === "overview");
    const paragraph = overview?.blocks.find((block) => block.type === "paragraph" && !isNavigation(block.raw));
    if (paragraph && paragraph.type === "paragraph") tagline = richText(paragraph.raw) || null;
  }
  if (tagline) tagline = tagline.replace(/:$/, ".");

  // Features.
  // Features: a list, else a table, in a features section; else its subsections (not questions).
  let features: ReadmeFeature[] = [];
  const featureRoots = raw.flatMap((section, index) =>
    section.role === "features" && raw[section.parent ?? -1]?.role !== "features" ? [index] : [],
  );
  for (const root of featureRoots) {
    for (const section of descendants(root)) {
      const list = section.blocks.find((block) => block.type === "list");
      if (list && list.type === "list") {
        features = listFeatures(list.items);
      }
      const table = section.blocks.find((block) => block.type === "table");
      if (!features.length && table && table.type === "table") features = tableFeatures(table.rows);
      if (features.length) break;
    }
    if (features.length) break;
  }
  for (const root of features.length ? [] : featureRoots) {
    features = descendants(root)
      .slice(1)
      .flatMap((child) => {
        const paragraph = child.blocks.find((block) => block.type === "paragraph" && !isNavigation(block.raw));
        const body = paragraph && paragraph.type === "paragraph" ? richText(paragraph.raw) : "";
        return child.heading && body && !/\?$/.test(child.heading) ? [{ title: child.heading, body }] : [];
      });
    if (features.length) break;
  }
  if (!features.length) {
    const excluded = new Set<SectionRole>(["toc", "install", "usage", "license", "contributing", "support", "requirements", "reference", "meta", "faq"]);
    const candidates: Block[][] = [introBlocks, ...raw.filter((section) => !excluded.has(section.role)).map((section) => section.blocks)];
    for (const group of candidates) {
      const list = group.find(
        (block) =>
          block.type === "list" &&
          block.items.filter((item) => item.depth === 0).length >= 2 &&
          block.items.every((item) => !isNavigation(item.raw) && plainText(item.raw).split(/\s+/).length >= 2),
      );
      if (list && list.type === "list") {
        features = listFeatures(list.items);
        break;
      }
    }
  }
  features = features.filter((feature) => feature.body).slice(0, 12);

  // Install and usage.
  const codeOf = (group: RawSection[]) =>
    group.flatMap((section) => section.blocks.flatMap((block) => (block.type === "code" && block.code.trim() ? [block] : [])));
  const installIndex = firstOfRole("install");
  const installCode = installIndex >= 0 ? codeOf(descendants(installIndex)) : [];
  let install = installCode.filter((block) => !/^(?:json|yaml|yml|toml|text|txt|output)$/.test(block.lang)).map((block) => block.code);
  if (!install.length && installIndex >= 0) {
    const spans = descendants(installIndex).flatMap((section) =>
      section.blocks.flatMap((block) => {
        const rawText = block.type === "paragraph" ? block.raw : block.type === "list" ? block.items.map((item) => item.raw).join("\n") : "";
        return [...rawText.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!.trim());
      }),
    );
    install = spans.filter(isInstallCommand).slice(0, 3);
  }
  if (!install.length) {
    for (const block of blocks) {
      if (block.type !== "code") continue;
      const commands = block.code.split("\n").filter(isInstallCommand);
      if (commands.length) {
        install = [commands.slice(0, 3).join("\n")];
        break;
      }
    }
  }
  const usageIndex = firstOfRole("usage");
  let usageBlocks = usageIndex >= 0 ? codeOf(descendants(usageIndex)) : [];
  if (!usageBlocks.length && installIndex >= 0 && /^get/i.test(raw[installIndex]!.heading)) {
    usageBlocks = installCode.filter((block) => !block.code.split("\n").every((line) => !line.trim() || isInstallCommand(line)));
  }
  if (!usageBlocks.length) usageBlocks = introBlocks.filter((block): block is Extract<Block, { type: "code" }> => block.type === "code");
  if (!usageBlocks.length) {
    // A library's API section often holds the only example.
    const example = raw
      .filter((section) => ["reference", "overview", "other", "features"].includes(section.role))
      .flatMap((section) => section.blocks)
      .find((block): block is Extract<Block, { type: "code" }> => block.type === "code" && block.code.split("\n").some((line) => line.trim() && !isInstallCommand(line)));
    if (example) usageBlocks = [example];
  }
  const usage = usageBlocks.map((block) => block.code).filter((code) => !install.includes(code));
  const proseOf = (index: number) => {
    if (index < 0) return "";
    for (const section of descendants(index)) {
      const prose = sectionText(section.blocks);
      if (prose) return prose;
    }
    return "";
  };

  // Questions, only the README's own: headings (and `<details>` summaries) that ask, questions
  // inside FAQ sections, and bold question lines. A section that does not ask ("Installation"
  // under "FAQ") is never a question.
  const faq: ReadmeQuestion[] = [];
  raw.forEach((section) => {
    const text = sectionText(section.blocks);
    if (/\?$/.test(section.heading) && text) faq.push({ question: section.heading, answer: text });
    if (section.role === "faq") faq.push(...findQuestionsInBlocks(section.blocks));
    else faq.push(...findBoldQuestions(section.blocks));
  });
  const seen = new Set<string>();
  const questions = faq
    .map((entry) => ({ question: stripCode(entry.question.replace(/^Q\s*[:.]\s*/, "")).trim(), answer: entry.answer.trim() }))
    .filter((entry) => entry.question && entry.answer && !seen.has(entry.question.toLowerCase()) && seen.add(entry.question.toLowerCase()))
    .slice(0, 30);

  // License: the license section, else a badge or a sentence naming one.
  const licenseIndex = firstOfRole("license");
  let license = licenseIndex >= 0 ? detectLicense(`${raw[licenseIndex]!.heading} ${sectionText(raw[licenseIndex]!.blocks)}`) : null;
  if (!license) {
    const mentions = lines.filter((line) => /licen[cs]/i.test(line)).map((line) => line.slice(0, 2000));
    const found = mentions.flatMap((line) => [
      ...[...line.matchAll(/!\[([^\]]{0,200}licen[cs]e[^\]]{0,200})\]\(([^)]{0,500})\)/gi)].map((match) => `${match[1]} ${safeDecode(match[2]!)}`),
      ...[...line.matchAll(/badge\/licen[cs]e-([^-)\s]+)/gi)].map((match) => safeDecode(match[1]!).replace(/_/g, " ")),
      ...[...line.matchAll(/(?:licen[cs]ed under|released under|distributed under)[^.\n]{0,80}/gi)].map((match) => match[0]),
    ]);
    license = detectLicense(found.join(" "));
  }

  // Language: code samples first, then unambiguous install commands.
  let language: string | null = null;
  const langs = [...usageBlocks, ...installCode, ...blocks.filter((block): block is Extract<Block, { type: "code" }> => block.type === "code")]
    .map((block) => FENCE_LANGUAGES[block.lang])
    .filter((name): name is string => Boolean(name));
  language = langs[0] ?? null;
  if (!language) {
    const commands = install.join("\n");
    language = COMMAND_LANGUAGES.find(([pattern]) => pattern.test(commands))?.[1] ?? null;
  }

  const addresses = fallback?.repositoryUrl ? repositoryAddresses(fallback.repositoryUrl, fallback.defaultBranch ?? "") : null;
  const media = scanMedia(source, addresses);

  return {
    title: title ?? (fallback?.name?.trim() || null),
    tagline: tagline ?? (fallback?.description?.trim() || null),
    intro: intro.map((paragraph) => paragraph.text),
    sections,
    features,
    install,
    installText: proseOf(installIndex),
    usage,
    usageText: proseOf(usageIndex),
    faq: questions,
    license,
    language,
    ...media,
    truncated,
  };
}

/** A Markdown table as header and rows of plain text, within the page schema's limits; none when a cell is too long. */
function readTableBlock(rows: string[][]): ReadmeTable[] {
  const cells = rows.map((row) => row.slice(0, 8).map((cell) => plainText(cell.replace(/\\\|/g, "|"))));
  const [header, ...body] = cells;
  if (!header || !body.length || header.some((cell) => cell.length > 120)) return [];
  const kept = body.filter((row) => row.some(Boolean)).slice(0, 40);
  if (!kept.length || kept.some((row) => row.some((cell) => cell.length > 300))) return [];
  return [{ header, rows: kept.map((row) => header.map((_cell, index) => row[index] ?? "")) }];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
