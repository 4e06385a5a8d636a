import { README_CORPUS, readmeSitePages, type ReadmeFixture } from "@reposite/test-support";
import { describe, expect, it } from "vitest";
import { PAGE_SCHEMAS, type PageRequest } from "../../src/generation/page-author.js";
import type { AboutContent, FaqContent, LandingContent, PageContent } from "../../src/generation/page-content.js";
import { buildReadmePage, createReadmeAuthor, siteSentences } from "../../src/generation/readme-author.js";
import { sentenceWords } from "../../src/generation/readme/said.js";
import { balanced, endsDangling, echoes, sentences } from "../../src/generation/readme/whole-text.js";
import type { PageKind, ProjectType } from "../../src/projects/project.js";

/**
 * Issue 15, "Faithful content": every README of the corpus, turned into every page kind by the
 * README author, obeys the content rules. The rules are checked on the output, so they hold for
 * whatever the author does inside.
 */

const TYPES: ProjectType[] = ["website", "saas"];

/** Button labels: the only words besides the page frame (`siteSentences`) the author writes itself. */
const LABELS = [
  "View on GitHub", "View on GitLab", "Get started on GitHub", "Get started on GitLab", "View the source", "Get the source",
  "Open the app", "Start now", "How to install", "See an example", "Learn more", "See the features", "Download",
  "Install", "Usage", "Features", "Sign in", "Create account",
  // Buttons to the README's own destinations when its link text is long (issue 23).
  "Website", "Documentation", "Live demo",
];

function request(fixture: ReadmeFixture, kind: PageKind, type: ProjectType): PageRequest {
  return { kind, type, product: fixture.product, readme: fixture.readme, instructions: null, pages: ["template", "about", "faq", "auth"], community: false };
}

const normal = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();

/** The README as words: link targets, pictures, tags and markdown marks gone. */
function readmeWords(fixture: ReadmeFixture): string {
  const text = fixture.readme
    // "<slug>" inside code is text, not an HTML tag.
    .replace(/`[^`\n]*`/g, (span) => span.replace(/[<>]/g, " "))
    .replace(/!\[[^\]]*\]\([^)]*\)/g, " ")
    // A numbered item is said as a list item: its number is not a word of its text.
    .replace(/^(\s*)\d+[.)]\s+/gm, "$1")
    .replace(/\]\([^)]*\)/g, "]")
    .replace(/<[^>]+>/g, " ");
  return ` ${normal(`${text}\n${fixture.product.description}`)} `;
}

interface Text {
  path: string;
  value: string;
}

/** Every text of a page with its path; code, addresses and tables apart. */
function texts(value: unknown, path = ""): Text[] {
  if (typeof value === "string") return [{ path, value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => texts(item, `${path}[${index}]`));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => (["code", "src", "href", "table", "kind", "facts"].includes(key) ? [] : texts(item, path ? `${path}.${key}` : key)));
  }
  return [];
}

/** Every corpus README's site in both types, written the way a generation writes it. */
const SITES = new Map(await Promise.all(README_CORPUS.flatMap((fixture) => TYPES.map(async (type) => [`${fixture.id}/${type}`, await readmeSitePages(fixture, type)] as const))));

/**
 * The README's introductions, as words: the last sentence of every paragraph or list item (outside
 * code) that ends with a colon ("To sell …, set up Stripe once:"). A page may say one only together
 * with what it introduces.
 */
function introductions(fixture: ReadmeFixture): Set<string> {
  const out = new Set<string>();
  let current: string[] = [];
  const close = () => {
    const text = current.join(" ").replace(/!\[[^\]]*\]\([^)]*\)/g, " ").replace(/\]\([^)]*\)/g, "]").replace(/<[^>]+>/g, " ").trim();
    if (/:$/.test(text)) out.add(normal(sentences(text).pop() ?? text));
    current = [];
  };
  let fence = false;
  for (const line of fixture.readme.split("\n")) {
    if (/^\s*(?:```|~~~)/.test(line)) {
      close();
      fence = !fence;
      continue;
    }
    if (fence) continue;
    if (!line.trim() || /^\s*#/.test(line) || /^\s*\|/.test(line)) close();
    else {
      const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
      if (item) close();
      current.push((item ? item[1]! : line).trim());
    }
  }
  close();
  out.delete("");
  return out;
}

