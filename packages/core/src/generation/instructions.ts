import { unprocessable } from "../errors.js";

/** Longest `instructions` accepted, in characters (Unicode code points, so an emoji counts once). */
export const INSTRUCTIONS_MAX = 2000;

/** Pages that take wishes. The sign-in page ignores them. */
export type InstructedPage = "template" | "about" | "faq";

/** Fails with `422 instructions_too_long` when `text` is over {@link INSTRUCTIONS_MAX} characters. */
export function assertInstructionsLength(text: string | null | undefined): void {
  if (text == null) return;
  const length = [...text].length;
  if (length > INSTRUCTIONS_MAX) {
    throw unprocessable(
      `instructions: at most ${INSTRUCTIONS_MAX} characters are allowed (got ${length}).`,
      "instructions_too_long",
    );
  }
}

export interface SplitOptions {
  /**
   * Where a wish naming no page goes. The landing page by default (the API's rule); a caller that
   * remakes a single page, e.g. `{kind: "about", regenerate: true, instructions}`, may send them there.
   */
  unnamedTo?: InstructedPage;
}

/**
 * Splits the owner's wishes into the part meant for each page.
 *
 * Rules, in order:
 * 1. The text is cut into lines; a bullet (`-`, `*`, `+`, `•`, `1.`, `1)`) or heading mark (`#`) at
 *    the start of a line is removed; each line is cut into sentences at `.`, `!` or `?` followed by
 *    a space (not after abbreviations such as "e.g.").
 * 2. A label names pages explicitly: `About: mention the team` sends that sentence, and the rest
 *    of its line, to About (the label itself is dropped). A line that is only a label (`FAQ:`,
 *    `## About page`, `For the landing and About pages:`) opens a block: the lines after it belong
 *    to it until another label, and, unless the label was a `#` heading, until a blank line
 *    followed by a line that is not a bullet or indented.
 * 3. A sentence goes to every page it names or its label names:
 *    - About: "about page", "about us", "about:", "/about", the capitalised word "About" (at the
 *      start of a sentence only before a verb such as "should" or "needs": "About pricing, say …" is
 *      not a mention), "ABOUT";
 *    - FAQ: "faq"/"FAQs"/"F.A.Q.", "question(s)", "Q&A", "/faq";
 *    - landing page: "landing (page)", "home page"/"homepage", "hero", "front page", "main page",
 *      "start page", "index page".
 * 4. A sentence naming no page goes to the landing page (or `options.unnamedTo`).
 * 5. A sentence naming only the sign-in page ("sign-in page", "login form", "auth page", "/auth",
 *    a `Sign-in:` label) is dropped: the sign-in page ignores wishes. Naming it next to another page
 *    does not stop the sentence from reaching that page.
 *
 * Sentences of one line that go to the same page stay on one line; lines are joined with "\n".
 * Pages with nothing meant for them are absent from the result.
 */
export function splitInstructions(
  text: string | undefined | null,
  options: SplitOptions = {},
): Partial<Record<InstructedPage, string>> {
  const unnamedTo = options.unnamedTo ?? "template";
  const result: Partial<Record<InstructedPage, string[]>> = {};
  if (!text || !text.trim()) return {};

  let block: { pages: Set<Destination>; heading: boolean } | null = null;
  let blankSinceBlock = false;

  for (const rawLine of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (!rawLine.trim()) {
      blankSinceBlock = true;
      continue;
    }
    const isHeading = /^\s{0,3}#{1,6}\s/.test(rawLine);
    const isNested = /^\s+\S/.test(rawLine) || BULLET.test(rawLine);
    const line = stripLineMarks(rawLine);
    if (!line) continue;

    const onlyLabel = labelPages(line.replace(/[:：]\s*$/, ""));
    if (onlyLabel) {
      block = { pages: onlyLabel, heading: isHeading };
      blankSinceBlock = false;
      continue;
    }
    if (block && !block.heading && blankSinceBlock && !isNested) block = null;
    if (isHeading && block) block = null;

    let linePages = new Set<Destination>(block?.pages ?? []);
    const perPage: Partial<Record<InstructedPage, string[]>> = {};
    for (let sentence of splitSentences(line)) {
      // A label ("About: …") names the pages of its sentence and of the rest of the line.
      const labelled = /^([^:：]{1,60})[:：]\s*(.*)$/s.exec(sentence);
      const label = labelled ? labelPages(labelled[1]!) : null;
      if (labelled && label) {
        linePages = label;
        sentence = labelled[2]!.trim();
        if (!sentence) continue;
      }
      const pages = new Set<Destination>([...linePages, ...namedPages(sentence)]);
      const targets = [...pages].filter((page): page is InstructedPage => page !== "auth");
      if (targets.length === 0 && pages.has("auth")) continue;
      for (const page of targets.length ? targets : [unnamedTo]) (perPage[page] ??= []).push(sentence);
    }
    for (const [page, sentences] of Object.entries(perPage) as [InstructedPage, string[]][]) {
      (result[page] ??= []).push(sentences.join(" "));
    }
  }

  const out: Partial<Record<InstructedPage, string>> = {};
  for (const [page, lines] of Object.entries(result) as [InstructedPage, string[]][]) {
    if (lines.length) out[page] = lines.join("\n");
  }
  return out;
}

