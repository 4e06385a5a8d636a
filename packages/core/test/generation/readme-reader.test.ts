import { describe, expect, it } from "vitest";
import { clip, clipCode, detectLicense, firstSentence, plainText, readReadme, README_READ_LIMIT } from "../../src/generation/readme-reader.js";
import { ASCIIDOC_README, CLI_README, EMPTY_README, LIBRARY_README, RST_README, WEBAPP_README } from "./readme-fixtures.js";

describe("readReadme", () => {
  it("reads a CLI tool's README with badges, a quote tagline, features, install and usage code", () => {
    const facts = readReadme(CLI_README);
    expect(facts.title).toBe("tidyfiles");
    expect(facts.tagline).toBe("A fast command-line tool that sorts your Downloads folder into tidy sub-folders by type and date.");
    expect(facts.features).toEqual([
      { title: "Fast", body: "sorts 10,000 files in under a second" },
      { title: "Safe", body: "dry-run mode shows every move before it happens" },
      { title: "Rules", body: "write your own rules in a `tidy.yml` file" },
      { title: null, body: "Works on Linux, macOS and Windows" },
      { title: null, body: "Undo the last run with `tidy undo`" },
    ]);
    expect(facts.install).toEqual(["npm install -g tidyfiles", "brew install tidyfiles"]);
    expect(facts.usage).toEqual(["$ tidy ~/Downloads --dry-run"]);
    expect(facts.usageText).toBe("Run it in any folder:");
    expect(facts.license).toBe("MIT");
    expect(facts.sections.map((section) => [section.heading, section.role])).toEqual([
      ["Features", "features"],
      ["Installation", "install"],
      ["Usage", "usage"],
      ["Contributing", "contributing"],
      ["License", "license"],
    ]);
    // Badges, the navigation line, the table and the link reference definition leave no text behind.
    const everything = JSON.stringify({ ...facts, sections: facts.sections.map((section) => ({ ...section, tables: [] })), links: [], images: [] });
    expect(everything).not.toMatch(/shields\.io|Changelog|discord\.gg|--by-date|:sparkles:/);
    // The usage table is kept as a table; badges are no pictures; links keep their absolute address.
    expect(facts.sections.find((section) => section.role === "usage")?.tables[0]?.header).toEqual(["Option", "Description"]);
    expect(facts.images).toEqual([]);
  });

  it("reads a library's README: setext headings, API sections, an FAQ in several forms, the license", () => {
    const facts = readReadme(LIBRARY_README);
    expect(facts.title).toBe("Tiny Schema");
    expect(facts.tagline).toMatch(/^Tiny Schema validates JavaScript objects/);
    expect(facts.sections.find((section) => section.heading === "object(shape)")).toMatchObject({ level: 3, role: "reference" });
    expect(facts.install).toEqual(["npm install tiny-schema"]);
    expect(facts.usage[0]).toContain('import { object, string } from "tiny-schema";');
    expect(facts.faq).toEqual([
      { question: "Why not zod?", answer: "Zod is great; Tiny Schema is for bundles where every kilobyte counts." },
      { question: "Does it work in the browser?", answer: "Yes. It runs anywhere modern JavaScript runs." },
      { question: "Can I use it with TypeScript?", answer: "Yes, types are inferred from the schema." },
    ]);
    expect(facts.license).toBe("Apache-2.0");
    expect(facts.language).toBe("TypeScript");
    expect(facts.features).toEqual([]);
  });

  it("reads a web app's README: HTML header, screenshots, <details>, an HTML list and steps with code", () => {
    const facts = readReadme(WEBAPP_README);
    expect(facts.title).toBe("Plantbook");
    expect(facts.tagline).toBe("Keep your houseplants alive: watering reminders, light tips and a journal for every plant.");
    expect(facts.features).toEqual([
      { title: "Reminders", body: "Reminders by e-mail when a plant needs water" },
      { title: null, body: "Photo journal for every plant" },
      { title: null, body: "Works on phones" },
    ]);
    expect(facts.faq).toEqual([
      { question: "Is my data private?", answer: "Everything is stored in your own database; nothing is sent to third parties." },
    ]);
    expect(facts.install).toEqual(["docker compose up"]);
    expect(facts.sections.find((section) => section.heading === "Running locally")?.items).toEqual([
      "Clone the repository",
      "Start it:",
      // An address the README links stays a link on the page.
      "Open [http://localhost:3000](http://localhost:3000)",
    ]);
    expect(JSON.stringify(facts)).not.toMatch(/logo\.png|screenshot|<\w/);
    expect(facts.license).toBeNull();
  });

  it("falls back to the metadata for a nearly empty README", () => {
    const facts = readReadme(EMPTY_README, { name: "thing", description: "Does a thing." });
    expect(facts).toMatchObject({ title: "thing", tagline: "Does a thing.", features: [], install: [], usage: [], faq: [], license: null });
  });

  it("gives the metadata, and nothing else, for a missing or blank README", () => {
    for (const text of [null, undefined, "", "  \n\n "]) {
      expect(readReadme(text, { name: "n", description: "d" })).toMatchObject({ title: "n", tagline: "d", sections: [], intro: [] });
    }
    expect(readReadme(null)).toMatchObject({ title: null, tagline: null });
  });

  it("reads reStructuredText: over- and underlined titles, directives, literal blocks, code-block", () => {
    const facts = readReadme(RST_README);
    expect(facts.title).toBe("pyfetcher");
    expect(facts.tagline).toBe(
      "pyfetcher downloads files in parallel with retries, progress bars and checksums. See the [documentation](https://pyfetcher.readthedocs.io) for details.",
    );
    expect(facts.features.map((feature) => feature.body)).toEqual([
      "Parallel downloads with a configurable pool",
      "Automatic retries with exponential backoff",
      "SHA-256 checksum verification",
    ]);
    expect(facts.install).toEqual(["pip install pyfetcher"]);
    expect(facts.installText).toBe("Install from PyPI:");
    expect(facts.usage[0]).toBe('from pyfetcher import fetch\nfetch(["https://example.com/a.zip"], workers=4)');
    expect(facts.license).toBe("BSD-3-Clause");
    expect(facts.language).toBe("Python");
    expect(JSON.stringify(facts)).not.toMatch(/image::|\|build\||:target:/);
  });

  it("reads AsciiDoc headings and listing blocks", () => {
    const facts = readReadme(ASCIIDOC_README);
    expect(facts.title).toBe("Ledgerly");
    expect(facts.tagline).toBe("Ledgerly is a plain-text accounting tool for small teams.");
    expect(facts.install).toEqual(["cargo install ledgerly"]);
    expect(facts.usage).toEqual(["ledgerly report --month 2024-05"]);
    expect(facts.language).toBe("Rust");
  });

  it("takes features from a table, and from subsections", () => {
    const table = readReadme("# x\n\nA tool for y and z.\n\n## Features\n\n| Feature | What |\n|---|---|\n| **Fast** | Sorts in a second |\n| Safe | Dry runs |\n");
    expect(table.features).toEqual([
      { title: "Fast", body: "Sorts in a second" },
      { title: "Safe", body: "Dry runs" },
    ]);
    const sub = readReadme("# x\n\n## Why x\n\n### Small\n\nUnder 2 kB.\n\n### Typed\n\nTypes included.\n");
    expect(sub.features).toEqual([
      { title: "Small", body: "Under 2 kB." },
      { title: "Typed", body: "Types included." },
    ]);
  });

  it("uses the first bullet list when no section names the features, skipping a table of contents", () => {
    const facts = readReadme(
      "# x\n\nDoes things well.\n\n## Contents\n\n- [Install](#install)\n- [Usage](#usage)\n\n## Overview\n\n- Reads YAML files\n- Writes JSON output\n\n## Install\n\n- run the installer\n- restart\n",
    );
    expect(facts.features.map((feature) => feature.body)).toEqual(["Reads YAML files", "Writes JSON output"]);
  });

  it("finds install commands in inline code, or in any code block when no section names them", () => {
    expect(readReadme("# x\n\n## Setup\n\nRun `pip install x` then `x init`.\n").install).toEqual(["pip install x"]);
    expect(readReadme("# x\n\nTry it:\n\n```\ncargo install x\nx --help\n```\n").install).toEqual(["cargo install x"]);
  });

  it("takes the tagline from the title when no paragraph gives one", () => {
    expect(readReadme("# Foo — a small thing for big jobs\n\n## Install\n").tagline).toBe("a small thing for big jobs");
  });

  it("skips front matter, HTML comments and GitHub alerts for the tagline", () => {
    const facts = readReadme("---\ntitle: x\n---\n<!-- hidden\nnotes -->\n# x\n\n> [!WARNING]\n> Still in beta.\n\nx turns notes into slides.\n");
    expect(facts.title).toBe("x");
    expect(facts.tagline).toBe("x turns notes into slides.");
    expect(JSON.stringify(facts)).not.toContain("hidden");
  });

  it("reads a license from a badge or a sentence", () => {
    expect(readReadme("# x\n\n[![License: GPL v3](https://img.shields.io/badge/License-GPLv3-blue.svg)](LICENSE)\n\nA thing.").license).toBe("GPL-3.0");
    expect(readReadme("# x\n\nA thing, licensed under the ISC license.").license).toBe("ISC");
  });

  it("never throws on odd input", () => {
    const odd = [
      "```\nunclosed fence",
      "<div>\n<p>unclosed html",
      "#\n##\n###",
      "- \n-\n* * *\n1.\n",
      "|a|b|\n|-|-|\n",
      "=====\n",
      "> > > > > deep\n> > > > > quote",
      ".. directive::\n   body\n",
      "[x]: http://y\n[^1]: note",
      "\u0000\uFEFF\u202E",
      "<".repeat(5000),
      "*".repeat(5000),
      "[".repeat(3000) + "](" + ")".repeat(3000),
    ];
    for (const text of odd) expect(() => readReadme(text)).not.toThrow();
  });

  // How fast is measured by bench/readme-author.mjs (npm run bench:readme), not here: a timed test fails on a busy machine.
  it("caps the work on a very long README", () => {
    const section = "## Part\n\nSome text with **bold**, `code` and [a link](http://x).\n\n- item one\n- item two\n\n```sh\necho hi\n```\n\n";
    const huge = `# Big\n\nA big README.\n\n${section.repeat(20_000)}`;
    const facts = readReadme(huge);
    expect(facts.truncated).toBe(true);
    expect(huge.length).toBeGreaterThan(README_READ_LIMIT);
    expect(facts.sections.length).toBeLessThanOrEqual(300);
    expect(facts.title).toBe("Big");
  });

  it("reads long junk lines that would make patterns backtrack, up to the line limit", () => {
    for (const junk of ["[".repeat(190_000), "![".repeat(95_000), "<a ".repeat(63_000), "`a <".repeat(47_000)]) {
      const facts = readReadme(junk);
      expect(facts.truncated).toBe(true);
      expect(facts.intro.join("").length).toBeLessThanOrEqual(20_000);
    }
  });

  it("reads a README once for every page of a generation: the same facts, frozen so no reader changes them for another", () => {
    const readme = "# Tidy\n\nTidy sorts your downloads.\n\n## Features\n\n- **Fast**: sorts a folder in a second.\n";
    const fallback = { repositoryUrl: "https://github.com/acme/tidy", defaultBranch: "main" };
    const first = readReadme(readme, fallback);
    expect(readReadme(readme, { ...fallback })).toBe(first);
    expect(Object.isFrozen(first.features[0])).toBe(true);
    // Another repository resolves the README's links elsewhere: its own facts.
    expect(readReadme(readme, { ...fallback, repositoryUrl: "https://github.com/other/tidy" })).not.toBe(first);
  });
});