/** Last sentence of a paragraph or list line, as words. */
const lastWords = (text: string) => normal(sentences(text.replace(/^\s*-\s+/, "")).pop() ?? "");

/**
 * Breaks of the introduction rule in one page: a text that stops on a colon, or says one of the
 * README's introductions, without what it introduces after it (its list in the same text, or, for
 * a section body's last paragraph, the code, table or picture the section shows).
 */
function looseIntroductions(value: unknown, intros: Set<string>, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => looseIntroductions(item, intros, `${path}[${index}]`));
  if (!value || typeof value !== "object") return [];
  const object = value as Record<string, unknown>;
  const shown = Boolean(object.code || object.table || object.image);
  const out: string[] = [];
  for (const [key, field] of Object.entries(object)) {
    // Titles and labels name things; only texts that say something can introduce.
    if (["code", "src", "href", "table", "kind", "title", "label", "question", "alt"].includes(key)) continue;
    if (typeof field !== "string") {
      out.push(...looseIntroductions(field, intros, path ? `${path}.${key}` : key));
      continue;
    }
    const parts = field.split(/\n\s*\n/).filter((part) => part.trim());
    parts.forEach((part, index) => {
      const isList = (text: string | undefined) => text !== undefined && /^\s*-\s/.test(text);
      const introducing = (text: string) => /:$/.test(text.trim()) || intros.has(lastWords(text));
      if (isList(part)) {
        const lines = part.split("\n");
        const depth = (line: string) => /^\s*/.exec(line)![0].length;
        lines.forEach((line, at) => {
          const next = lines[at + 1];
          if (introducing(line) && !(next !== undefined && depth(next) > depth(line))) out.push(`${path}.${key}: ${line}`);
        });
        return;
      }
      const next = parts[index + 1];
      const followed = next !== undefined ? isList(next) : key === "body" && shown;
      if (introducing(part) && !followed) out.push(`${path}.${key}: ${part.slice(-120)}`);
    });
  }
  return out;
}

/**
 * Sentences a page says twice: the hero's title (a clause of the README's opening counts as its
 * sentence) and subtitle, card and section bodies, the closing band, an About or FAQ page's
 * texts. Titles of cards and sections name things and may match other words; the meta
 * description is for search results, not the page. A sentence of four words or more said inside
 * another counts as said twice ("A fast tool …" and "tidyfiles is a fast tool …").
 */
function repeatedSentences(content: PageContent): string[] {
  const said: { path: string; words: string }[] = [];
  for (const { path, value } of texts(content)) {
    if (path.startsWith("meta.") || (isTitle(path) && path !== "hero.title") || path.endsWith(".alt") || path.endsWith(".cta.label")) continue;
    for (const words of sentenceWords(value)) said.push({ path, words });
  }
  const out: string[] = [];
  said.forEach((a, i) => {
    for (const b of said.slice(i + 1)) {
      const [short, long] = a.words.length <= b.words.length ? [a.words, b.words] : [b.words, a.words];
      if (short === long || (short.split(" ").length >= 4 && ` ${long} `.includes(` ${short} `))) out.push(`${a.path} / ${b.path}: "${short}"`);
    }
  });
  return out;
}

const isTitle = (path: string) => /(?:^|\.)(?:title|label|question|heading)$/.test(path);

