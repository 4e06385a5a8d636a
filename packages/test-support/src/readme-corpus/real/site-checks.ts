import type { AboutContent, FaqContent, LandingContent, PageContent, PageKind } from "@reposite/core";

/**
 * Issue 23: what a maintainer would refuse to publish, checked on a site's pages. Each check takes
 * the site (its pages' content and their rendered markup) and the README it was made from, and
 * answers its problems as readable lines; none looks inside the author. The README author's sites
 * and the AI author's answers are held to the same checks.
 */

export interface CheckedSite {
  /** The README as its maintainers wrote it. */
  readme: string;
  /** The repository's address (the renderer's own default link, so not a README link). */
  repositoryUrl: string;
  /** Web addresses the README names as the product's homepage, docs, download or demo: one of them must be linked. */
  destinations: string[];
  /** The product as the repository names and describes it (GitHub's name and description), for the hero check; optional for sites checked without them. */
  product?: { name: string; description: string };
  pages: Partial<Record<PageKind, PageContent>>;
  /** Each page rendered in a design. */
  html: Partial<Record<PageKind, string>>;
}

export interface SiteCheck {
  name: string;
  problems(site: CheckedSite): string[];
}

// ---------------------------------------------------------------------------------------------
// Rendered text

const ENTITIES: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&#96;": "`", "&amp;": "&" };

/** What a visitor reads on a rendered page: the body's text outside code, tags gone, the renderer's escapes undone. */
export function visibleText(markup: string): string {
  return markup
    .replace(/<head>[\s\S]*?<\/head>/, " ")
    .replace(/<(pre|code|style|script)\b[\s\S]*?<\/\1>/g, " ")
    // Decoration hidden from readers (the terminal design's "#" and "~/" marks) is the design's, not text.
    .replace(/<(span|p|div)\b[^>]*aria-hidden="true"[^>]*>[^<]*<\/\1>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&(?:lt|gt|quot|#39|#96|amp);/g, (entity) => ENTITIES[entity]!)
    .replace(/[ \t]+/g, " ");
}

/** Every `<a href>` of a rendered page. */
export function hrefs(markup: string): string[] {
  return [...markup.matchAll(/<a\b[^>]*\shref="([^"]*)"/g)].map((match) => match[1]!.replace(/&amp;/g, "&"));
}

/** An address without scheme, `www.` and trailing slash, for comparing links. */
const bare = (url: string) => url.replace(/^https?:\/\//i, "").replace(/^www\./i, "").replace(/\/+$/, "").replace(/#.*$/, "").toLowerCase();

// ---------------------------------------------------------------------------------------------
// Content texts

interface Text {
  path: string;
  value: string;
}

/** Every text of a page with its path; code, addresses, tables and the kind apart. */
export function texts(value: unknown, path = ""): Text[] {
  if (typeof value === "string") return [{ path, value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => texts(item, `${path}[${index}]`));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => (["code", "src", "href", "table", "kind"].includes(key) ? [] : texts(item, path ? `${path}.${key}` : key)));
  }
  return [];
}

const words = (text: string) => text.toLowerCase().replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[^\p{L}\p{N}]+/gu, " ").trim();

/** Sentences of a text as words, those of at least `min` words. */
function sentenceWords(text: string, min: number): string[] {
  return text
    .split(/(?<=[.!?。])\s+|\n+/)
    .map(words)
    .filter((sentence) => sentence.split(" ").length >= min);
}

// ---------------------------------------------------------------------------------------------
// README sections, in Markdown, reStructuredText, AsciiDoc or plain text

export interface ReadmeHeading {
  title: string;
  level: number;
  /** The section's text, its subsections included. */
  text: string;
}

/** A heading's words: HTML, images, link targets, emoji codes and marks gone. */
function headingText(raw: string): string {
  return raw
    .replace(/<[^>]+>/g, " ")
    .replace(/!\[[^\]]*\]\([^)]*\)/g, " ")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/:[a-z0-9_+-]+:/g, " ")
    .replace(/[*_`#=]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The README's headings with their sections' text, found line by line (a test's reading, not the author's). */
export function readmeHeadings(readme: string): ReadmeHeading[] {
  const lines = readme.replace(/\r\n?/g, "\n").split("\n");
  const found: { line: number; end: number; title: string; level: number }[] = [];
  const rstLevels: string[] = [];
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    const next = lines[i + 1] ?? "";
    let match: RegExpExecArray | null;
    if ((match = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line))) found.push({ line: i, end: i, title: match[2]!, level: match[1]!.length });
    else if ((match = /^(={1,6})\s+(.+)$/.exec(line))) found.push({ line: i, end: i, title: match[2]!, level: match[1]!.length });
    else if ((match = /<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1>/i.exec(line))) found.push({ line: i, end: i, title: match[2]!, level: Number(match[1]) });
    else if (line.trim() && /^([=\-~^"'`*+#])\1{2,}\s*$/.test(next) && next.trim().length >= Math.min(line.trim().length, 3) && !/^\s*[-*+|]/.test(line)) {
      const mark = next.trim()[0]!;
      if (!rstLevels.includes(mark)) rstLevels.push(mark);
      found.push({ line: i, end: i + 1, title: line, level: mark === "=" && !readme.includes("\n.. ") ? 1 : rstLevels.indexOf(mark) + 1 });
      i++;
    }
  }
  return found.map((heading, index) => {
    const after = found.slice(index + 1).find((other) => other.level <= heading.level);
    return { title: headingText(heading.title), level: heading.level, text: lines.slice(heading.end + 1, after ? after.line : lines.length).join("\n") };
  });
}

