import type { LandingContent } from "../page-content.js";
import { stripCode, stripLeadingEmoji, type ReadmeFeature } from "../readme-reader.js";
import { capitalize, clean, fallbackSummary, normal, paragraphs, sentence, type Context } from "./context.js";
import { echoes, leadingClause, sentences, wholeText } from "./whole-text.js";

type Card = LandingContent["features"][number];

/** A short bullet ("SHA-256 checksum verification"): a title with nothing to say under it. */
const isShort = (text: string) => text.length <= 60 && text.split(/\s+/).length <= 8 && sentences(text).length <= 1;

/**
 * One card from a README feature bullet, or null. The title is the bullet's lead-in, else the
 * bullet's leading clause; the body is the README's own text, whole. A bullet that is only a
 * short phrase makes no card (its body would echo its title): it is listed in a section instead.
 */
export function featureCard(feature: ReadmeFeature): Card | null {
  const body = clean(feature.body);
  const lead = clean(feature.title ?? "").replace(/[.!:]$/, "");
  if (lead && body && !echoes(lead, body)) {
    const title = wholeText(capitalize(stripCode(lead)), 60, { clauses: true });
    const text = wholeText(body, 300);
    return title && text ? { title, body: sentence(capitalize(text)) } : null;
  }
  const whole = body || lead;
  if (!whole) return null;
  const first = sentences(whole)[0] ?? whole;
  const title = leadingClause(stripCode(stripLeadingEmoji(first)).replace(/[.!]$/, ""), 60);
  const text = wholeText(whole, 300);
  // No clause to lead with ("SHA-256 checksum verification"): the bullet is listed, not carded.
  if (!title || !text || echoes(title, text) || (isShort(whole) && title.split(/\s+/).length < 2)) return null;
  return { title: capitalize(title), body: sentence(capitalize(text)) };
}

/** Feature bullets that make no card: shown as the README's list instead. */
export function shortFeatures(context: Context): string[] {
  return context.facts.features
    .filter((feature) => featureCard(feature) === null)
    .map((feature) => clean(feature.title && feature.body && echoes(feature.title, feature.body) ? feature.body : feature.body || feature.title))
    .filter(Boolean);
}

/**
 * Feature cards: from the README's features; when it lists none, from its sections (heading and
 * first paragraph); as a last resort one card with what the README or the repository says it is.
 */
export function features(context: Context, proseSections: { heading: string; text: string; tables: unknown[] }[]): Card[] {
  const out: Card[] = [];
  const add = (card: Card | null) => {
    if (!card || out.length >= 8) return;
    if (out.some((existing) => normal(existing.title) === normal(card.title) || normal(existing.body) === normal(card.body))) return;
    out.push(card);
  };
  for (const feature of context.facts.features) add(featureCard(feature));
  if (out.length >= 3) return out;
  // Sections with a table are shown whole below: a card would say their first line twice.
  for (const section of proseSections.filter((candidate) => !candidate.tables.length)) {
    if (out.length >= 3) break;
    const title = wholeText(section.heading, 60, { clauses: true });
    const body = wholeText(paragraphs(section.text)[0] ?? "", 300);
    if (title && body && !echoes(title, body)) add({ title, body: sentence(body) });
  }
  if (out.length) return out;
  const what = wholeText(context.summary ?? "", 300) ?? wholeText(context.description, 300) ?? fallbackSummary(context);
  return [{ title: context.name.slice(0, 60), body: sentence(what) }];
}