describe("plainText", () => {
  it.each([
    ["[docs](https://x.dev) and [ref][1]\n\n[1]: https://x.dev/ref", "docs and ref"],
    // Not a link without its definition: GitHub shows the brackets too.
    ["[docs](https://x.dev) and [ref][1]", "docs and [ref][1]"],
    ["![logo](logo.png) Name", "Name"],
    ["[![badge](b.svg)](https://ci)", ""],
    ["**bold**, __strong__, *em*, _em_ and ~~gone~~", "bold, strong, em, em and gone"],
    ["snake_case_name stays", "snake_case_name stays"],
    ["`npm i x` and ``a `b` c``", "npm i x and a `b` c"],
    ["Hello :rocket: world :tada:", "Hello world"],
    ["A&amp;B &lt;tag&gt; &#169; &nbsp;x", "A&B <tag> © x"],
    ["<b>Bold</b> <img src=x> text<br/>more", "Bold text more"],
    ["See <https://example.com>.", "See https://example.com."],
    ["Note[^1] here\n\n[^1]: The note.", "Note here"],
    ["A chart<sup>*</sup>.", "A chart."],
    ["\\*not emphasis\\*", "*not emphasis*"],
  ])("%s", (raw, expected) => {
    expect(plainText(raw)).toBe(expected);
  });

  it("keeps code spans when asked", () => {
    expect(plainText("Run `x init` **now**", { keepCode: true })).toBe("Run `x init` now");
  });
});

