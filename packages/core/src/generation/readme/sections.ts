import type { Block } from "./flow.js";

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

const ROLE_PATTERNS: [SectionRole, RegExp][] = [
  ["toc", /^(?:table of contents|contents|toc|index|navigation)$/i],
  ["faq", /^(?:faqs?|f\.a\.q\.?|frequently asked questions|common questions|questions(?: and answers)?|q ?& ?a|troubleshooting)\b/i],
  // Sections about the project's people, money, releases and rules: never its features or its pitch.
  ["meta", /^(?:(?:more |other )?screenshots?|sponsors?|backers|(?:our )?supporters|thank you|who(?:'s| is)? (?:using|uses|integrating)|(?:current )?(?:project )?team(?: members)?\b|governance|deprecat|used by|users of|trusted by|in the wild|donat|funding|translations?|i18n|locali[sz]ation|languages|migrat|upgrad(?:e|ing)\b|breaking changes|backward|vulnerabilit|changelog|change log|release notes|releases|watch|security|disclaimer|warning|notice|credits|acknowledg|thanks|authors?|maintainers?|contributors|star history|stargazers|code of conduct|citation|cite)/i],
  ["install", /^(?:install(?:ation|ing)?|get(?:ting)?[\s-]started|setup|set[\s-]?up|downloads?|how to install|quick install|run(?:ning)?(?: it)? locally|local setup|self[\s-]?host(?:ing|ed)?)\b/i],
  ["usage", /^(?:usage|examples?|quick[\s-]?start|quickstart|how to use|basic usage|using\b|tutorial|cli usage|api usage|command[\s-]line usage)|\busage\b/i],
  ["features", /^(?:(?:key |main |core |notable )?features?|highlights?|why\b|what it does|what (?:does|can) .{1,40} do|capabilities|what'?s included|benefits|advantages)(?!\s*requests?)/i],
  ["license", /^(?:licen[cs]es?|licensing|copyright)\b/i],
  ["contributing", /^(?:contribut|development|developing|building|build from source|hacking|testing|running tests|local development|how to contribute)/i],
  ["support", /^(?:support|help|getting help|community|communication|chat|discussions?|social|contact|issues|bugs|reporting (?:bugs|issues)|feedback|get in touch|stay in touch|follow)\b/i],
  ["requirements", /^(?:requirements|prerequisites|dependencies|system requirements|compatibility|supported platforms|platforms)\b/i],
  ["overview", /^(?:about|overview|introduction|intro|description|what is|summary|background|motivation|philosophy|how it works|concepts|architecture|design|goals)\b/i],
  ["reference", /^(?:api|api reference|reference|configuration|config|options|cli|commands|flags|arguments|parameters|environment variables|methods|props)\b/i],
  ["meta", /^(?:badges?|links|related|versioning|release policy|organi[sz]ation|trademarks?|see also|roadmap|todo|status|references|demo|preview|documentation|docs)/i],
  // A kind of sponsor, support or license named first ("Silver Sponsors", "Commercial support", "Third-party licenses").
  ["meta", /\b(?:sponsors?|backers|supporters|partners)$/i],
  ["support", /\b(?:support|help)$|^getting in touch\b/i],
  // How to build or work on the project, named last ("Server Development") or by its first step ("Cloning the Repository").
  ["contributing", /\b(?:development|contribut\w*)$|^cloning\b|^(?:fixing|troubleshooting)\b.*\bbuild/i],
  ["meta", /\b(?:live demo|releases)$/i],
  ["license", /\blicen[cs]es?$/i],
  // A release announcement ("Gin 1.12.0 is now available!", "News", "What's new").
  ["meta", /^(?:news|announcements?|what'?s new\b)|\bv?\d+\.\d+(?:\.\d+)*\b.*\b(?:available|released|is out|announced)\b/i],
];

/** The role a heading announces ("other" when none). */
export function roleOf(heading: string): SectionRole {
  const h = heading.replace(/[:.]+$/, "").trim();
  for (const [role, pattern] of ROLE_PATTERNS) if (pattern.test(h)) return role;
  return "other";
}

/** Roles whose sections never give the product's features, pitch or closing words. */
export const EXCLUDED_ROLES: ReadonlySet<SectionRole> = new Set(["toc", "license", "contributing", "support", "meta", "faq"]);

export interface RawSection {
  heading: string;
  level: number;
  role: SectionRole;
  blocks: Block[];
  /** The index of the enclosing section, or null. */
  parent: number | null;
}

export interface Outline {
  title: string | null;
  /** The blocks before the first section (the title's own heading left out). */
  intro: Block[];
  sections: RawSection[];
}

const MAX_SECTIONS = 300;

/** A heading as it is named: leading emoji, numbering and a closing colon removed. */
export function headingName(text: string): string {
  return text
    .replace(/^(?:[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u{FE0F}\u{200D}\u{20E3}]\s*)+/u, "")
    .replace(/^\d+(?:\.\d+)*[.)]?\s+/, "")
    .replace(/\s*[:：]$/, "")
    .trim();
}

/**
 * The README's title and sections. The title is a leading heading of the top level that does not
 * name a usual section; centred headings right under it (a header's description line) are
 * paragraphs of the intro, not sections. A subsection without a role takes its parent's.
 */
export function outline(blocks: Block[], name = ""): Outline {
  const named = blocks.map((block) => (block.type === "heading" ? { ...block, text: headingName(block.text) } : block));
  // A heading with no words (a logo in an <h1>) leaves its pictures to the blocks around it.
  const flow: Block[] = named.flatMap((block): Block[] =>
    block.type === "heading" && !block.text
      ? block.pictures.length
        ? [{ type: "paragraph", alert: false, text: "", plain: "", links: block.links, pictures: block.pictures, navigation: true, lead: null, centred: block.centred, small: false }]
        : []
      : [block],
  );
  const headings = flow.flatMap((block, index) => (block.type === "heading" ? [index] : []));
  const topLevel = Math.min(...headings.map((index) => (flow[index] as { level: number }).level), 7);
  let title: string | null = null;
  let start = headings[0] ?? flow.length;
  const first = headings[0] !== undefined ? (flow[headings[0]] as Extract<Block, { type: "heading" }>) : null;
  if (first) {
    const prose = flow.slice(0, headings[0]).filter((block) => block.type === "paragraph" && !block.navigation && block.plain.length > 40).length;
    // A centred heading that does not name the product ("Opinionated Code Formatter" under a logo) is the header's description, not a title.
    const described = first.centred && name.length >= 2 && !normalName(first.text).includes(normalName(name)) && first.text.split(/\s+/).length >= 2;
    if (described && prose === 0 && roleOf(first.text) === "other") {
      flow[headings[0]!] = { type: "paragraph", alert: false, text: first.text, plain: first.text, links: [], pictures: first.pictures, navigation: false, lead: null, centred: true, small: false };
      start = flow.findIndex((block) => block.type === "heading");
      if (start < 0) start = flow.length;
    } else if (first.level === topLevel && !first.summary && prose === 0 && roleOf(first.text) === "other") {
      title = first.text;
      // The title's own pictures (a logo beside the name) stay in the header.
      const logo: Block[] = first.pictures.length
        ? [{ type: "paragraph", alert: false, text: "", plain: "", links: first.links, pictures: first.pictures, navigation: true, lead: null, centred: first.centred, small: false }]
        : [];
      flow.splice(headings[0]!, 1, ...logo);
      // A header's description (a centred heading or one of a lower rank before any text) is the intro's first paragraph.
      for (let index = headings[0]!; index < flow.length; index++) {
        const block = flow[index]!;
        if (block.type === "paragraph" && (block.navigation || !block.plain)) continue;
        if (block.type !== "heading" || !block.centred || block.summary || roleOf(block.text) !== "other" || block.text.split(/\s+/).length < 4) break;
        flow[index] = { type: "paragraph", alert: false, text: block.text, plain: block.text, links: [], pictures: block.pictures, navigation: false, lead: null, centred: true, small: false };
      }
      start = flow.findIndex((block) => block.type === "heading");
      if (start < 0) start = flow.length;
    }
  }
  const intro = flow.slice(0, start).filter((block) => block.type !== "heading");
  const sections: RawSection[] = [];
  for (let index = start; index < flow.length && sections.length < MAX_SECTIONS; index++) {
    const block = flow[index]!;
    if (block.type !== "heading") {
      sections[sections.length - 1]?.blocks.push(block);
      continue;
    }
    let parent: number | null = sections.length - 1;
    while (parent !== null && parent >= 0 && sections[parent]!.level >= block.level) parent = sections[parent]!.parent;
    if (parent !== null && parent < 0) parent = null;
    const own = roleOf(block.text);
    const role = own === "other" && parent !== null ? sections[parent]!.role : own;
    sections.push({ heading: block.text, level: block.level, role, blocks: [], parent });
  }
  return { title, intro, sections };
}

const normalName = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

/** A section and its subsections, in order. */
export function descendants(sections: RawSection[], index: number): RawSection[] {
  const out: RawSection[] = [sections[index]!];
  for (let next = index + 1; next < sections.length && sections[next]!.level > sections[index]!.level; next++) out.push(sections[next]!);
  return out;
}

/** The first section of a role that is not inside another of the same role; -1 when none. */
export function firstOfRole(sections: RawSection[], role: SectionRole): number {
  return sections.findIndex((section) => section.role === role && sections[section.parent ?? -1]?.role !== role);
}
