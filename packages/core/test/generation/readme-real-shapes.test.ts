import { describe, expect, it } from "vitest";
import { readmeCasing } from "../../src/generation/name-casing.js";
import type { PageRequest } from "../../src/generation/page-author.js";
import type { LandingContent } from "../../src/generation/page-content.js";
import { buildReadmePage } from "../../src/generation/readme-author.js";
import { readReadme, roleOf } from "../../src/generation/readme-reader.js";

/**
 * Issue 23, the shapes of the real READMEs (test-support/src/readme-corpus/real/) that the reader
 * got wrong, each written small: what a maintainer would state as the rule, not one project's
 * README. Each case failed before the rule was in the reader or the author.
 */

const REPO = { repositoryUrl: "https://github.com/acme/tool", defaultBranch: "main" };
const facts = (readme: string, productName = "tool") => readReadme(readme, { ...REPO, productName });

function landing(readme: string, name = "tool", description = ""): LandingContent {
  const request: PageRequest = {
    kind: "template",
    type: "website",
    product: { name, description, repositoryUrl: REPO.repositoryUrl, topics: [], defaultBranch: "main" },
    readme,
    instructions: null,
    pages: ["template", "about"],
    community: false,
  };
  return buildReadmePage(request) as LandingContent;
}

describe("reStructuredText and AsciiDoc READMEs read as GitHub shows them", () => {
  it("rST: named link targets, references and picture substitutions become links and pictures, no `Name_` left", () => {
    const rst = [
      "|logo|",
      "",
      ".. |logo| image:: https://example.org/logo.svg",
      "   :target: https://tool.org",
      "   :alt: Tool",
      "",
      "Tool_ is a framework to extract data. It is maintained by Acme_ and `many other people`_.",
      "",
      ".. _Tool: https://tool.org/",
      ".. _Acme: https://acme.example/",
      ".. _many other people: https://github.com/acme/tool/graphs/contributors",
      "",
      "Install with:",
      "",
      ".. code:: bash",
      "",
      "    pip install tool",
      "",
      "And follow the documentation_ to learn how to use it.",
      "",
      ".. _documentation: https://docs.tool.org/en/latest/",
    ].join("\n");
    const read = facts(rst);
    expect(read.tagline).toBe("[Tool](https://tool.org/) is a framework to extract data. It is maintained by [Acme](https://acme.example/) and [many other people](https://github.com/acme/tool/graphs/contributors).");
    expect(read.destinations).toEqual([
      { kind: "homepage", label: "Website", href: "https://tool.org" },
      { kind: "docs", label: "documentation", href: "https://docs.tool.org/en/latest/" },
    ]);
    expect(JSON.stringify(read)).not.toMatch(/\w_[\s.,"]/);
  });

  it("AsciiDoc: attributes are replaced, GitHub's conditionals kept or left out, the author line and comments dropped, an admonition is a notice", () => {
    const adoc = [
      "= Tool",
      "Jane Doe <https://github.com/jane[@jane]>",
      "// settings:",
      ":url-project: https://tool.org",
      ":release-version: 2.0.1",
      "ifndef::env-github[:icons: font]",
      "ifdef::env-site[]",
      "This line is only for the website.",
      "endif::[]",
      "",
      "{url-project}[Tool] is a fast text processor, version {release-version}.",
      "",
      "image:https://img.shields.io/badge/v-{release-version}-blue.svg[Latest,link=https://rubygems.org/gems/tool]",
      "",
      "[CAUTION]",
      "====",
      "On Windows, set the encoding first.",
      "====",
      "",
      "== Install",
      "",
      "[subs=attributes+]",
      "----",
      "# gem 'tool', '{release-version}'",
      "----",
    ].join("\n");
    const read = facts(adoc);
    expect(read.title).toBe("Tool");
    expect(read.intro).toEqual(["[Tool](https://tool.org) is a fast text processor, version 2.0.1."]);
    expect(read.install).toEqual(["# gem 'tool', '2.0.1'"]);
    expect(JSON.stringify(read)).not.toMatch(/\{[\w-]+\}|ifn?def::|endif::|Jane Doe|website\.|\[CAUTION\]|image:/);
  });

  it("a plain-text README's indented address is a link: its wiki is the documentation", () => {
    const text = "Welcome to tool!\n\ntool is a terminal multiplexer for many screens.\n\nOther documentation is available in the wiki:\n\n\thttps://github.com/acme/tool/wiki\n";
    expect(facts(text).destinations).toEqual([{ kind: "docs", label: "Documentation", href: "https://github.com/acme/tool/wiki" }]);
  });
});

describe("the one-liner is the product's, never a notice, a thanks line, the README about itself or a quote", () => {
  it.each([
    ["the README about itself", "This README is just a fast quick start document. You can find more at [tool.io](https://tool.io).\n\nWhat is tool?\n---\n\nTool is a data structures server.\n"],
    ["a merch line", "Show your love for tool -- T-shirts, mugs, and stickers now available!\n\ntool is a general-purpose fuzzy finder.\n"],
    ["a thanks line", "<div align=\"center\"><sup>Special thanks to:</sup><br><a href=\"https://warp.dev\"><b>Warp, the intelligent terminal</b></a></div>\n\ntool is a general-purpose fuzzy finder.\n"],
    ["a user's quote", "To quote the Rush team:\n\n> Microsoft uses tool in Rush repos with hundreds of projects.\n\ntool is a general-purpose fuzzy finder.\n"],
    ["a testimonial", "\"I'm using tool a ton these days.\" — Kabir, Microsoft\n\ntool is a general-purpose fuzzy finder.\n"],
    ["a label before a link", "**Source Code**: [https://github.com/acme/tool](https://github.com/acme/tool)\n\ntool is a general-purpose fuzzy finder.\n"],
  ])("%s", (_what, readme) => {
    const tagline = facts(readme).tagline!;
    expect(tagline).toMatch(/^(?:tool|Tool) is a /);
  });

  it("a release announcement is a notice section, not the subtitle", () => {
    const page = landing("# Tool\n\n## 📰 Tool 1.12.0 is now available!\n\nWe're excited to announce the release of Tool 1.12.0! It brings new features.\n\n## About\n\nTool is a web framework written in Go.\n", "tool", "Tool is a web framework written in Go.");
    expect(JSON.stringify(page.hero)).not.toMatch(/announce|1\.12/);
    expect(roleOf("Tool 1.12.0 is now available!")).toBe("meta");
  });

  it("a sentence pointing at what follows in the README is left out of the subtitle", () => {
    const page = landing("# Tool\n\n## Goals\n\nTool is a **continuous file synchronization program**. It synchronizes files between computers. We strive to fulfill the goals below.\n", "tool", "Open Source Continuous File Synchronization");
    expect(`${page.hero.title} ${page.hero.subtitle}`).not.toMatch(/below/);
    expect(page.hero.subtitle).toBe("It synchronizes files between computers.");
  });

  it("a centred heading that does not name the product is the header's description, and a row of languages is no statement", () => {
    const readme = '[![Tool Banner](https://tool.io/banner.svg)](https://tool.io)\n\n<h2 align="center">Opinionated Code Formatter</h2>\n\n<p align="center"><em>JavaScript · TypeScript · Flow</em><br/><em>CSS · SCSS</em><br/><em><a href="https://tool.io/plugins">Your favorite language?</a></em></p>\n\n## Intro\n\nTool is an opinionated code formatter.\n';
    const read = facts(readme);
    expect(read.title).toBeNull();
    expect(read.taglines[0]).toBe("Opinionated Code Formatter");
    expect(read.taglines.join(" ")).not.toMatch(/TypeScript/);
  });
});

describe("sections that are not the product's", () => {
  it.each([
    ["Silver Sponsors", "meta"],
    ["Commercial support", "support"],
    ["Licenses", "license"],
    ["Thank you for supporting Tool", "meta"],
    ["Who's integrating Tool", "meta"],
  ])("%s is %s", (heading, role) => {
    expect(roleOf(heading)).toBe(role);
  });

  it("a row of users' names that ends 'and many others' is a link row, not text", () => {
    const read = facts("# Tool\n\nTool is a whiteboard.\n\n## Features\n\n- Fast drawing of shapes on a canvas\n- Export to PNG and SVG files\n\n## Integrations\n\n[Google](https://google.com) • [Meta](https://meta.com) • [Replit](https://replit.com) and many others\n");
    expect(read.sections.find((section) => section.heading === "Integrations")!.text).toBe("");
  });
});

describe("destinations are the product's own", () => {
  it("a README that links only pages of its own site has that site as homepage", () => {
    const read = readReadme("# x\n\nFast, disk space efficient package manager.\n\n- [Installation](https://tool.io/installation)\n- [Usage](https://tool.io/cli)\n", { ...REPO, productName: "tool" });
    expect(read.destinations[0]).toEqual({ kind: "homepage", label: "Website", href: "https://tool.io" });
  });

  it("not another project's docs, a prerequisite's download, a download count or one platform's file", () => {
    const readme = [
      "# Tool",
      "",
      "Tool is a search tool. See [delta's documentation](https://dandavison.github.io/delta/grep.html) and [the regex docs](https://docs.rs/regex/latest/regex/).",
      "",
      "[![npm downloads/month](https://img.shields.io/npm/dm/tool.svg)](https://npmcharts.com/compare/tool) [![Downloads](https://static.pepy.tech/badge/tool)](https://pepy.tech/project/tool)",
      "",
      "Before installing, [download and install Node.js](https://nodejs.org/en/download/).",
      "",
      "Windows: [tool.exe](https://github.com/acme/tool/releases/latest/download/tool.exe)",
    ].join("\n");
    expect(facts(readme).destinations).toEqual([{ kind: "download", label: "Download", href: "https://github.com/acme/tool/releases/latest" }]);
  });
});

it("the name is spelt as the README's text spells it most, not as a banner's alt text does", () => {
  const readme = "[![TOOL-X](banner.svg)](#readme)\n\ntool-x is a downloader. Run tool-x with a URL; tool-x saves the file.";
  expect(readmeCasing("tool-x", "tool-x", null, readme)).toBe("tool-x");
});

describe("cards and pictures a maintainer would publish", () => {
  it("'**Portable** // …' is a lead and its text, and a footnote mark after a sentence is left out", () => {
    const page = landing("# tool\n\ntool is a fuzzy finder for the terminal.\n\n## Features\n\n- **Portable** // Distributed as a single binary for easy installation\n- **Fast** // Optimized to process millions of items in milliseconds\n- **Fewer bugs**: Reduce about 40% of human induced errors. *\n");
    expect(page.features).toEqual([
      { title: "Portable", body: "Distributed as a single binary for easy installation." },
      { title: "Fast", body: "Optimized to process millions of items in milliseconds." },
      { title: "Fewer bugs", body: "Reduce about 40% of human induced errors." },
    ]);
  });

  it("a sentence with its own subject is never cut into a title and a body ('ripgrep supports many features found' / 'In grep, …')", () => {
    const page = landing("# tool\n\ntool is a line-oriented search tool.\n\n## Why should I use tool?\n\n- It can replace many use cases served by other search tools because it contains most of their features.\n- tool supports many features found in grep, such as showing the context of search results.\n- tool has optional support for switching its regex engine to use PCRE2.\n");
    expect(page.features.map((card) => card.title).join(" | ")).not.toMatch(/^It can|tool (?:supports|has)/);
    expect(page.sections.map((section) => section.body).join("\n")).toContain("- tool supports many features found in grep, such as showing the context of search results.");
  });

  it("a picture that links to another company's site (a sponsor's banner) is never the hero's picture", () => {
    const readme = '<div align="center"><sup>Supported by:</sup><br><a href="https://www.warp.dev/tool"><img alt="Warp sponsorship" width="400" src="https://github.com/user-attachments/assets/warp.png"></a></div>\n\ntool is a library for creating CLI applications.\n\n![Demo of tool](https://github.com/user-attachments/assets/demo.gif)\n';
    const read = facts(readme);
    expect(read.images.find((image) => image.alt === "Warp sponsorship")?.thirdParty).toBe(true);
    expect(landing(readme).hero.image?.src).toBe("https://github.com/user-attachments/assets/demo.gif");
  });

  it("the project's team, governance, deprecations and vulnerability reporting are no product sections; requirements are no card", () => {
    for (const heading of ["Current project team members", "Governance", "Deprecated features", "Vulnerability reporting", "Badge", "Trademarks", "Live Demo", "Signed Releases", "Versioning and Release Policy"]) expect(roleOf(heading)).toBe("meta");
    for (const heading of ["Server Development", "Cloning the Repository", "Code contributions"]) expect(roleOf(heading)).toBe("contributing");
    expect(roleOf("Getting in Touch")).toBe("support");
    const page = landing("# tool\n\ntool is a downloader for video sites.\n\n## Dependencies\n\nPython versions 3.10+ (CPython) and 3.11+ (PyPy) are supported by every release.\n\n## Output template\n\nThe `-o` option sets a template for the output file names of every download.\n");
    expect(page.features.map((card) => card.title)).toEqual(["Output template"]);
  });
});

it("a card never asks for a star or says only 'Try it!', but 'thanks to' inside a sentence says why, not who is thanked", () => {
  const page = landing("# tool\n\ntool is a self-hosted monitoring tool.\n\n## Motivation\n\nIf you love this project, please consider giving it a ⭐.\n\n## Try\n\nTry it!\n\n## Notifications\n\nAlerts reach you by e-mail, Slack or a webhook when a check fails.\n");
  expect(page.features.map((card) => card.title)).toEqual(["Notifications"]);
  const fast = landing("# tool\n\ntool is a web framework for building APIs.\n\n## Features\n\n- **Fast**: Very high performance, on par with NodeJS and Go (thanks to Starlette and Pydantic).\n- **Short**: Minimize code duplication.\n");
  expect(fast.features.map((card) => card.title)).toEqual(["Fast", "Short"]);
});

it("'X is a Y: it does …' heads the page with 'A Y'; a description of the repository ('tmux source code') says nothing of the product", () => {
  const page = landing("Welcome to tool!\n\ntool is a terminal multiplexer: it enables a number of terminals to be controlled from a single screen. tool may be detached from a screen and continue running in the background.\n", "tool", "tool source code");
  expect(page.hero.title).toBe("A terminal multiplexer");
  expect(JSON.stringify(page)).not.toContain("source code");
});

it("a leading feature list with a link or two among its items ('**[Great for monorepos](…)**', 'See the full comparison') is still the feature list", () => {
  const readme = "Fast, disk space efficient package manager:\n\n* **Fast.** Up to 2x faster than the alternatives.\n* **Efficient.** Files are linked from a single content-addressable storage.\n* **[Great for monorepos](https://tool.io/workspaces).**\n* **Strict.** A package can access only dependencies it declares.\n* **Deterministic.** Has a lockfile called `tool-lock.yaml`.\n* [See the full feature comparison](https://tool.io/feature-comparison).\n";
  expect(landing(readme).features.map((card) => card.title)).toEqual(["Fast", "Efficient", "Strict", "Deterministic"]);
});

it("a section that introduces its example picture makes a whole card, its pointer at the picture left out; one that introduces a list does not", () => {
  const readme = "# tool\n\nA cat clone with wings.\n\n### Syntax highlighting\n\n`tool` supports syntax highlighting for many languages:\n\n![Syntax highlighting example](https://i.example/a.png)\n\n### Git integration\n\n`tool` shows modifications with respect to the index\n(see left sidebar):\n\n![Git integration example](https://i.example/b.png)\n\n### Extras\n\nThe list of extras includes, but is not limited to:\n\n- paging\n- themes\n";
  expect(landing(readme).features).toEqual([
    { title: "Syntax highlighting", body: "`tool` supports syntax highlighting for many languages." },
    { title: "Git integration", body: "`tool` shows modifications with respect to the index." },
  ]);
});