/** Sections no page may take cards, sections or a closing band from (issue 23). */
export const EXCLUDED_SECTION =
  /\b(sponsors?|sponsorship|backers?|(more )?screenshots?|contribut(ing|ors?|ions?|e)|licen[cs]es?|licensing|translations?|translating|community|support|getting help|migrat(ion|ing)|upgrading from|change ?logs?|release notes|security|donat(e|ions?)|funding|thanks|acknowledg(e)?ments|credits)\b/i;

/** The README's excluded sections (Sponsors, Contributing, License, …), with their text. */
export function excludedSections(readme: string): ReadmeHeading[] {
  return readmeHeadings(readme).filter((heading) => heading.title && heading.title.split(" ").length <= 6 && EXCLUDED_SECTION.test(heading.title));
}

// ---------------------------------------------------------------------------------------------
// The checks

const landingOf = (site: CheckedSite) => site.pages.template as LandingContent | undefined;

/** Words a cut sentence ends on: an article, a preposition, a conjunction, a verb waiting for its object. */
const DANGLING =
  /\b(a|an|the|and|or|but|of|to|for|with|in|on|at|by|from|into|as|like|such as|includes?|including|built|is|are|was|be|that|which|your|its|their|our|via|using|supports?|provides?)\s*$/i;

/** A row of links or a table of contents: three or more parts between separators. */
const LINK_ROW = /^[^|•·]{1,40}(\s*[|•·]\s*[^|•·]{1,40}){2,}$/;

const CALL_TO_ACTION = /^(try it( now| out| online)?|get started|learn more|read more|download( now)?|install( now)?|click here|see (the )?demo)[.!]*$/i;

/**
 * Lines that are no product's one-liner, whatever the README: a notice or announcement, a merch,
 * sponsor or thanks line, the README speaking of itself, a customer or user quote ("Microsoft uses
 * pnpm …"), a label before a link ("Source Code: https://…"), a pointer to what the page does not
 * show ("the goals below").
 */
