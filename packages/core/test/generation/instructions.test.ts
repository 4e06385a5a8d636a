import { describe, expect, it } from "vitest";
import { RepositeError } from "../../src/errors.js";
import { assertInstructionsLength, INSTRUCTIONS_MAX, splitInstructions, splitSentences } from "../../src/generation/instructions.js";

describe("splitInstructions", () => {
  const cases: [string, string | undefined, ReturnType<typeof splitInstructions>][] = [
    ["nothing", undefined, {}],
    ["blank text", "  \n \n", {}],
    ["a wish naming no page goes to the landing page", "Use a friendly tone.", { template: "Use a friendly tone." }],
    ["About by name", "On the About page, mention the team.", { about: "On the About page, mention the team." }],
    ["about page in lowercase", "the about page should list sponsors", { about: "the about page should list sponsors" }],
    ["About as a label", "About: mention the team.", { about: "mention the team." }],
    ["about: in lowercase", "about: keep it short", { about: "keep it short" }],
    ["a capitalised About mid-sentence", "Put the history on About.", { about: "Put the history on About." }],
    ["About first, before a verb", "About should stay short.", { about: "About should stay short." }],
    ["about as a preposition is not a page", "About pricing, say nothing.", { template: "About pricing, say nothing." }],
    ["a question about something is FAQ, not About", "Add a question about pricing.", { faq: "Add a question about pricing." }],
    ["FAQ by name", "The FAQ should cover Windows.", { faq: "The FAQ should cover Windows." }],
    ["FAQs and F.A.Q.", "More FAQs. Shorter F.A.Q. answers.", { faq: "More FAQs. Shorter F.A.Q. answers." }],
    ["Q&A", "Add a Q&A about licensing.", { faq: "Add a Q&A about licensing." }],
    ["questions", "Answer common questions about setup.", { faq: "Answer common questions about setup." }],
    ["the hero is the landing page", "Make the hero bold.", { template: "Make the hero bold." }],
    ["home page", "The home page needs a demo link.", { template: "The home page needs a demo link." }],
    ["front page", "Keep the front page short.", { template: "Keep the front page short." }],
    [
      "a sentence naming several pages goes to each",
      "Link the FAQ from the landing page.",
      { template: "Link the FAQ from the landing page.", faq: "Link the FAQ from the landing page." },
    ],
    ["the sign-in page ignores wishes", "Make the sign-in page dark.", {}],
    ["a login form mention is dropped", "The login form should say hi.", {}],
    ["/auth is the sign-in page", "Put a logo on /auth.", {}],
    [
      "sign-in next to another page still reaches that page",
      "Link the sign-in page from the hero.",
      { template: "Link the sign-in page from the hero." },
    ],
    [
      "sentences of one line are split and routed one by one",
      "Use a dark theme. The About page should mention Ada. Keep the FAQ short!",
      { template: "Use a dark theme.", about: "The About page should mention Ada.", faq: "Keep the FAQ short!" },
    ],
    ["abbreviations do not end a sentence", "Mention tools, e.g. the CLI, on the About page.", { about: "Mention tools, e.g. the CLI, on the About page." }],
    [
      "bullets are wishes of their own",
      "- Bold hero\n* FAQ: add pricing\n1. About: the team",
      { template: "Bold hero", faq: "add pricing", about: "the team" },
    ],
    [
      "a label line opens a block for its bullets",
      "FAQ:\n- Is it free?\n- Does it run on Windows?\n\nUse short words.",
      { faq: "Is it free?\nDoes it run on Windows?", template: "Use short words." },
    ],
    [
      "a block goes on across blank lines between bullets",
      "About page:\n- the team\n\n- the history",
      { about: "the team\nthe history" },
    ],
    [
      "a Markdown heading label lasts until the next heading",
      "## About\nMention the team.\n\nMention the history.\n## FAQ\nAdd pricing.",
      { about: "Mention the team.\nMention the history.", faq: "Add pricing." },
    ],
    [
      "a label naming several pages",
      "For the About and FAQ pages: keep it short.",
      { about: "keep it short.", faq: "keep it short." },
    ],
    ["a sign-in block is dropped", "Sign-in page:\n- dark background\n- big logo", {}],
    ["a bold label", "**About**: the team", { about: "the team" }],
    [
      "a label inside a line names the rest of the line",
      "Make the hero bold. About: name the team. Keep it warm.",
      { template: "Make the hero bold.", about: "name the team. Keep it warm." },
    ],
    ["a note that is not a page label goes to the landing page", "Note: keep it short.", { template: "Note: keep it short." }],
    ["CRLF line ends", "About: a\r\nFAQ: b", { about: "a", faq: "b" }],
  ];

  it.each(cases)("%s", (_name, text, expected) => {
    expect(splitInstructions(text)).toEqual(expected);
  });

  it("sends wishes naming no page where the caller says", () => {
    expect(splitInstructions("Mention the team. The hero stays.", { unnamedTo: "about" })).toEqual({
      about: "Mention the team.",
      template: "The hero stays.",
    });
  });
});

describe("splitSentences", () => {
  it("cuts at sentence ends, not inside numbers, URLs or abbreviations", () => {
    expect(splitSentences("Version 1.2 is out. See https://x.dev/a.b now! Really? Yes, i.e. done.")).toEqual([
      "Version 1.2 is out.",
      "See https://x.dev/a.b now!",
      "Really?",
      "Yes, i.e. done.",
    ]);
  });
});

describe("assertInstructionsLength", () => {
  it("accepts up to 2000 characters, counting an emoji once", () => {
    expect(() => assertInstructionsLength(undefined)).not.toThrow();
    expect(() => assertInstructionsLength("x".repeat(INSTRUCTIONS_MAX))).not.toThrow();
    expect(() => assertInstructionsLength("🙂".repeat(INSTRUCTIONS_MAX))).not.toThrow();
  });

  it("refuses more with 422 instructions_too_long", () => {
    let error: unknown;
    try {
      assertInstructionsLength("x".repeat(INSTRUCTIONS_MAX + 1));
    } catch (caught) {
      error = caught;
    }
    expect(RepositeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 422, code: "instructions_too_long" });
  });
});
