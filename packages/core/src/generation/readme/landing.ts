import type { LandingContent } from "../page-content.js";
import { clipCode, isInstallCommand, stripCode, stripLeadingEmoji, withoutLinks, type ReadmeImage, type ReadmeLead, type ReadmeSection } from "../readme-reader.js";
import { EXCLUDED_ROLES } from "./sections.js";
import { capitalize, fallbackSummary, normal, firstOf, paragraphs, sectionBody, sentence, similar, type Context } from "./context.js";
import { features, shortFeatures, whatItIs } from "./features.js";
import { keepIntroduced, type Shown } from "./introductions.js";
import { isSeparatedRow } from "./link-rows.js";
import { beforePointer, isPromotionOrNotice, POINTER } from "./promotions.js";
import { Said } from "./said.js";
import { balanced, leadingClause, wholeText } from "./whole-text.js";

type Section = LandingContent["sections"][number];

/** Labels the README author writes itself: buttons that name where they lead. Nothing else is its own. */
export function ctaLabels(context: Context): { hero: string; closing: string } {
  if (context.saas) return { hero: "Open the app", closing: "Start now" };
  return context.host ? { hero: `View on ${context.host}`, closing: `Get started on ${context.host}` } : { hero: "View the source", closing: "Get the source" };
}

/** README sections with something to show: prose, a table or a picture (not install, usage, legal, meta or questions). */
export function contentSections(context: Context, page: "landing" | "about"): ReadmeSection[] {
  // Not contributing, sponsors, translations or screenshots: those are for the repository, not a visitor's page.
  const roles = ["overview", "other", "features", "requirements"];
  const pictured = new Set(screenshots(context).map((image) => image.heading));
  return context.facts.sections.filter(
    (section) =>
      (roles.includes(section.role) || (section.tables.length > 0 && !EXCLUDED_ROLES.has(section.role))) &&
      (!["install", "usage", "faq", "toc"].includes(section.role) || (page === "about" && context.saas && section.role === "usage" && section.tables.length > 0)) &&
      (!/\?$/.test(section.heading) || section.tables.length > 0) &&
      (section.text.length >= 30 || section.tables.length > 0 || pictured.has(section.heading)),
  );
}

/** A landing section's text at most: a few paragraphs a visitor reads, not the README's whole setup guide. */
const SECTION_MAX = 700;

/**
 * Headings of sections written for the people who run or sell the project rather than for a
 * visitor deciding whether to use it: settings, HTTPS and proxies, payments, deployment.
 */
const OPERATOR =
  /\b(?:configur\w*|config|settings|environment(?: variables)?|https|tls|ssl|acme|certificates?|caddy|nginx|traefik|reverse proxy|proxy|payments?|billing|stripe|webhooks?|deploy\w*|production|backups?|upgrad\w*|migrat\w*|monitoring|operat(?:or|ors|ions|ing)|systemd|kubernetes|helm)\b/i;

/**
 * How useful a section is to a visitor, best first: 0 what the project is and does (overview,
 * features); 1 the product's other sections; 2 their subsections (their heading may lean on the
 * parent's: "Add it to an editor"); 3 sections for operators (settings, HTTPS, payments).
 */
function usefulness(section: ReadmeSection, topLevel: number): number {
  if (OPERATOR.test(section.heading) || section.role === "reference") return 3;
  if (section.role === "overview" || section.role === "features") return 0;
  return section.level > topLevel ? 2 : 1;
}

/**
 * The `count` most useful of the README's sections, in the README's order. Within the same
 * usefulness, sections with a table come first: the README's numbers belong on the page.
 * With `operators: false` (the landing page) sections for operators are taken only while fewer
 * than `minimum` sections would be shown: a visitor's page does not fill up with setup guides.
 */
export function pickSections(sections: ReadmeSection[], count: number, options: { operators?: boolean; minimum?: number } = {}): ReadmeSection[] {
  if (count <= 0 || !sections.length) return [];
  const topLevel = Math.min(...sections.map((section) => section.level));
  const rank = (section: ReadmeSection) => usefulness(section, topLevel) * 2 + (section.tables.length ? 0 : 1);
  const sorted = [...sections].sort((a, b) => rank(a) - rank(b));
  const chosen = new Set<ReadmeSection>();
  for (const section of sorted) {
    if (chosen.size >= count) break;
    if (options.operators === false && usefulness(section, topLevel) === 3 && chosen.size >= (options.minimum ?? 0)) break;
    chosen.add(section);
  }
  return sections.filter((section) => chosen.has(section));
}

