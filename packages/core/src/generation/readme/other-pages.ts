import { RepositeError } from "../../errors.js";
import type { AboutContent, AuthContent, FaqContent } from "../page-content.js";
import { closingLine, code, fallbackSummary, frameLines, normal, paragraphs, sectionBody, sentence, similar, type Context } from "./context.js";
import { keepIntroduced } from "./introductions.js";
import { contentSections, pickSections, sectionImage, shownWith } from "./landing.js";
import { wholeText } from "./whole-text.js";

const LICENSE_NAMES: Record<string, string> = {
  MIT: "MIT License",
  "Apache-2.0": "Apache License 2.0",
  "GPL-3.0": "GNU GPL v3",
  "GPL-2.0": "GNU GPL v2",
  "AGPL-3.0": "GNU AGPL v3",
  "LGPL-3.0": "GNU LGPL v3",
  "LGPL-2.1": "GNU LGPL v2.1",
  "MPL-2.0": "Mozilla Public License 2.0",
  "BSD-3-Clause": "BSD 3-Clause License",
  "BSD-2-Clause": "BSD 2-Clause License",
  BSD: "BSD License",
  "EPL-2.0": "Eclipse Public License 2.0",
  "EUPL-1.2": "EUPL",
  Unlicense: "Unlicense",
  "CC0-1.0": "CC0 public domain dedication",
  ISC: "ISC License",
  Zlib: "zlib License",
  "BSL-1.0": "Boost Software License",
};

/**
 * Sentences the README author writes about the site itself (page titles and the sign-in page's
 * lines), not about the product: the only text on its pages that is not the README's or the
 * repository's own. Tests check every other sentence against the README.
 */
export function siteSentences(name: string): string[] {
  return [
    `About ${name}`,
    "What it is",
    "Frequently asked questions",
    `${name} FAQ`,
    `Answers to common questions about ${name}.`,
    `Sign in to ${name}`,
    `Sign in — ${name}`,
    `Sign in to ${name} or create an account.`,
    `Sign in with your ${name} account, or create one.`,
    "Sign in to open the app, or create an account.",
    `New to ${name}? Create an account to get started.`,
    `Members can join the ${name} community forum and talk with other users.`,
    `Get started with ${name}`,
    `Ready to try ${name}?`,
    ...frameLines(name),
  ];
}