const NOT_A_PITCH: [string, RegExp][] = [
  ["a notice or announcement", /\b(?:we(?:['’]re| are) (?:excited|happy|pleased|proud) to|(?:is|are) (?:now )?(?:deprecated|archived|unmaintained)|no longer maintained|(?:announc\w+|released?) (?:the )?(?:release|version|v\d)|(?:release|version) \d+(?:\.\d+)+ (?:is|has been) (?:out|released))|^(?:note|warning|caution|important|announcement|news|update)\b\s*[:!-]/i],
  ["a merch, sponsor or thanks line", /\b(?:t-?shirts?|mugs|stickers|merch(?:andise)?|swag|sponsor(?:ed|s|ship)?|backed by|special thanks|thanks to|thank you|donat(?:e|ions?)|support (?:us|the project|this project)|show your love|buy me a coffee)\b/i],
  ["the README speaking of itself", /\b(?:this|the) (?:readme|document|file|page|repo(?:sitory)?) (?:is|contains|describes|explains|covers|only)\b|^this readme\b/i],
  ["a pointer to what the page does not show", /\b(?:below|the following|see above)\b/i],
  ["a label before a link", /^[\p{L} ]{2,30}:\s*(?:\[[^\]]*\]\()?(?:https?:\/\/|www\.)\S+\)?\.?$/iu],
];

/** A customer or user quote: an organisation doing something with the product ("Microsoft uses pnpm in Rush repos"). */
function customerQuote(value: string, name: string): boolean {
  const subject = /^(\S+(?: \S+){0,2}?) (?:uses|relies on|runs on|chose|switched to|migrated to|loves|trusts) (\S+)/.exec(value);
  if (!subject || !name) return false;
  const [, who, what] = subject;
  return /^\p{Lu}/u.test(who!) && !/^(?:you|we|it|this|everyone|nobody)$/i.test(who!) && words(who!) !== words(name) && words(what!) === words(name);
}

const STOPWORDS = new Set("a an the and or of for to in on with by from into your you it its is are be that this which as at via open source".split(" "));
const contentWords = (text: string) => new Set(words(text).split(" ").filter((word) => word.length >= 3 && !STOPWORDS.has(word)));

/**
 * True when a hero text says what the product is: an identity sentence ("A …", "The …", "<name> is
 * …", "<name> — …", "<name>, a …"), or the owner's own one-liner in other words (two or more of the
 * repository description's words).
 */
function saysWhatItIs(value: string, product: { name: string; description: string }): boolean {
  const text = value.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").trim();
  const name = product.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  if (/^(?:an?|the)\s/i.test(text) || new RegExp(`^${name}(?:\\s+(?:is|are)\\b|\\s*[—–:,-]\\s)`, "i").test(text)) return true;
  const own = contentWords(product.description.replace(/:[a-z0-9_+-]+:/g, " "));
  own.delete(words(product.name));
  return [...contentWords(text)].filter((word) => own.has(word)).length >= 2;
}

/** The hero as a maintainer would publish it: title and subtitle whole, neither a notice, a quote or a pointer, and one of them saying what the product is. */
function heroPitchProblems(landing: LandingContent, product: CheckedSite["product"]): string[] {
  const out: string[] = [];
  for (const [label, text] of [["hero title", landing.hero.title], ["hero subtitle", landing.hero.subtitle]] as const) {
    const value = text.replace(/\[([^\]]*)\]\(([^)]*)\)/g, (_all, label: string, href: string) => (label.trim() ? label : href)).trim();
    for (const [what, pattern] of NOT_A_PITCH) if (pattern.test(value)) out.push(`${label} is ${what}: "${value}"`);
    if ((product && customerQuote(value, product.name)) || /^["“„«]/.test(value)) out.push(`${label} is a customer or user quote: "${value}"`);
    if (/^\[[^\]]*\]\([^)]*\)[.!]?$/.test(text.trim())) out.push(`${label} is only a link: "${value}"`);
  }
  if (product && !saysWhatItIs(landing.hero.title, product) && !saysWhatItIs(landing.hero.subtitle, product)) {
    out.push(`neither the hero title nor its subtitle says what ${product.name} is: "${landing.hero.title}" / "${landing.hero.subtitle}"`);
  }
  return out;
}

function heroProblems(label: string, text: string): string[] {
  const value = text.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").trim();
  const out: string[] = [];
  if (/:$/.test(value)) out.push(`${label} ends on a colon: "${value}"`);
  if (/(…|\.\.\.)$/.test(value)) out.push(`${label} is cut with an ellipsis: "${value}"`);
  if (DANGLING.test(value.replace(/[.!?]$/, "")) && !/[.!?]$/.test(value)) out.push(`${label} stops mid-sentence: "${value}"`);
  if (LINK_ROW.test(value)) out.push(`${label} is a row of links or a table of contents: "${value}"`);
  if (CALL_TO_ACTION.test(value)) out.push(`${label} is a call to action: "${value}"`);
  if (!/[\p{L}\p{N}]/u.test(value)) out.push(`${label} says nothing: "${value}"`);
  return out;
}

/** Patterns of Markdown, HTML, reStructuredText and AsciiDoc that a visitor should never read. */
const RAW_MARKUP: [string, RegExp][] = [
  ["Markdown link", /\]\(|\[[^\]\n]{1,80}\]\[[^\]\n]{0,40}\]/],
  ["Markdown image", /!\[/],
  ["Markdown emphasis", /\*\*[^*\n]+\*\*|(^|\s)__[^_\n]+__(\s|$)/],
  ["Markdown heading mark", /(^|\n)\s*#{1,6} \S/],
  ["code fence", /```|~~~/],
  ["Markdown table row", /\|\s*:?-{3,}|^\s*\|.*\|\s*$/m],
  ["HTML tag", /<\/?(?:a|p|div|img|br|h[1-6]|span|table|tr|td|th|picture|source|details|summary|sup|sub|b|i|strong|em|kbd|center|hr|ul|li|ol)\b[^<>]*>/i],
  ["HTML entity", /&(?:[a-z]{2,8}|#\d{2,5});/i],
  ["emoji code", /(^|\s|\()(:[a-z][a-z0-9_+-]*:)(?=\s|$|[.,)])/],
  ["reStructuredText markup", /`[^`\n]+ <[^>\n]+>`_|\.\. [a-z-]+::|\|[a-z][\w -]*\|_?|`_\b/],
  // A reference ("Scrapy_", "`the docs`_"), a role (":ref:`install`", ":pep:"), a comment or target line (".. _install:").
  ["reStructuredText reference", /(?<![\w`/.-])[A-Za-z][\w.-]*[A-Za-z0-9]__?(?=[\s.,;:!?)]|$)/],
  ["reStructuredText role", /(?:^|[\s(]):[a-z][\w-]*(?::[a-z][\w-]*)?:(?:`|(?=[\s.,]))/],
  ["reStructuredText comment or target", /(?:^|\n)[ \t]*\.\.[ \t]+(?:_|\[|\||[a-z][\w-]*::|$)/],
  ["AsciiDoc markup", /\b(?:link|image|xref|include):[^\s[]*\[|https?:\/\/\S+\[[^\]]*\]|(^|\n)(?:ifdef|ifndef|endif)::|\{[a-z][\w-]*\}/],
  // A macro or description-list mark ("image::shot.png[]", "Term:: text"), a block attribute line ("[CAUTION]", "[source,ruby]").
  ["AsciiDoc macro or list mark", /\b[\w-]+::(?=\s|$|[^\s[]*\[)/],
  ["AsciiDoc block attribute", /(?:^|\n)[ \t]*\[(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION|source[^\]\n]*|quote[^\]\n]*|listing|literal|verse[^\]\n]*|#[\w-]+|\.[\w-]+)\]/],
];

export const CHECKS: SiteCheck[] = [
  {
    name: "an outbound link on the landing page",
    problems(site) {
      const own = bare(site.repositoryUrl);
      const outbound = hrefs(site.html.template ?? "").filter((href) => /^https?:/i.test(href) && bare(href) !== own);
      return outbound.length ? [] : ["the landing page links nowhere outside the site but the repository itself"];
    },
  },
  {
    name: "the README's primary destination linked",
    problems(site) {
      if (site.destinations.length === 0) return [];
      const links = hrefs(site.html.template ?? "").map(bare);
      const linked = site.destinations.some((destination) => links.some((href) => href.startsWith(bare(destination))));
      return linked ? [] : [`none of ${site.destinations.join(", ")} is linked on the landing page (links: ${links.filter((l) => l && !l.startsWith("/")).slice(0, 6).join(", ") || "none"})`];
    },
  },
  {
    name: "a whole hero that says what the product is",
    problems(site) {
      const landing = landingOf(site);
      if (!landing) return ["no landing page"];
      return [...heroProblems("hero title", landing.hero.title), ...heroProblems("hero subtitle", landing.hero.subtitle), ...heroPitchProblems(landing, site.product)];
    },
  },
  {
    name: "no raw Markdown or HTML",
    problems(site) {
      const out: string[] = [];
      for (const [kind, markup] of Object.entries(site.html)) {
        const text = visibleText(markup!);
        for (const [what, pattern] of RAW_MARKUP) {
          const match = pattern.exec(text);
          if (match) out.push(`${kind}: ${what}: "…${text.slice(Math.max(0, match.index - 40), match.index + match[0].length + 40).replace(/\s+/g, " ").trim()}…"`);
        }
      }
      return out;
    },
  },
  {
    name: "no text ending in a colon with nothing after",
    problems(site) {
      const out: string[] = [];
      for (const [kind, page] of Object.entries(site.pages)) {
        for (const { path, value } of texts(page)) {
          const parts = value.split(/\n\s*\n/).map((part) => part.trim()).filter(Boolean);
          parts.forEach((part, index) => {
            const lines = part.split("\n");
            lines.forEach((line, at) => {
              if (!/:\s*$/.test(line)) return;
              // A lead-in is followed by its list: the next line (deeper or a list item), or the next paragraph being a list.
              const nextLine = lines[at + 1];
              const nextPart = at === lines.length - 1 ? parts[index + 1] : undefined;
              const listFollows = (nextLine !== undefined && /^\s*[-*•]\s/.test(nextLine)) || (nextPart !== undefined && /^\s*[-*•]\s/.test(nextPart));
              const lastOfBody = at === lines.length - 1 && index === parts.length - 1;
              const shown = lastOfBody && path.endsWith(".body") && hasMedia(page, path);
              if (!listFollows && !shown) out.push(`${kind} ${path}: "${line.trim().slice(-100)}"`);
            });
          });
        }
      }
      return out;
    },
  },
  {
    name: "no card, section or closing band from an excluded section",
    problems(site) {
      const excluded = excludedSections(site.readme);
      if (excluded.length === 0) return [];
      const excludedTitles = new Set(excluded.map((heading) => words(heading.title)));
      const excludedText = ` ${excluded.map((heading) => words(heading.text)).join(" ")} `;
      // Sentences said elsewhere in the README too are not proof of where a card came from.
      let rest = site.readme;
      for (const heading of excluded) rest = rest.replace(heading.text, " ");
      const restText = ` ${words(rest)} `;
      const fromExcluded = (text: string) => sentenceWords(text, 5).find((sentence) => excludedText.includes(` ${sentence} `) && !restText.includes(` ${sentence} `));
      const out: string[] = [];
      const blocks: { label: string; title: string; body: string }[] = [];
      const landing = landingOf(site);
      if (landing) {
        landing.features.forEach((feature, i) => blocks.push({ label: `card ${i + 1}`, title: feature.title, body: feature.body }));
        landing.sections.forEach((section, i) => blocks.push({ label: `landing section ${i + 1}`, title: section.title, body: section.body }));
        blocks.push({ label: "closing band", title: landing.closing.title, body: landing.closing.body ?? "" });
      }
      const about = site.pages.about as AboutContent | undefined;
      about?.sections.forEach((section, i) => blocks.push({ label: `About section ${i + 1}`, title: section.title, body: section.body }));
      for (const block of blocks) {
        if (excludedTitles.has(words(block.title))) out.push(`${block.label} is the README's "${block.title}" section`);
        const sentence = fromExcluded(block.body);
        if (sentence) out.push(`${block.label} ("${block.title}") says "${sentence}" from an excluded section`);
      }
      return out;
    },
  },
  {
    name: "no repeated section",
    problems(site) {
      const out: string[] = [];
      for (const [kind, page] of Object.entries(site.pages)) {
        const blocks = blocksOf(page!);
        const titles = new Map<string, string>();
        for (const block of blocks) {
          const key = words(block.title);
          if (!key) continue;
          if (titles.has(key)) out.push(`${kind}: "${block.title}" is shown as ${titles.get(key)} and again as ${block.label}`);
          else titles.set(key, block.label);
        }
        const said = new Map<string, string>();
        for (const block of blocks) {
          for (const sentence of new Set(sentenceWords(block.body, 6))) {
            const before = said.get(sentence);
            if (before && before !== block.label) out.push(`${kind}: ${block.label} repeats ${before}: "${sentence}"`);
            else said.set(sentence, block.label);
          }
        }
      }
      return out;
    },
  },
];