/** What a section shows after its text: an introduction at the end of the text may lead to it. */
export function shownWith(table: unknown, image: unknown): Shown {
  return new Set<ReadmeLead["next"]>([...(table ? (["table"] as const) : []), ...(image ? (["picture"] as const) : [])]);
}

const CODE: Shown = new Set(["code"]);
const NOTHING: Shown = new Set();

/** Every introduction of the README with what follows it. */
function allLeads(context: Context): ReadmeLead[] {
  return context.facts.sections.flatMap((section) => section.leads);
}

/** The README's screenshots (not its logos, nor sponsors' or users' logos), in order. */
export function screenshots(context: Context): ReadmeImage[] {
  return context.facts.images.filter((image) => !image.logo && !image.thirdParty);
}

/** The picture shown with a section: the first screenshot under its heading, unless used already. */
export function sectionImage(context: Context, heading: string, used: Set<string>): { src: string; alt: string } | undefined {
  const image = screenshots(context).find((candidate) => candidate.heading === heading && !used.has(candidate.src));
  if (!image) return undefined;
  used.add(image.src);
  return { src: image.src, alt: image.alt };
}

/** Last words that need what follows them: a participle or a verb waiting for its object. */
const LEADS_ON = /\s(?:\w+ed|built|made|written|designed|includes?|offers?|provides?|supports?|lets|helps|allows|enables|gives|makes|brings|combines|is|are|has|have)$/i;

/**
 * The promise: the README's first sentence, "X is a …" read as "A …" (and "X - is a …" too: the
 * subject is the product, never lost to a bare "is a …"). Never cut: a sentence too long for a
 * headline, or one that introduces a list ("… that includes:"), leaves the headline to the
 * product's name and is said whole as the subtitle.
 */
function heroTitle(context: Context): string | null {
  const source = context.summary ?? context.description;
  if (!source) return null;
  const names = [context.name, context.facts.title, context.request.product.name]
    .filter((name): name is string => Boolean(name))
    .map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("|");
  let first = firstOf(source);
  if (/[:：]/.test(first)) {
    // "tmux is a terminal multiplexer: it enables …": an identity before a colon that explains it (not a list) is whole.
    const [head, ...after] = first.split(/[:：]\s*/);
    const identity = new RegExp(`^(?:${names})\\s+(?:is|are)\\s+(?:an?|the)\\s`, "i").test(withoutLinks(head!));
    const clause = /^\p{Ll}+\s+\p{Ll}+\s+\S+/u.test(after.join(":")) && !/,.*,/.test(after.join(":").split(/\s+/).slice(0, 6).join(" "));
    if (!identity || !clause || LEADS_ON.test(head!.trim())) return null;
    first = head!;
  }
  let s = stripLeadingEmoji(stripCode(withoutLinks(first))).replace(/[.!。]+$/, "");
  const original = s;
  s = s.replace(new RegExp(`^(?:${names})\\s*(?:[—–:-]|\\s-)\\s+`, "i"), "");
  const rewrite = new RegExp(
    `^(?:${names}|this (?:project|library|tool|package|app|application|repo|repository|module|plugin|extension)|it)\\s+(?:is|provides|offers)\\s+(.{8,})$`,
    "i",
  ).exec(s);
  // "X is a …" reads as "A …"; "Redis is often referred to as …" keeps its subject: what follows "is" is no name for it.
  if (rewrite && /^(?:an?|the|one)\s/i.test(rewrite[1]!)) s = rewrite[1]!;
  else if (rewrite) s = original;
  else if (s !== original) s = s.replace(/^(?:is|are)\s+(?=\S.{7,})/i, "");
  // "GaleJS - is a small … framework": the words before the dash are the subject (the name as the sentence writes it).
  else if (/^\S+(?:\s\S+){0,2}\s+[—–-]\s+(?:is|are)\s+\S.{7,}$/i.test(s)) s = s.replace(/^\S+(?:\s\S+){0,2}\s+[—–-]\s+(?:is|are)\s+/i, "");
  // Only a rewritten sentence is capitalised: "pyfetcher downloads …" keeps its lowercase name.
  s = s === original ? s.trim() : capitalize(s.trim());
  if (s.length <= 90 && balanced(s)) return s;
  // A leading clause that keeps the point ("… sorts your Downloads into tidy folders"), never one
  // that stops on what leads to it ("… a web framework built", "… a backend that includes").
  const clause = leadingClause(s, 90, 4);
  return clause && !LEADS_ON.test(clause) ? clause : null;
}

