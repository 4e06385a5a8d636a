import { fileURLToPath } from "node:url";
import type { PageRequest } from "./page-author.js";
import type { PageContent } from "./page-content.js";
import { readReadme } from "./readme-reader.js";
import { isPromotionOrNotice, POINTER } from "./readme/promotions.js";

/**
 * What no author may publish, whichever wrote the page (issue 23): raw markup, a sentence left
 * hanging on a colon or cut before its end in the hero, a hero that is a notice, a thanks line or a quote, cards, sections or a closing band from the
 * README's Sponsors, Contributing, License … sections, a section said twice, a server's path. The AI
 * author's answers are held to these after the schema, and retried with the problems listed.
 */

/** README sections a page takes nothing from. */
const EXCLUDED = /\b(sponsors?|sponsorship|backers?|screenshots?|contribut(ing|ors?|ions?|e)|licen[cs]es?|translations?|community|support|migrat(ion|ing)|change ?logs?|release notes|security|donat(e|ions?))\b/i;

const RAW: [string, RegExp][] = [
  ["Markdown link or image syntax", /!\[|\]\(|\[[^\]\n]+\]\[[^\]\n]*\]/],
  ["Markdown emphasis", /\*\*[^*\n]+\*\*|(^|\s)__[^_\n]+__(\s|$)/],
  ["a Markdown heading mark", /(^|\n)#{1,6} \S/],
  ["a code fence", /```|~~~/],
  ["HTML", /<\/?[a-z][a-z0-9]*(\s[^<>]*)?\/?>|&(?:[a-z]{2,8}|#\d{2,5});/i],
  ["an emoji code", /(^|\s):[a-z][a-z0-9_+-]*:(?=\s|$|[.,)])/],
];

/** Words a cut sentence ends on. */
const DANGLING = /\b(a|an|the|and|or|of|to|for|with|in|on|by|from|as|like|includes?|including|built|is|are|that|which)$/i;

const words = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();

/** Text fields of a page with their paths; code, addresses, tables and pictures apart. */
function texts(value: unknown, path = ""): { path: string; value: string }[] {
  if (typeof value === "string") return [{ path, value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => texts(item, `${path}[${index}]`));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => (["code", "href", "table", "image", "kind"].includes(key) ? [] : texts(item, path ? `${path}.${key}` : key)));
  }
  return [];
}

/** The problems of a page, written for the model to fix; empty when it may be published. */
export function contentProblems(content: PageContent, request: PageRequest): string[] {
  const problems: string[] = [];
  const folder = /^file:/i.test(request.product.repositoryUrl) ? safePath(request.product.repositoryUrl) : null;
  for (const { path, value } of texts(content)) {
    // Links written as the pages take them are not raw markup.
    const text = value.replace(/(?<!!)\[([^[\]\n]+)\]\((?:https?:\/\/|\/)[^\s()]*(?:\([^\s()]*\))?[^\s()]*\)/g, "$1").replace(/`[^`\n]+`/g, "code");
    for (const [what, pattern] of RAW) if (pattern.test(text)) problems.push(`${path}: remove ${what}; write plain text`);
    const paragraphs = value.split(/\n\s*\n/).map((part) => part.trim()).filter(Boolean);
    const last = paragraphs[paragraphs.length - 1] ?? "";
    if (/:$/.test(last) && !path.endsWith(".question")) problems.push(`${path}: ends with ":" and nothing after it; say what it introduces or leave the sentence out`);
    if (folder && value.includes(folder)) problems.push(`${path}: names a folder on the server (${folder}); leave it out`);
  }
  if (content.kind === "template") {
    for (const [label, text] of [["hero.title", content.hero.title], ["hero.subtitle", content.hero.subtitle]] as const) {
      if (DANGLING.test(text.trim())) problems.push(`${label}: the sentence is cut before its end; write the whole one-liner`);
      if (isPromotionOrNotice(text, request.product.name) || POINTER.test(text)) {
        problems.push(`${label}: is a notice, a sponsor or thanks line, the README about itself, a quote or a pointer to what follows; say what the product is`);
      }
    }
    const excluded = new Set(
      readReadme(request.readme)
        .sections.filter((section) => EXCLUDED.test(section.heading))
        .map((section) => words(section.heading)),
    );
    const blocks = [
      ...content.features.map((feature, i) => ({ path: `features[${i}]`, title: feature.title })),
      ...content.sections.map((section, i) => ({ path: `sections[${i}]`, title: section.title })),
      { path: "closing", title: content.closing.title },
    ];
    const seen = new Set<string>();
    for (const block of blocks) {
      const key = words(block.title);
      if (excluded.has(key) || (EXCLUDED.test(block.title) && block.path !== "closing" && block.title.split(/\s+/).length <= 3)) {
        problems.push(`${block.path}: "${block.title}" is from a section pages leave out (sponsors, contributing, license, support …); take cards and sections from what the product does`);
      }
      if (seen.has(key) && block.path !== "closing") problems.push(`${block.path}: "${block.title}" is shown twice; keep it once`);
      seen.add(key);
    }
  }
  return problems;
}

function safePath(url: string): string | null {
  try {
    return fileURLToPath(url);
  } catch {
    return null;
  }
}