export function aboutPage(context: Context): AboutContent {
  const { facts, request } = context;
  // The opening paragraphs; one that introduces a list ("It is three things at once:") keeps only what else it says.
  const what = [context.summary ?? "", context.description, ...facts.intro.slice(1)]
    .map((text) => keepIntroduced(text))
    .filter(Boolean)
    .filter((text, index, all) => all.findIndex((other) => similar(other, text)) === index);
  const intro = wholeText(what[0] ?? "", 600) ?? wholeText(paragraphs(what[0] ?? "")[0] ?? "", 600) ?? fallbackSummary(context);

  const used = new Set<string>();
  const sections: AboutContent["sections"] = [];
  const more = what
    .slice(1)
    .map((text) => wholeText(text, 700))
    .filter((text): text is string => Boolean(text))
    .map(sentence)
    .join("\n\n");
  const whatItIs = wholeText(more, 1500);
  if (whatItIs) sections.push({ title: "What it is", body: whatItIs });
  const install = context.installSection;
  const room = 8 - sections.length - (install && !context.saas ? 1 : 0);
  for (const section of pickSections(contentSections(context, "about"), room)) {
    if (sections.some((existing) => normal(existing.title) === normal(section.heading))) continue;
    const title = wholeText(section.heading, 80, { clauses: true });
    const table = section.tables[0];
    const image = sectionImage(context, section.heading, used);
    const body = sectionBody(section, 1500, shownWith(table, image));
    if (!title || (!body && !table && !image)) continue;
    sections.push({ title, body, ...(table ? { table } : {}), ...(image ? { image } : {}) });
  }
  if (install && !context.saas && sections.length < 8) {
    // No code on the About page: an introduction to a command ("With Cargo:") is left out, the commands are said instead.
    const prose = wholeText(keepIntroduced(paragraphs(facts.installText)[0] ?? ""), 1500);
    const commands = context.installCommands.slice(0, 3).map(code).join("\n\n");
    const body = prose ?? (commands || sectionBody(install, 1500));
    const title = wholeText(install.heading, 80, { clauses: true });
    if (title && body) sections.push({ title, body, ...(install.tables[0] ? { table: install.tables[0] } : {}) });
  }
  // The page needs a section: with nothing but the intro to say, it says what the site can tell of the project, not the intro again.
  if (sections.length === 0) sections.push({ title: "What it is", body: similar(intro, fallbackSummary(context)) ? closingLine(context) : fallbackSummary(context) });

  const factsList: AboutContent["facts"] = [];
  if (context.license) factsList.push({ label: "License", value: LICENSE_NAMES[context.license] ?? context.license });
  if (context.language) factsList.push({ label: "Language", value: context.language });
  if (request.product.topics.length) factsList.push({ label: "Topics", value: wholeText(request.product.topics.join(", "), 120) ?? request.product.topics.slice(0, 3).join(", ").slice(0, 120) });
  if (!context.saas) {
    factsList.push({ label: "Repository", value: context.repo.slice(0, 120) });
    const branch = request.product.defaultBranch.trim();
    if (branch) factsList.push({ label: "Default branch", value: branch.slice(0, 120) });
    if (context.installCommands[0] && context.installCommands[0].length <= 110) factsList.push({ label: "Install", value: code(context.installCommands[0]) });
  }

  const description = wholeText(context.summary ?? context.description, 200, { clauses: true }) ?? wholeText(intro, 200, { clauses: true }) ?? `About ${context.name}`.slice(0, 200);
  return {
    kind: "about",
    meta: { title: `About ${context.name}`.slice(0, 70), description },
    title: wholeText(`About ${context.name}`, 90) ?? "About",
    intro,
    sections: sections.slice(0, 8),
    facts: factsList.slice(0, 8),
  };
}

/** Why the README author writes no FAQ page for this request, or null when it writes one. */
export function faqRefusal(context: Context): string | null {
  return faqItems(context).length ? null : "The README asks no question, so no FAQ page was made: FAQ entries come only from the README's own questions.";
}

function faqItems(context: Context): FaqContent["items"] {
  const items: FaqContent["items"] = [];
  for (const entry of context.facts.faq) {
    if (items.length >= 20) break;
    const question = wholeText(entry.question, 200);
    const whole = wholeText(entry.answer, 1500) ?? wholeText(paragraphs(entry.answer)[0] ?? "", 1500);
    const answer = whole && keepIntroduced(whole);
    if (!question || !answer || items.some((item) => normal(item.question) === normal(question))) continue;
    items.push({ question, answer });
  }
  return items;
}

/** Only the README's own questions; with none, the author declines the page (422 no_questions). */
export function faqPage(context: Context): FaqContent {
  const items = faqItems(context);
  const refusal = faqRefusal(context);
  if (refusal) throw new RepositeError(422, refusal, "no_questions");
  const line = `Answers to common questions about ${context.name}.`;
  return {
    kind: "faq",
    meta: { title: `${context.name} FAQ`.slice(0, 70), description: line.slice(0, 200) },
    title: "Frequently asked questions",
    intro: line.slice(0, 400),
    items,
  };
}

export function authPage(context: Context): AuthContent {
  const { name, request } = context;
  const note = request.community ? `Members can join the ${name} community forum and talk with other users.` : `New to ${name}? Create an account to get started.`;
  const fit = (text: string, max: number, fallback: string) => (text.length <= max ? text : fallback);
  return {
    kind: "auth",
    meta: { title: fit(`Sign in — ${name}`, 70, "Sign in"), description: fit(`Sign in to ${name} or create an account.`, 200, "Sign in or create an account.") },
    title: fit(`Sign in to ${name}`, 90, "Sign in"),
    subtitle: context.saas
      ? // Not "… to get started": the note under the form says that.
        "Sign in to open the app, or create an account."
      : fit(`Sign in with your ${name} account, or create one.`, 280, "Sign in with your account, or create one."),
    sign_in_label: "Sign in",
    sign_up_label: "Create account",
    note: fit(note, 300, "Create an account to get started."),
  };
}