/** The install block: the README's install section, with its own prose and code; null when it has none. */
function installBlock(context: Context, used: Set<string>): Section | null {
  const section = context.installSection;
  if (!section || context.saas) return null;
  // The install prose that introduces the first command ("Or with Homebrew:" belongs to a later one).
  const prose = paragraphs(context.facts.installText).find((part) => /[.!:]$/.test(part) && !/^(?:or|alternatively)\b/i.test(part)) ?? "";
  const shell = context.facts.install.filter((block) => section.code.includes(block) || context.facts.sections.some((s) => s.role === "install" && s.code.includes(block)));
  const codeText = clipCode(shell.slice(0, 3).join("\n\n"), 2000);
  const body = keepIntroduced(wholeText(prose, 1200) ?? "", allLeads(context), codeText ? CODE : NOTHING);
  const table = section.tables[0];
  if (!body && !codeText && !table) {
    const text = sectionBody(section, SECTION_MAX);
    return text ? { title: wholeText(section.heading, 80, { clauses: true }) ?? "Install", body: text } : null;
  }
  const image = sectionImage(context, section.heading, used);
  return {
    title: wholeText(section.heading, 80, { clauses: true }) ?? "Install",
    body,
    ...(codeText ? { code: codeText } : {}),
    ...(table ? { table } : {}),
    ...(image ? { image } : {}),
  };
}

function usageBlock(context: Context): Section | null {
  const { facts } = context;
  if (context.saas || !facts.usage.length) return null;
  const section = facts.sections.find((candidate) => candidate.role === "usage");
  if (!section) return null;
  // A quick start that installs first keeps its install step: with no install section, it is the README's only one.
  const own = section.code;
  const first = own[0] && !context.installSection && own[0].split("\n").every((line) => !line.trim() || isInstallCommand(line)) ? own.slice(0, 2).join("\n\n") : facts.usage[0]!;
  const table = section.tables[0];
  const prose = keepIntroduced(wholeText(paragraphs(facts.usageText)[0] ?? "", 1200) ?? "", allLeads(context), CODE);
  return { title: wholeText(section.heading, 80, { clauses: true }) ?? "Usage", body: prose, code: clipCode(first, 2000), ...(table ? { table } : {}) };
}

/**
 * The hero's title and subtitle: the README's opening, never said twice; with one sentence only,
 * the name leads. Neither says what the page has said already (`said`).
 */
function heroTexts(context: Context, prose: ReadmeSection[], said: Said): { title: string; subtitle: string } {
  const { facts } = context;
  let title = heroTitle(context);
  if (title && said.repeats(title)) title = null;
  const summary = context.summary ?? "";
  const rest = summary && firstOf(summary) !== summary ? summary.slice(firstOf(summary).length).trim() : "";
  const candidates = [
    rest,
    context.description && !(summary && similar(context.description, summary)) ? context.description : "",
    facts.intro[1] ?? "",
    paragraphs(prose[0]?.text ?? "")[0] ?? "",
    summary && title && !similar(title, summary) ? summary : "",
  ];
  // An introduction ("It is three things at once:") says nothing without its list: left out; so
  // are notices, thanks and sponsor lines, rows of names, and sentences that point at what follows.
  const pitchable = (text: string) => {
    const kept = beforePointer(keepIntroduced(text));
    return kept && !isPromotionOrNotice(kept, context.name) && !isSeparatedRow(withoutLinks(kept)) ? kept : "";
  };
  const subtitle = candidates.map((text) => wholeText(pitchable(text), 280)).find((text) => text && (!title || !similar(text, title)) && !said.repeats(text));
  if (subtitle && title) return { title, subtitle };
  const opening = [summary, context.description].map((text) => wholeText(text, 280)).find((text) => text && !said.repeats(text));
  return { title: context.name.slice(0, 90), subtitle: opening ?? subtitle ?? fallbackSummary(context) };
}

/**
 * Texts a closing band never says: warnings, disclaimers, support refusals, compatibility notes,
 * requests to watch or star the repository, lists of languages.
 */
const NOTICE =
  /\b(?:warning|caution|disclaimer|deprecated|breaking changes?|backward[s]?[\s-]compatib\w*|not (?:be )?(?:respond|answer|reply)\w*|(?:do not|don't|please don't) (?:send|e-?mail|contact|open)|watch (?:the )?releases|star (?:this|the|our) (?:repo|repository|project)|not affiliated|use at your own risk|no warranty|translations?)\b/i;

