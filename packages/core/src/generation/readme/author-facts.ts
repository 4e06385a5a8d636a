import { readReadme, withoutLinks, type ReadmeFallback, type ReadmeFacts } from "../readme-reader.js";
import type { ReadmeDestination } from "./links.js";
import type { SectionRole } from "./sections.js";

/**
 * The README's parsed facts for an AI author: what the README author builds from, so a model
 * writes from structure (the one-liner candidates, sections with their roles, where the README
 * sends visitors) rather than from raw Markdown with badges and nav bars.
 */
export interface ReadmeAuthorFacts {
  title: string | null;
  /** Candidates for the product's one-liner, best first. */
  taglines: string[];
  sections: { heading: string; level: number; role: SectionRole; text: string }[];
  /** Download, homepage, demo, docs: where the README sends visitors. */
  destinations: ReadmeDestination[];
  /** Other links with their text (absolute addresses), without repeats. */
  links: { label: string; href: string }[];
  features: { title: string | null; body: string }[];
  install: string[];
  license: string | null;
}

/** Roles whose sections say nothing of the product a page should repeat. */
const LEFT_OUT: ReadonlySet<SectionRole> = new Set(["toc", "meta", "contributing", "license", "support"]);

/** The facts of a README, each text cut to `maxText` characters. */
export function readmeAuthorFacts(readme: string | null | undefined, fallback?: ReadmeFallback, maxText = 600): ReadmeAuthorFacts {
  return authorFacts(readReadme(readme, fallback), maxText);
}

export function authorFacts(facts: ReadmeFacts, maxText = 600): ReadmeAuthorFacts {
  const cut = (text: string) => (text.length <= maxText ? text : `${text.slice(0, maxText).replace(/\s+\S*$/, "")} …`);
  const seen = new Set(facts.destinations.map((destination) => destination.href));
  return {
    title: facts.title,
    taglines: facts.taglines,
    sections: facts.sections
      .filter((section) => !LEFT_OUT.has(section.role) && (section.text || section.tables.length))
      .slice(0, 30)
      .map((section) => ({ heading: section.heading, level: section.level, role: section.role, text: cut(section.text) })),
    destinations: facts.destinations,
    links: facts.links.filter((link) => !seen.has(link.href) && seen.add(link.href)).slice(0, 40).map((link) => ({ label: withoutLinks(link.label), href: link.href })),
    features: facts.features.slice(0, 12).map((feature) => ({ title: feature.title, body: cut(feature.body) })),
    install: facts.install.slice(0, 3),
    license: facts.license,
  };
}

/** The facts as a short text for a prompt: one-liners, destinations, sections by role, links. */
export function authorFactsText(facts: ReadmeAuthorFacts): string {
  const lines: string[] = [];
  if (facts.title) lines.push(`Title: ${facts.title}`);
  if (facts.taglines.length) lines.push("One-liner candidates (best first):", ...facts.taglines.map((tagline) => `- ${tagline}`));
  if (facts.destinations.length) lines.push("Where the README sends visitors:", ...facts.destinations.map((destination) => `- ${destination.kind}: [${destination.label}](${destination.href})`));
  if (facts.features.length) lines.push("Features:", ...facts.features.map((feature) => `- ${feature.title ? `${feature.title}: ` : ""}${feature.body}`));
  if (facts.install.length) lines.push("Install:", ...facts.install.map((command) => `    ${command.replace(/\n/g, "\n    ")}`));
  for (const section of facts.sections) lines.push(`Section "${section.heading}" (${section.role}):`, section.text);
  if (facts.links.length) lines.push("Links:", ...facts.links.map((link) => `- [${link.label}](${link.href})`));
  if (facts.license) lines.push(`License: ${facts.license}`);
  return lines.join("\n");
}
