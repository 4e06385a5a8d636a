import type { LandingContent } from "../page-content.js";
import { stripCode, stripLeadingEmoji, withoutLinks, type ReadmeFeature, type ReadmeSection } from "../readme-reader.js";
import { capitalize, clean, fallbackSummary, normal, paragraphs, sentence, type Context } from "./context.js";
import { keepIntroduced } from "./introductions.js";
import { isPromotionOrNotice } from "./promotions.js";
import { Said } from "./said.js";
import { echoes, endsDangling, leadingClause, sentences, wholeText } from "./whole-text.js";

type Card = LandingContent["features"][number];

/** A short bullet ("SHA-256 checksum verification"): a title with nothing to say under it. */
const isShort = (text: string) => text.length <= 60 && text.split(/\s+/).length <= 8 && sentences(text).length <= 1;

/**
 * The bullet's text after its lead-in when it starts with it ("**A framework** a platform team
 * embeds: …" → "a platform team embeds: …"), else the text itself.
 */
function afterLead(body: string, lead: string): string {
  const words = normal(lead).split(" ").filter(Boolean);
  if (!words.length) return body;
  const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const start = new RegExp(`^[^\\p{L}\\p{N}]*${escaped.join("[^\\p{L}\\p{N}]+")}(?![\\p{L}\\p{N}])`, "iu").exec(body);
  return start ? body.slice(start[0].length).replace(/^[\s*_`:：.!—–,-]+/, "") : body;
}

/** A clause with its own subject: a pronoun, or a name followed by a verb ("ripgrep supports …", "It can replace …"). */
const SUBJECT = /^(?:it|this|they|we|you|[\p{L}\p{N}.-]+ (?:is|are|has|have|can|will|supports?|provides?|offers?|uses?|lets|makes?|comes?|includes?))\b/iu;

/** True when the rest of a bullet reads as a text of its own: three words or more, starting with a word (not a bracket). */
const readsAlone = (text: string) => /^[\p{L}\p{N}`"“]/u.test(text) && text.split(/\s+/).length >= 3;

/**
 * A bullet's text with its sub-items said after it, in the README's order ("Batteries included:
 * sessions and CSRF protection, a test client, WebSockets"); the text alone without sub-items;
 * null when they are too many or too long to say in one line.
 */
function withItems(text: string, items: string[] | undefined): string | null {
  if (!items?.length) return text;
  const joined = items.join(", ");
  if (items.length > 6 || joined.length > 200 || items.some((item) => /[.;:]$/.test(item))) return null;
  const own = text.replace(/[:：]\s*$/, "").trim();
  return own ? `${own}: ${joined}` : joined;
}

/**
 * One card from a README feature bullet, or null. The title is the bullet's lead-in, else the
 * bullet's leading clause; the body is the README's own text, whole, and never starts with the
 * title: a bullet whose bold lead starts its sentence ("**A framework** a platform team embeds …")
 * says the rest under the title. A bullet that is only a short phrase makes no card (its body
 * would echo its title): it is listed in a section instead.
 */
export function featureCard(feature: ReadmeFeature, name = ""): Card | null {
  // One sentence whose bold lead is only its start: a title and a body would cut it in two.
  if (feature.whole) return null;
  const body = clean(feature.body);
  const lead = clean(feature.title ?? "").replace(/[.!:]$/, "");
  if (lead && body) {
    const after = afterLead(body, lead);
    const rest = keepIntroduced(withItems(after, feature.items) ?? after);
    // A rest of a word or two ("**Dark mode** support") says nothing more: not a card of its own.
    const enough = after === body || readsAlone(rest);
    if (rest && enough && !echoes(lead, rest)) {
      const title = wholeText(capitalize(stripCode(lead)), 60, { clauses: true });
      const text = wholeText(rest, 300);
      return title && text ? { title, body: sentence(capitalize(text)) } : null;
    }
  }
  const whole = keepIntroduced(withItems(body || lead, feature.items) ?? (body || lead));
  if (!whole) return null;
  const first = sentences(whole)[0] ?? whole;
  const title = leadingClause(stripCode(stripLeadingEmoji(withoutLinks(first))).replace(/[.!]$/, ""), 60);
  // The body is what follows the title in the bullet: a card never says its title twice.
  const text = wholeText(afterLead(whole, title ?? ""), 300);
  // No clause to lead with ("SHA-256 checksum verification"), or a rest that does not read on its
  // own ("(lossless where …)"): the bullet is listed, not carded.
  if (!title || !text || !readsAlone(text) || echoes(title, text) || (isShort(whole) && title.split(/\s+/).length < 2)) return null;
  // A sentence cut in two is no card: a title that is its subject and verb ("ripgrep supports many
  // features found" / "In grep, such as …"). The bullet is listed whole instead.
  if (SUBJECT.test(title) || (name && new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s+\\p{Ll}+s\\b`, "iu").test(title))) return null;
  return { title: capitalize(title), body: sentence(capitalize(text)) };
}

/** Feature bullets that make no card: shown as the README's list instead (an item that introduced sub-items too long to say keeps its own words only). */
export function shortFeatures(context: Context): string[] {
  return context.facts.features
    .filter((feature) => featureCard(feature, context.name) === null)
    .map((feature) => {
      const text = clean(feature.title && feature.body && echoes(feature.title, feature.body) ? feature.body : feature.body || feature.title);
      return keepIntroduced(withItems(text, feature.items) ?? text);
    })
    .filter(Boolean);
}

/**
 * Feature cards: from the README's features; when it lists none, from its sections (heading and
 * first paragraph); as a last resort one card with what the README or the repository says it is,
 * or another of its sentences or bullets. A card never says what the page has said already
 * (`said`: the hero, so far); [] when every text the README has would (`whatItIs` is then the card).
 */
export function features(context: Context, proseSections: ReadmeSection[], said: Said = new Said()): Card[] {
  const out: Card[] = [];
  const add = (card: Card | null) => {
    // A card says what the product does: never a request for stars, a thanks line or a bare call to action ("Try it!").
    if (!card || out.length >= 8 || said.repeats(card.body) || isPromotionOrNotice(card.body, context.name) || /^[\p{L} ]{1,20}!$/u.test(card.body)) return;
    if (out.some((existing) => normal(existing.title) === normal(card.title) || normal(existing.body) === normal(card.body))) return;
    out.push(card);
    said.add(card.body);
  };
  for (const feature of context.facts.features) add(featureCard(feature, context.name));
  if (out.length >= 3) return out;
  // Sections with a table are shown whole below: a card would say their first line twice; the
  // feature section is the cards above and its list, not a card of its own.
  // Requirements (dependencies, platforms) are shown as a section, never as what the product does.
  for (const section of proseSections.filter((candidate) => !candidate.tables.length && candidate.role !== "requirements" && !(candidate.role === "features" && context.facts.features.length))) {
    if (out.length >= 3) break;
    const title = wholeText(section.heading, 60, { clauses: true });
    // An introduction ("The list of features includes:") without its list is no card; one that
    // introduces an example picture says something whole without it ("bat supports syntax
    // highlighting for many languages:"), its pointer at the picture ("(see left sidebar)") left out.
    const first = paragraphs(section.text)[0] ?? "";
    const example = section.leads.find((lead) => lead.text === first && lead.next === "picture");
    const statement = example ? first.replace(/\s*\((?:see|shown|pictured)\b[^)]*\)\s*(?=[:：]$)/i, "").replace(/\s*[:：]$/, "") : "";
    const body = wholeText(statement && !endsDangling(statement) && !/\b(?:below|following|these|this|here|as follows)$/i.test(statement) ? statement : keepIntroduced(first, section.leads), 300);
    if (title && body && !echoes(title, body)) add({ title, body: sentence(body) });
  }
  if (out.length) return out;
  // What the README says it is, whole; else one of its sentences or bullets the hero has not said.
  const summary = context.summary ?? "";
  const texts = [summary, context.description, ...sentences(summary), ...context.facts.intro.slice(1), ...shortFeatures(context)];
  for (const text of texts) {
    const what = wholeText(keepIntroduced(text), 300);
    if (!what || said.repeats(what)) continue;
    const card = whatItIs(context, what);
    said.add(card.body);
    return [card];
  }
  return [];
}

/** The one card of a README with no features: what it is, titled with the name, or "What it is" when the text starts with it ("ripfind searches …"). */
export function whatItIs(context: Context, text?: string): Card {
  const what = text ?? wholeText(context.summary ?? "", 300) ?? wholeText(context.description, 300) ?? fallbackSummary(context);
  const body = sentence(keepIntroduced(what) || what);
  return { title: echoes(context.name, body) ? "What it is" : context.name.slice(0, 60), body };
}