it("the corpus holds at least ten READMEs of the shapes the issue names", () => {
  expect(README_CORPUS.length).toBeGreaterThanOrEqual(10);
  const shapes = README_CORPUS.map((fixture) => fixture.shape).join("\n");
  for (const shape of ["library", "web framework", "CLI tool", "desktop app", "self-hosted service", "benchmarks", "image-format converter", "minimal", "monorepo framework"]) {
    expect(shapes).toContain(shape);
  }
  const all = README_CORPUS.map((fixture) => fixture.readme).join("\n");
  for (const feature of ['<p align="center">', "img.shields.io", "<details>", "| ", "\n1. ", "\n   - "]) expect(all).toContain(feature);
});

describe.each(README_CORPUS.map((fixture) => [fixture.id, fixture] as const))("README %s", (_id, fixture) => {
  describe.each(TYPES)("%s site", (type) => {
    const built = SITES.get(`${fixture.id}/${type}`)!.pages;
    const all = Object.entries(built) as [PageKind, PageContent][];

    it("every page passes its schema", () => {
      for (const [kind, content] of all) {
        const parsed = PAGE_SCHEMAS[kind].safeParse(content);
        expect(parsed.success, `${kind}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      }
    });

    it("cuts nothing mid-phrase: brackets and quotes balance, no title ends in a dangling word, no ellipsis", () => {
      for (const [kind, content] of all) {
        for (const { path, value } of texts(content)) {
          expect(balanced(value), `${kind} ${path}: ${value}`).toBe(true);
          expect(value, `${kind} ${path}`).not.toMatch(/…$/);
          if (isTitle(path)) expect(endsDangling(value), `${kind} ${path}: ${value}`).toBe(false);
        }
      }
    });

    // `echoes` also counts a text that starts with its title ("A framework" / "A framework a platform team embeds: …").
    it("no card or section repeats its title", () => {
      const landing = built.template as LandingContent;
      for (const card of [...landing.features, ...landing.sections]) expect(echoes(card.title, card.body), JSON.stringify(card)).toBe(false);
      const about = built.about as AboutContent;
      for (const section of about.sections) expect(echoes(section.title, section.body), JSON.stringify(section)).toBe(false);
    });

    it("keeps an introduction (\"…:\") only with what it introduces: its list, or the code, table or picture shown after it", () => {
      const intros = introductions(fixture);
      for (const [kind, content] of all) expect(looseIntroductions(content, intros).join("\n"), kind).toBe("");
    });

    it("says no sentence twice on a page (the meta description may repeat the subtitle)", () => {
      for (const [kind, content] of all) expect(repeatedSentences(content), kind).toEqual([]);
    });

    it("keeps landing sections to a few paragraphs, not the README's whole guide", () => {
      for (const section of (built.template as LandingContent).sections) expect(section.body.length, section.title).toBeLessThanOrEqual(700);
    });

    it("pins what the fixture names: the headline, the cards' titles, no operator section on the landing page", () => {
      const landing = built.template as LandingContent;
      if (fixture.expect.heroTitle) expect(landing.hero.title).toBe(fixture.expect.heroTitle);
      if (fixture.expect.featureTitles) expect(landing.features.map((card) => card.title)).toEqual(fixture.expect.featureTitles);
      const titles = landing.sections.map((section) => section.title);
      for (const heading of fixture.expect.operatorSections ?? []) expect(titles).not.toContain(heading);
    });

    it("invents no sentence: each is the README's (or the repository description's), a label, or the page frame's", () => {
      const words = readmeWords(fixture);
      const allowed = new Set([...LABELS, ...siteSentences(fixture.expect.name)].map(normal));
      for (const [kind, content] of all) {
        for (const { path, value } of texts(content)) {
          if (allowed.has(normal(value))) continue;
          if (path.endsWith(".alt")) {
            expect(fixture.readme, `${kind} ${path}`).toContain(value);
            continue;
          }
          // Paragraphs and list items are texts of their own: a sentence never runs from one into the next.
          const parts = path === "meta.title" ? value.split(" — ").map(normal) : sentenceWords(value);
          for (const words_ of parts) {
            if (!words_ || allowed.has(words_) || normal(fixture.expect.name) === words_) continue;
            expect(words.includes(` ${words_} `), `${kind} ${path}: "${words_}" is not in the README`).toBe(true);
          }
        }
      }
    });

    it("keeps the README's tables and numbers", () => {
      const tables = [built.template, built.about].flatMap((page) => (page as LandingContent | AboutContent).sections.flatMap((section) => (section.table ? [section.table] : [])));
      const unique = new Set(tables.map((table) => JSON.stringify(table)));
      expect(unique.size).toBeGreaterThanOrEqual(fixture.expect.tables);
      const tableText = JSON.stringify(tables);
      // Every number in the README's tables is in a table on the site.
      const tableLines = fixture.readme.split("\n").filter((line) => /^\|.*\|$/.test(line.trim()) && !/^\|[\s:|-]+\|$/.test(line.trim()));
      for (const number of tableLines.join(" ").match(/\d[\d,.]*/g) ?? []) expect(tableText, number).toContain(number);
      const siteText = JSON.stringify([built.template, built.about, built.faq]);
      for (const number of fixture.expect.numbers) expect(siteText, number).toContain(number);
    });

    it("writes the product name as the README does", () => {
      const about = buildReadmePage(request(fixture, "about", type)) as AboutContent;
      expect(about.title).toBe(`About ${fixture.expect.name}`);
    });

    it("shows an install block only with the README's own command", () => {
      const landing = built.template as LandingContent;
      const code = landing.sections.map((section) => section.code ?? "").join("\n");
      const text = JSON.stringify(all.map(([, content]) => content));
      if (type === "saas") {
        expect(code).not.toMatch(/install/);
        return;
      }
      if (fixture.expect.installCommand) expect(code).toContain(fixture.expect.installCommand);
      else {
        for (const made of ["npm install", "pip install", "cargo install", "brew install"]) expect(text).not.toContain(made);
      }
    });

    it("asks only the README's questions, and makes no FAQ page without one", () => {
      const author = createReadmeAuthor();
      const refusal = author.declines?.(request(fixture, "faq", type)) ?? null;
      if (fixture.expect.questions === 0) {
        expect(refusal).toMatch(/asks no question/);
        expect(() => buildReadmePage(request(fixture, "faq", type))).toThrow(expect.objectContaining({ status: 422, code: "no_questions" }));
        return;
      }
      expect(refusal).toBeNull();
      const faq = built.faq as FaqContent;
      expect(faq.items).toHaveLength(fixture.expect.questions);
      for (const item of faq.items) expect(item.question).toMatch(/\?$/);
    });

    it("uses the README's pictures (with alt, no badges) and its Download link", () => {
      const landing = built.template as LandingContent;
      const images = [landing.hero.image, ...landing.sections.map((section) => section.image), ...(built.about as AboutContent).sections.map((section) => section.image)].filter(
        (image): image is { src: string; alt: string } => Boolean(image),
      );
      for (const image of images) {
        expect(image.src).toMatch(/^https:\/\//);
        expect(image.alt.length).toBeGreaterThan(0);
        expect(image.src).not.toMatch(/shields\.io|badge|\/workflows\//);
        expect(image.src).not.toMatch(/logo|icon/);
      }
      expect(landing.hero.image?.src ?? null).toBe(fixture.expect.heroImage);
      // The README's Download link, else (not for a saas site, whose button opens the app) another of its destinations.
      const href = landing.hero.primary_cta.href ?? null;
      if (fixture.expect.download || type === "saas") expect(href).toBe(fixture.expect.download);
      else if (href) expect(fixture.readme.includes(href) || href.startsWith(fixture.product.repositoryUrl), href).toBe(true);
      if (fixture.expect.download) expect(landing.hero.primary_cta.label).toMatch(/download/i);
    });
  });
});
