import { describe, expect, it } from "vitest";
import type { PageRequest } from "../../src/generation/page-author.js";
import type { LandingContent } from "../../src/generation/page-content.js";
import { buildReadmePage } from "../../src/generation/readme-author.js";
import { readReadme } from "../../src/generation/readme-reader.js";
import { authorFactsText, readmeAuthorFacts } from "../../src/generation/readme/author-facts.js";

/**
 * Issue 23: the README reader on a syntax tree. Each case is a shape the issue's real READMEs
 * had (hard-wrapped links, HTML tables of downloads, nav bars, headlines that introduce a list,
 * sponsors' logos, disclaimers); each failed with the line-based reader.
 */

const REPO = { repositoryUrl: "https://github.com/acme/tool", defaultBranch: "main" };

function landing(readme: string, name = "tool"): LandingContent {
  const request: PageRequest = {
    kind: "template",
    type: "website",
    product: { name, description: "", repositoryUrl: REPO.repositoryUrl, topics: [], defaultBranch: "main" },
    readme,
    instructions: null,
    pages: ["template", "about"],
    community: false,
  };
  return buildReadmePage(request) as LandingContent;
}

/** Every text field of a page (addresses and code apart). */
function pageTexts(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(pageTexts);
  if (value && typeof value === "object") return Object.entries(value).flatMap(([key, item]) => (["href", "src", "code", "kind"].includes(key) ? [] : pageTexts(item)));
  return [];
}