/** True when the object holding a `.body` shows code, a table or a picture after it. */
function hasMedia(page: unknown, path: string): boolean {
  const holder = path
    .replace(/\.body$/, "")
    .split(/\.|(?=\[)/)
    .filter(Boolean)
    .reduce<unknown>((value, key) => {
      const index = /^\[(\d+)\]$/.exec(key);
      return value && typeof value === "object" ? (value as Record<string, unknown>)[index ? Number(index[1]) : key] : undefined;
    }, page);
  const object = holder as { code?: unknown; table?: unknown; image?: unknown } | undefined;
  return Boolean(object && (object.code || object.table || object.image));
}

/** A page's titled blocks: cards and sections (landing), sections (About), questions (FAQ). */
function blocksOf(page: PageContent): { label: string; title: string; body: string }[] {
  if (page.kind === "template") {
    return [
      ...page.features.map((feature, i) => ({ label: `card ${i + 1}`, title: feature.title, body: feature.body })),
      ...page.sections.map((section, i) => ({ label: `section ${i + 1}`, title: section.title, body: section.body })),
    ];
  }
  if (page.kind === "about") return page.sections.map((section, i) => ({ label: `section ${i + 1}`, title: section.title, body: section.body }));
  if (page.kind === "faq") return (page as FaqContent).items.map((item, i) => ({ label: `question ${i + 1}`, title: item.question, body: item.answer }));
  return [];
}

/** Problems of the server-path check: a local folder's path shown anywhere on the site. */
export function serverPathProblems(folder: string, site: Pick<CheckedSite, "pages" | "html">): string[] {
  const out: string[] = [];
  for (const [kind, page] of Object.entries(site.pages)) {
    for (const { path, value } of texts(page)) if (value.includes(folder)) out.push(`${kind} ${path}: "${value.slice(0, 120)}"`);
  }
  for (const [kind, markup] of Object.entries(site.html)) if (markup!.includes(folder)) out.push(`${kind}: the rendered page names ${folder}`);
  return out;
}