export function landingPage(context: Context): LandingContent {
  const { name, facts } = context;
  const ctas = ctaLabels(context);
  const prose = contentSections(context, "landing");
  const shots = screenshots(context);
  const used = new Set<string>();
  const heroImage = shots[0];
  if (heroImage) used.add(heroImage.src);
  const summary = context.summary ?? "";

  // The page says each sentence once, in reading order: hero, cards, sections, closing band.
  let said = new Said();
  let { title, subtitle } = heroTexts(context, prose, said);
  said.add(title);
  said.add(subtitle);
  let cards = features(context, prose, said);
  if (!cards.length) {
    // Every README text is in the hero already, and the page needs a card: the card says what the
    // project is (the README's first sentence), and the hero gives way: it names the project, its
    // subtitle takes another text, else the site's own line about the project. Not the other way
    // round: a card is where a visitor reads what it does, and the hero can always say the name.
    cards = [whatItIs(context, wholeText(firstOf(summary), 300) ?? undefined)];
    said = new Said();
    said.add(cards[0]!.body);
    ({ title, subtitle } = heroTexts(context, prose, said));
    said.add(title);
    said.add(subtitle);
  }

  const sections: Section[] = [];
  // A section whose text the page has said already keeps its other paragraphs, or is left out.
  const push = (section: Section | null) => {
    if (!section) return;
    const shown = new Set<ReadmeLead["next"]>([...(section.code ? (["code"] as const) : []), ...shownWith(section.table, section.image)]);
    const body = keepIntroduced(said.fresh(section.body), allLeads(context), shown);
    if (!body && !section.code && !section.table && !section.image) return;
    said.add(body);
    sections.push({ ...section, body });
  };
  const install = installBlock(context, used);
  push(install);
  push(usageBlock(context));
  const short = shortFeatures(context);
  const featureHeading = facts.sections.find((section) => section.role === "features")?.heading;
  if (short.length && featureHeading) {
    push({ title: wholeText(featureHeading, 80, { clauses: true }) ?? "Features", body: short.map((item) => `- ${item}`).join("\n").slice(0, 1200) });
  }
  const limit = context.saas ? 4 : 6;
  // A section a card was made from is said once: as the card.
  const carded = new Set(cards.map((card) => normal(card.title)));
  const shownSections = prose.filter((section) => !(section.role === "features" && facts.features.length) && !carded.has(normal(wholeText(section.heading, 60, { clauses: true }) ?? section.heading)));
  // Operator sections (settings, HTTPS, payments) only while the page would show fewer than three.
  for (const section of pickSections(shownSections, limit - sections.length, { operators: false, minimum: 3 - sections.length })) {
    const table = section.tables[0];
    const image = sectionImage(context, section.heading, used);
    const body = sectionBody(section, SECTION_MAX, shownWith(table, image));
    const heading = wholeText(section.heading, 80, { clauses: true });
    if (!heading || (!body && !table && !image)) continue;
    push({ title: heading, body, ...(table ? { table } : {}), ...(image ? { image } : {}) });
  }

  const first = sections[0];
  const secondaryLabel = !first ? "See the features" : first.title === install?.title && first.code ? "How to install" : first.code ? "See an example" : "Learn more";

  // The closing band says only what the README says and the page has not: its install note, else
  // its opening, else another paragraph; with nothing left, nothing (no sentence made up to fill it).
  const installNote = paragraphs(facts.installText).find((part) => /[.!]$/.test(part));
  const closingBody =
    [installNote && install ? installNote : "", summary, context.description, ...facts.intro.slice(1), ...prose.map((section) => paragraphs(section.text)[0] ?? "")]
      .map((text) => wholeText(keepIntroduced(text ?? ""), 300))
      .find((text): text is string => Boolean(text) && !said.repeats(text!) && !NOTICE.test(text!) && !isPromotionOrNotice(text!, name) && !POINTER.test(text!));
  const closingTitle = context.saas ? `Ready to try ${name}?` : `Get started with ${name}`;
  const cta = (!context.saas && (context.download ?? context.primary)) || { label: ctas.closing };

  const metaTitle = title !== name && `${name} — ${title}`.length <= 70 && !similar(title, name) ? `${name} — ${title}` : name.slice(0, 70);
  return {
    kind: "template",
    meta: {
      title: metaTitle,
      description: wholeText(stripCode(summary || context.description), 200, { clauses: true }) ?? wholeText(fallbackSummary(context), 200) ?? name.slice(0, 70),
    },
    hero: {
      title,
      subtitle: sentence(subtitle),
      // A saas site's first button opens the app; the README's destinations come next.
      primary_cta: (context.saas ? context.download : context.primary) ?? { label: ctas.hero },
      secondary_cta: (context.saas ? (context.docs ?? context.primary) : context.docs) ?? { label: secondaryLabel },
      ...(heroImage ? { image: { src: heroImage.src, alt: heroImage.alt } } : {}),
    },
    features: cards,
    sections: sections.slice(0, 6),
    closing: { title: wholeText(closingTitle, 90, { clauses: true }) ?? name.slice(0, 90), ...(closingBody ? { body: sentence(closingBody) } : {}), cta },
  };
}
