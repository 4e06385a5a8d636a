import { describe, expect, it } from "vitest";
import type { PageRequest } from "../../src/generation/page-author.js";
import type { AboutContent, FaqContent, LandingContent } from "../../src/generation/page-content.js";
import { buildReadmePage, createReadmeAuthor } from "../../src/generation/readme-author.js";

// Issue 15: FAQs come only from the README's own questions; the product name keeps the README's casing.

function request(readme: string, overrides: Partial<PageRequest["product"]> = {}, kind: PageRequest["kind"] = "faq"): PageRequest {
  return {
    kind,
    type: "website",
    product: { name: "quark", description: "", repositoryUrl: "https://github.com/acme/quark", topics: [], defaultBranch: "main", ...overrides },
    readme,
    instructions: null,
    pages: ["template", "about", "faq"],
    community: false,
  };
}

const faq = (readme: string) => (buildReadmePage(request(readme)) as FaqContent).items;

const SECTIONS = `
## Installation

Run \`npm install quark\` to install it.

## Usage

Call \`quark()\` with a file.

## License

MIT
`;

describe("README author: FAQ from the README's own questions", () => {
  it("takes headings that ask, and not the sections that do not", () => {
    const items = faq(`# Quark\n\nA tiny parser.\n${SECTIONS}\n## FAQ\n\n### Is it fast?\n\nYes, it parses 1 GB in 2 s.\n\n### Installation\n\nSee above.\n\n### Does it run in the browser?\n\nYes, in every modern browser.\n`);
    expect(items.map((item) => item.question)).toEqual(["Is it fast?", "Does it run in the browser?"]);
    expect(items[0]!.answer).toBe("Yes, it parses 1 GB in 2 s.");
    expect(JSON.stringify(items)).not.toMatch(/"question":"[^"]*(?:Installation|install|Usage|License)/);
  });

  it("takes bold question lines with the paragraph that answers them", () => {
    const items = faq(`# Quark\n\nA tiny parser.\n${SECTIONS}\n## Notes\n\n**How do I parse a stream?**\n\nPass a readable stream to \`quark()\`.\n\n**Can I use it with Deno?** Yes, import it from npm.\n\n**Not a question**\n\nJust bold.\n`);
    expect(items.slice(0, 2)).toEqual([
      { question: "How do I parse a stream?", answer: "Pass a readable stream to `quark()`." },
      { question: "Can I use it with Deno?", answer: "Yes, import it from npm." },
    ]);
    expect(items.map((item) => item.question)).not.toContain("Not a question");
  });

  it("does not take the next bold question as an answer", () => {
    const items = faq(`# Quark\n\nA tiny parser.\n\n## Notes\n\n**Is it fast?**\n\n**Is it small?**\n\nYes, 2 kB.\n`);
    expect(items[0]).toEqual({ question: "Is it small?", answer: "Yes, 2 kB." });
    expect(items.map((item) => item.question)).not.toContain("Is it fast?");
  });

  it("takes <details> blocks whose summary is a question", () => {
    const items = faq(
      `# Quark\n\nA tiny parser.\n\n## FAQ\n\n<details><summary>Why another parser?</summary>\n\nBecause the others are slow.\n\n</details>\n\n<details><summary>Is it stable?</summary>\n\nYes, since 1.0.\n\n</details>\n\n<details><summary>Screenshots</summary>\n\nSome pictures.\n\n</details>\n`,
    );
    expect(items.map((item) => item.question)).toEqual(["Why another parser?", "Is it stable?"]);
    expect(items[0]!.answer).toBe("Because the others are slow.");
  });

  it("makes up no question from a README that asks none: it declines the page", () => {
    const readme = `# Quark\n\nA tiny parser.\n${SECTIONS}`;
    expect(() => faq(readme)).toThrow(expect.objectContaining({ status: 422, code: "no_questions" }));
    expect(createReadmeAuthor().declines?.(request(readme))).toMatch(/asks no question/);
    expect(createReadmeAuthor().declines?.(request(readme, {}, "template"))).toBeNull();
  });
});

describe("README author: product name casing", () => {
  const hero = (readme: string, product: Partial<PageRequest["product"]> = {}) => buildReadmePage(request(readme, product, "template")) as LandingContent;
  const about = (readme: string, product: Partial<PageRequest["product"]> = {}) => buildReadmePage(request(readme, product, "about")) as AboutContent;

  it("writes the name the way the README's title does when it matches the repository", () => {
    const readme = "[![build](https://github.com/acme/quark/badge.svg)](https://github.com/acme/quark)\n\n# Quark\n\nquark is a tiny parser. It reads 1 GB in 2 s.\n";
    expect(about(readme).title).toBe("About Quark");
    expect(hero(readme).meta.title).toMatch(/^Quark — /);
    // The badge's lowercase address comes first in the text, but it is an address, not a spelling.
    expect(about("[![build](https://github.com/acme/quark/badge.svg)](https://github.com/acme/quark)\n\n**Quark** is a tiny parser.\n").title).toBe("About Quark");
  });

  it("takes the casing from a bold first line when there is no title", () => {
    expect(about("**QuarkDB** is a tiny database.\n\n## Features\n\n- Fast\n", { name: "quarkdb", repositoryUrl: "https://github.com/acme/quarkdb" }).title).toBe("About QuarkDB");
  });

  it("keeps the project's own name when it is not the repository's name", () => {
    expect(about("# QUARK\n\nA tiny parser.\n", { name: "quark parser" }).title).toBe("About quark parser");
    expect(about("# Quark\n\nA tiny parser.\n", { name: "Tiny Quark", repositoryUrl: "https://github.com/acme/quark" }).title).toBe("About Tiny Quark");
  });

  it("keeps the name as given when the README never spells it", () => {
    expect(about("# Parser\n\nA tiny parser.\n").title).toBe("About quark");
  });
});