describe("clip", () => {
  it("leaves short text alone", () => {
    expect(clip("  Short.  ", 10)).toBe("Short.");
  });

  it("cuts at a sentence end when that keeps at least half", () => {
    expect(clip("First sentence here. Second sentence is longer than the limit.", 40)).toBe("First sentence here.");
  });

  it("otherwise cuts at a word with an ellipsis, within the limit", () => {
    const cut = clip("A very long single sentence without any stop that goes on and on", 30);
    expect(cut).toBe("A very long single sentence…");
    expect(cut.length).toBeLessThanOrEqual(30);
  });

  it("cuts a word with no spaces hard", () => {
    expect(clip("x".repeat(50), 10)).toBe(`${"x".repeat(9)}…`);
  });

  it("cuts code at a line end", () => {
    expect(clipCode("line one\nline two\nline three", 20)).toBe("line one\nline two");
  });
});

describe("firstSentence and detectLicense", () => {
  it("finds the first sentence, not fooled by abbreviations or versions", () => {
    expect(firstSentence("Works with v1.2, e.g. on Linux. More here.")).toBe("Works with v1.2, e.g. on Linux.");
    expect(firstSentence("No stop at all")).toBe("No stop at all");
  });

  it("names common licenses", () => {
    expect(detectLicense("MIT © Acme")).toBe("MIT");
    expect(detectLicense("Apache License, Version 2.0")).toBe("Apache-2.0");
    expect(detectLicense("GNU Affero General Public License v3")).toBe("AGPL-3.0");
    expect(detectLicense("See the LICENSE file.")).toBeNull();
  });
});