type Destination = InstructedPage | "auth";

const BULLET = /^\s*(?:[-*+•‣▪◦]|\d{1,3}[.)])\s+/;

function stripLineMarks(line: string): string {
  return line
    .replace(/^\s*#{1,6}\s+/, "")
    .replace(BULLET, "")
    .replace(/^\s*\[[ xX]\]\s+/, "")
    .replace(/^(\*\*|__)(.+?)\1(?=\s*[:：]?\s*$|[:：])/, "$2")
    .replace(/\s+#+\s*$/, "")
    .trim();
}

/** Words a label may be made of, with the page each one names. */
const LABEL_WORDS: [Destination, RegExp][] = [
  ["faq", /\bfrequently asked questions\b|\bf\.?a\.?q\.?s?(?![\w])|\bq\s*&\s*a\b|\bq and a\b|\bquestions\b/g],
  ["about", /\babout(?:[\s-]+us)?\b/g],
  ["template", /\blanding\b|\bhome[\s-]?page\b|\bhome\b|\bhero\b|\bfront\b|\bmain\b|\bstart\b|\bindex\b/g],
  ["auth", /\bsign[\s-]?in\b|\bsign[\s-]?up\b|\blog[\s-]?in\b|\bauth(?:entication)?\b|\bregistration\b|\baccount\b/g],
];
const LABEL_FILLERS =
  /\b(?:for|on|in|to|the|a|an|of|and|page|pages|section|sections|screen|form|wishes|wish|instructions|notes|only|both|all)\b|[&,/+()\-–—*_`"'“”‘’]/g;

/** The pages a label names, or null when `prefix` is not made only of page names and fillers. */
function labelPages(prefix: string): Set<Destination> | null {
  let rest = ` ${prefix.toLowerCase()} `;
  const found = new Set<Destination>();
  for (const [page, pattern] of LABEL_WORDS) {
    const next = rest.replace(pattern, " ");
    if (next !== rest) found.add(page);
    rest = next;
  }
  return found.size > 0 && rest.replace(LABEL_FILLERS, " ").trim() === "" ? found : null;
}

const NAMES: [Destination, RegExp][] = [
  ["about", /\babout[\s-]+(?:us|page|section|tab)\b|(?:^|\s)\/about\b|["'“‘]about["'”’]/i],
  ["about", /\bABOUT\b/],
  ["faq", /\bf\.?a\.?q\.?s?(?![\w])|\bquestions?\b|\bQ\s*&\s*A\b|\bQ and A\b|(?:^|\s)\/faq\b/i],
  ["template", /\blanding\b|\bhome[\s-]?page\b|\bhero\b|\bfront[\s-]?page\b|\b(?:main|start|index)\s+page\b/i],
  [
    "auth",
    /\b(?:sign[\s-]?in|sign[\s-]?up|log[\s-]?in|auth(?:entication)?|registration|register|account)\s+(?:page|screen|form)\b|(?:^|\s)\/auth\b/i,
  ],
];
/** "About" as the first word is a page only before a verb ("About should …"), not as a preposition. */
const ABOUT_FIRST = /^About\s+(?:should|must|needs?|could|can|will|would|is|has|gets?|may|shall|to)\b/;

function namedPages(sentence: string): Set<Destination> {
  const found = new Set<Destination>();
  for (const [page, pattern] of NAMES) if (pattern.test(sentence)) found.add(page);
  const start = sentence.replace(/^[\s"'“‘(\[*_]+/, "");
  for (const match of start.matchAll(/\bAbout\b/g)) {
    if (match.index > 0 || ABOUT_FIRST.test(start)) found.add("about");
  }
  return found;
}

const ABBREVIATION = /^(?:(?:[a-z]\.)+[a-z]|etc|vs|cf|approx|incl|esp|no|nr|dr|mr|mrs|ms|st|jr|sr|fig|ca|resp|[a-z])\.$/i;

/** Cuts a line into sentences at `.`, `!`, `?` followed by a space, not after an abbreviation. */
export function splitSentences(line: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const match of line.matchAll(/[.!?]+["'”’)\]]*(?=\s+\S)/g)) {
    const end = match.index + match[0].length;
    const lastWord = /(\S+)$/.exec(line.slice(start, match.index))?.[1] ?? "";
    if (match[0].startsWith(".") && match[0].length === 1 && ABBREVIATION.test(`${lastWord}.`)) continue;
    out.push(line.slice(start, end).trim());
    start = end;
  }
  out.push(line.slice(start).trim());
  return out.filter(Boolean);
}