describe("links", () => {
  it("keeps a link whose text wraps a line as one link, never raw [text](url)", () => {
    const facts = readReadme("# tool\n\nA tool that sorts files.\n\n## Usage\n\nSee the [user\nguide](https://tool.dev/guide) and the\n[API reference](docs/api.md) for more.\n", REPO);
    expect(facts.sections[0]!.text).toBe("See the [user guide](https://tool.dev/guide) and the [API reference](https://github.com/acme/tool/blob/main/docs/api.md) for more.");
  });

  it("keeps a Download table written in HTML as a table whose cells link", () => {
    const readme = `# Notes

A notes app for your desktop.

## Download

<table>
<tr><th>Platform</th><th>Get it</th></tr>
<tr><td>Windows</td><td><a href="https://notes.app/win.exe">Installer</a> or <a href="https://notes.app/win.zip">portable</a></td></tr>
<tr><td>macOS</td><td><a href="https://notes.app/mac.dmg">Download for macOS</a></td></tr>
</table>
`;
    const facts = readReadme(readme, REPO);
    expect(facts.sections[0]!.tables).toEqual([
      {
        header: ["Platform", "Get it"],
        rows: [
          ["Windows", "[Installer](https://notes.app/win.exe) or [portable](https://notes.app/win.zip)"],
          ["macOS", "[Download for macOS](https://notes.app/mac.dmg)"],
        ],
      },
    ]);
    const page = landing(readme, "Notes");
    expect(page.hero.primary_cta).toEqual({ label: "Installer", href: "https://notes.app/win.exe" });
    expect(JSON.stringify(page.sections)).toContain("[Installer](https://notes.app/win.exe)");
  });

  it("never makes text of a nav bar, a language switcher or a table of contents, and links the README's docs and homepage", () => {
    const readme = `<h1 align="center">Tool</h1>

<p align="center">
  <a href="#features">Features</a> |
  <a href="https://tool.dev/docs">Docs</a> |
  <a href="CONTRIBUTING.md">Contributing</a> |
  <a href="https://twitter.com/tool">Twitter</a>
</p>

[English](README.md) | [中文](README.zh.md) | [日本語](README.ja.md)

<p align="center">Key Features • How To Use • Download • Credits</p>

Tool turns folders into tidy archives in one command.

- [Install](#install)
- [Usage](#usage)

## Features

- **Fast**: archives a million files a minute
- **Safe**: checks every archive after writing it

## Install

Get it from the [website](https://tool.dev).
`;
    const facts = readReadme(readme, REPO);
    expect(facts.taglines).toEqual(["Tool turns folders into tidy archives in one command."]);
    expect(facts.intro).toEqual(["Tool turns folders into tidy archives in one command."]);
    expect(facts.destinations).toEqual([
      { kind: "homepage", label: "website", href: "https://tool.dev" },
      { kind: "docs", label: "Docs", href: "https://tool.dev/docs" },
    ]);
    const page = landing(readme, "Tool");
    const all = pageTexts(page).join("\n");
    expect(all).not.toMatch(/Twitter|中文|Key Features|How To Use|\]\(#/);
    expect(page.hero.primary_cta).toEqual({ label: "website", href: "https://tool.dev" });
    expect(page.hero.secondary_cta).toEqual({ label: "Docs", href: "https://tool.dev/docs" });
  });
});

describe("the hero", () => {
  it("keeps a headline that introduces a list with its list, or gives the headline to the name", () => {
    const readme = "# Pocket\n\nAn open source Go backend that includes:\n\n- a realtime database\n- authentication\n- file storage\n- an admin dashboard\n\n## Features\n\n- **Small**: one file to run\n- **Fast**: written in Go\n";
    expect(readReadme(readme).tagline).toBe("An open source Go backend that includes: a realtime database, authentication, file storage and an admin dashboard.");
    const page = landing(readme, "Pocket");
    expect(page.hero.title).toBe("Pocket");
    expect(page.hero.subtitle).toBe("An open source Go backend that includes: a realtime database, authentication, file storage and an admin dashboard.");
    // A lead-in whose list is too long to say in one line is no one-liner: the next candidate is.
    const long = readReadme(`# Pocket\n\nIt has:\n\n${Array.from({ length: 9 }, (_v, i) => `- part ${i}`).join("\n")}\n\n## About\n\nPocket is a backend in one file.\n`);
    expect(long.tagline).toBe("Pocket is a backend in one file.");
  });

  it("keeps the subject and the point of a long headline", () => {
    const readme =
      "# Gale\n\nGaleJS - is a small, simple, and fast web framework built for teams shipping HTTP APIs in Go. It has no dependencies.\n\n## Features\n\n- **Routing**: by path and method\n- **Middleware**: before and after every handler\n";
    const page = landing(readme, "Gale");
    // Not "GaleJS - is a small, … framework built for teams shipping HTTP APIs": the subject leads, the sentence ends where the README's does.
    expect(page.hero.title).toBe("A small, simple, and fast web framework built for teams shipping HTTP APIs in Go");
    const long = landing("# Gale\n\nGale is a small web framework built for teams who ship HTTP APIs in Go every single day of the week.\n\n## Features\n\n- **Routing**: by path and method\n", "Gale");
    expect(long.hero.title).not.toMatch(/built$/);
  });

  it("never takes a call to action, a caption or a notice as the one-liner", () => {
    const readme = `# Chart

<p align="center"><img src="docs/bench.png" width="600"></p>
<p align="center"><sub>Requests per second, higher is better</sub></p>

> [!WARNING]
> Version 2 is not backward compatible with version 1.

Try it!

Chart draws charts from CSV files in your terminal.

## Usage

Run \`chart data.csv\`.
`;
    const facts = readReadme(readme, REPO);
    expect(facts.taglines[0]).toBe("Chart draws charts from CSV files in your terminal.");
    const page = landing(readme, "Chart");
    expect(pageTexts(page).join("\n")).not.toMatch(/Try it!|higher is better|backward compatible/);
  });
});

describe("cards and the closing band", () => {
  it("makes cards from the features, never from sponsors or screenshots, and never splits a sentence at its bold start", () => {
    const readme = `# Lens

Lens is a fast image viewer.

## More Screenshots

- Dark theme with a sidebar of folders
- Light theme with thumbnails of every picture

## Features

- **Lens supports many formats found** in other viewers, such as RAW, HEIC and WebP.
- **Fast**: opens a 100 MB picture in under a second
- **Keyboard first**: every action has a key

## Sponsors

- Acme Corp keeps the lights on every month
- Globex pays for the build servers
`;
    const page = landing(readme, "Lens");
    expect(page.features.map((card) => card.title)).toEqual(["Fast", "Keyboard first"]);
    const all = pageTexts(page).join("\n");
    expect(all).not.toMatch(/Acme|Globex|Dark theme/);
    expect(all).not.toMatch(/^In other viewers/m);
    // The sentence stays whole where it is shown.
    expect(all).toContain("Lens supports many formats found in other viewers, such as RAW, HEIC and WebP.");
  });

  it("closes with no disclaimer and no filler line", () => {
    const readme =
      "# Mono\n\nMono is a monospaced font for code.\n\nPlease don't send me an email about it, I will not respond.\n\nWatch releases of this repo to hear about new weights.\n\n## Features\n\n- **Ligatures**: for arrows and operators\n- **Nerd icons**: in every weight\n";
    const page = landing(readme, "Mono");
    expect(page.closing.body ?? "").not.toMatch(/respond|Watch releases|is a project/);
  });

  it("shows no terminal output from a docs animation, no footnote mark and no caption away from its picture", () => {
    const readme = `# Swift API

Swift API is a web framework for building APIs with Python types.[^1]

## Install

<div class="termy">

\`\`\`console
$ pip install swift-api

---> 100%
\`\`\`

</div>

## Screens

![Dashboard](docs/dash.png)

*The dashboard after a week of requests*

The dashboard shows every route with its latency.

[^1]: Based on standard Python type hints.
`;
    const facts = readReadme(readme, REPO);
    expect(facts.install).toEqual(["$ pip install swift-api\n\n---> 100%"]);
    expect(facts.tagline).toBe("Swift API is a web framework for building APIs with Python types.");
    expect(facts.sections.find((section) => section.heading === "Screens")!.text).toBe("The dashboard shows every route with its latency.");
    const texts = pageTexts(landing(readme, "Swift API")).join("\n");
    expect(texts).not.toMatch(/100%|\[\^1\]|after a week/);
  });
});

describe("pictures", () => {
  it("never takes a sponsor's logo or a badge as the hero picture", () => {
    const readme = `# Board

[![build](https://github.com/acme/board/actions/workflows/ci.yml/badge.svg)](https://github.com/acme/board/actions)

Board is a whiteboard for teams.

## Sponsors

<a href="https://acme.example"><img src="https://acme.example/acme.png" alt="Acme"></a>

## Demo

![Board in use](docs/demo.gif)
`;
    const page = landing(readme, "Board");
    expect(page.hero.image?.src).toBe("https://raw.githubusercontent.com/acme/tool/main/docs/demo.gif");
    expect(readReadme(readme, REPO).images.find((image) => image.alt === "Acme")).toMatchObject({ thirdParty: true, logo: false });
  });
});

describe("reStructuredText and AsciiDoc", () => {
  it("keep their links through the simple rewrite", () => {
    const rst = readReadme("tool\n====\n\nTool sorts files, as `the guide <https://tool.dev>`_ and ``tool --help`` say. |badge|\n\n.. |badge| image:: https://img.shields.io/x.svg\n");
    expect(rst.tagline).toBe("Tool sorts files, as [the guide](https://tool.dev) and `tool --help` say.");
    const adoc = readReadme("= Tool\n\nTool sorts files, as https://tool.dev[the site] and link:https://tool.dev/docs[the docs] say.\n");
    expect(adoc.tagline).toBe("Tool sorts files, as [the site](https://tool.dev) and [the docs](https://tool.dev/docs) say.");
  });
});

describe("facts for the AI author", () => {
  it("gives the one-liner candidates, sections with roles and the destinations, without nav bars or sponsors", () => {
    const readme = "# Tool\n\n[Docs](https://tool.dev/docs) · [Twitter](https://twitter.com/tool)\n\nTool sorts files.\n\n## Features\n\n- **Fast**: very\n\n## Sponsors\n\nAcme pays.\n";
    const facts = readmeAuthorFacts(readme, REPO);
    expect(facts.taglines).toEqual(["Tool sorts files."]);
    expect(facts.sections.map((section) => [section.heading, section.role])).toEqual([["Features", "features"]]);
    expect(facts.destinations).toEqual([{ kind: "docs", label: "Docs", href: "https://tool.dev/docs" }]);
    const text = authorFactsText(facts);
    expect(text).toContain("One-liner candidates (best first):\n- Tool sorts files.");
    expect(text).toContain("- docs: [Docs](https://tool.dev/docs)");
    expect(text).not.toContain("Acme");
  });
});
