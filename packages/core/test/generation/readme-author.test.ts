import { describe, expect, it } from "vitest";
import type { PageRequest } from "../../src/generation/page-author.js";
import { PAGE_SCHEMAS } from "../../src/generation/page-author.js";
import type { AboutContent, AuthContent, FaqContent, LandingContent } from "../../src/generation/page-content.js";
import { buildReadmePage, createReadmeAuthor } from "../../src/generation/readme-author.js";
import type { PageKind, ProjectType } from "../../src/projects/project.js";
import { ASCIIDOC_README, CLI_README, EMPTY_README, LIBRARY_README, RST_README, WEBAPP_README } from "./readme-fixtures.js";

const KINDS: PageKind[] = ["template", "about", "faq", "auth"];
const TYPES: ProjectType[] = ["saas", "website", "landing"];
const READMES: Record<string, string | null> = {
  cli: CLI_README,
  library: LIBRARY_README,
  webapp: WEBAPP_README,
  empty: EMPTY_README,
  rst: RST_README,
  asciidoc: ASCIIDOC_README,
  none: null,
};

function request(overrides: Partial<PageRequest> = {}): PageRequest {
  return {
    kind: "template",
    type: "website",
    product: {
      name: "tidyfiles",
      description: "Sort your downloads",
      repositoryUrl: "https://github.com/acme/tidyfiles",
      topics: ["cli", "files"],
      defaultBranch: "main",
    },
    readme: CLI_README,
    instructions: null,
    pages: ["template", "about", "faq", "auth"],
    community: false,
    ...overrides,
  };
}

const build = <T>(overrides: Partial<PageRequest>) => buildReadmePage(request(overrides)) as T;
const abort = () => {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
};

describe("README author", () => {
  describe.each(Object.entries(READMES))("README %s", (_name, readme) => {
    it.each(TYPES.flatMap((type) => KINDS.map((kind) => [type, kind] as const)))("%s %s passes the schema", (type, kind) => {
      for (const product of [
        request().product,
        { name: "x", description: "", repositoryUrl: "https://git.example.org/x.git", topics: [], defaultBranch: "" },
        { name: "A".repeat(120), description: "B ".repeat(400), repositoryUrl: "https://github.com/a/b", topics: ["t".repeat(60)], defaultBranch: "main" },
      ]) {
        const req = request({ kind, type, readme, product, community: kind === "auth" });
        // Without a README question there is no FAQ page: the author declines it (422 no_questions).
        if (createReadmeAuthor().declines?.(req)) {
          expect(kind).toBe("faq");
          expect(() => buildReadmePage(req)).toThrow(expect.objectContaining({ status: 422, code: "no_questions" }));
          continue;
        }
        const page = buildReadmePage(req);
        const parsed = PAGE_SCHEMAS[kind].safeParse(page);
        expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
        expect(page.kind).toBe(kind);
      }
    });
  });

  it("is deterministic", () => {
    for (const kind of KINDS.filter((kind) => kind !== "faq")) {
      expect(JSON.stringify(buildReadmePage(request({ kind })))).toBe(JSON.stringify(buildReadmePage(request({ kind }))));
    }
  });

  it("writes the page's JSON to onText in a few chunks and returns the same content", async () => {
    const author = createReadmeAuthor();
    const deltas: string[] = [];
    const content = await author.write(request(), (delta) => deltas.push(delta), new AbortController().signal);
    expect(author.name).toBe("readme");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.length).toBeLessThanOrEqual(6);
    expect(JSON.parse(deltas.join(""))).toEqual(content);
    expect(content).toEqual(buildReadmePage(request()));
  });

  it("rejects with the signal's reason when aborted", async () => {
    const signal = abort();
    await expect(createReadmeAuthor().write(request(), () => {}, signal)).rejects.toBe(signal.reason);
  });

  describe("landing page", () => {
    it("takes its facts from the README: hero, features, install and usage code", () => {
      const page = build<LandingContent>({});
      // Shortened to a complete clause (at " by type and date"), never mid-phrase.
      expect(page.hero.title).toBe("A fast command-line tool that sorts your Downloads folder into tidy sub-folders");
      expect(page.features.map((feature) => feature.title)).toEqual(["Fast", "Safe", "Rules", "Undo the last run"]);
      expect(page.features[0]!.body).toBe("Sorts 10,000 files in under a second.");
      // A bullet with nothing to say under its title is listed under the README's heading, not carded.
      expect(page.sections.find((section) => section.title === "Features")?.body).toBe("- Works on Linux, macOS and Windows");
      const install = page.sections.find((section) => section.title === "Installation");
      expect(install?.code).toContain("npm install -g tidyfiles");
      expect(install?.code).toContain("brew install tidyfiles");
      expect(page.sections.find((section) => section.title === "Usage")?.code).toBe("$ tidy ~/Downloads --dry-run");
      // The options table of the Usage section stays a table.
      expect(page.sections.find((section) => section.title === "Usage")?.table?.rows).toEqual([
        ["`--dry-run`", "show moves only"],
        ["`--by-date`", "group by month"],
        ["`--keep <days>`", "leave files newer than this many days (default 7)"],
      ]);
      // The closing band says nothing the page said already (the headline is the README's opening, the
      // subtitle its description, and it has no other paragraph), nor filler ("tidyfiles is a project on GitHub."): no body.
      expect(page.closing.body).toBeUndefined();
    });

    it("labels the buttons for the project type", () => {
      const saas = build<LandingContent>({ type: "saas" });
      expect(saas.hero.primary_cta.label).toBe("Open the app");
      expect(saas.closing.cta.label).toBe("Start now");
      // The README's own destination first ("[Docs](https://tidyfiles.dev)"), the repository without one.
      for (const type of ["website", "landing"] as const) {
        const page = build<LandingContent>({ type });
        expect(page.hero.primary_cta).toEqual({ label: "Docs", href: "https://tidyfiles.dev" });
        const plain = build<LandingContent>({ type, readme: "# tidyfiles\n\nSorts your Downloads folder into tidy sub-folders.\n" });
        expect(plain.hero.primary_cta.label).toBe("View on GitHub");
        expect(plain.closing.cta.label).toBe("Get started on GitHub");
      }
      expect(saas.hero.secondary_cta).toEqual({ label: "Docs", href: "https://tidyfiles.dev" });
      const gitlab = build<LandingContent>({ readme: "# b\n\nSorts things.\n", product: { ...request().product, repositoryUrl: "https://gitlab.com/a/b" } });
      expect(gitlab.hero.primary_cta.label).toBe("View on GitLab");
      const other = build<LandingContent>({ readme: "# b\n\nSorts things.\n", product: { ...request().product, repositoryUrl: "https://git.example.org/a/b.git" } });
      expect([other.hero.primary_cta.label, other.closing.cta.label]).toEqual(["View the source", "Get the source"]);
    });

    it("leaves install steps off a saas site, whose app runs in the browser", () => {
      const page = build<LandingContent>({ type: "saas" });
      expect(page.sections.some((section) => section.code)).toBe(false);
      expect(JSON.stringify(page)).not.toContain("npm install");
    });

    it("turns bullets without a lead-in into titled cards", () => {
      const page = build<LandingContent>({ readme: RST_README, product: { ...request().product, name: "pyfetcher" } });
      expect(page.features).toEqual([
        // The body says what follows the title in the bullet: a card never starts by repeating its title.
        { title: "Parallel downloads", body: "With a configurable pool." },
        { title: "Automatic retries", body: "With exponential backoff." },
      ]);
      // No "pyfetcher comes with …" made up for the bullet that has no clause to lead with.
      expect(page.sections.find((section) => section.title === "Features")?.body).toBe("- SHA-256 checksum verification");
      expect(page.hero.title).toBe("pyfetcher downloads files in parallel with retries, progress bars and checksums");
    });

    it("rewrites 'X is a …' into a promise", () => {
      const readme = `${ASCIIDOC_README}\n== Features\n\n* *Budgets*: a warning when a month spends more than planned\n`;
      const page = build<LandingContent>({ readme, product: { ...request().product, name: "Ledgerly" } });
      expect(page.hero.title).toBe("A plain-text accounting tool for small teams");
    });

    it("says the README's only sentence once: in the card, the hero naming the project", () => {
      const page = build<LandingContent>({ readme: ASCIIDOC_README, product: { ...request().product, name: "Ledgerly" } });
      expect([page.hero.title, page.hero.subtitle]).toEqual(["Ledgerly", "Sort your downloads."]);
      expect(page.features).toEqual([{ title: "What it is", body: "Ledgerly is a plain-text accounting tool for small teams." }]);
      // Nothing left to say: no closing text rather than a sentence made up to fill it.
      expect(page.closing.body).toBeUndefined();
    });

    it("makes up no feature when the README lists none: one card with what it says it is", () => {
      const product = { ...request().product, name: "Tiny Schema", description: "" };
      const page = build<LandingContent>({ readme: LIBRARY_README, product });
      // The README's opening is all it says of itself: its first sentence is the card, the hero names the project.
      expect([page.hero.title, page.hero.subtitle]).toEqual(["Tiny Schema", "It has no dependencies and weighs 2 kB."]);
      // Not titled "Tiny Schema": the text starts with the name, and a card never repeats its title.
      expect(page.features).toEqual([{ title: "What it is", body: "Tiny Schema validates JavaScript objects with composable, typed rules." }]);
      // With a repository description the hero keeps the opening, and the card says the description.
      const described = build<LandingContent>({ readme: LIBRARY_README, product: { ...product, description: "Typed validation in 2 kB" } });
      expect(described.hero.title).toBe("Tiny Schema validates JavaScript objects with composable, typed rules");
      expect(described.features).toEqual([{ title: "Tiny Schema", body: "Typed validation in 2 kB." }]);
      expect(JSON.stringify(page)).not.toMatch(/Released under|Install in one line|Listed on/);
    });
  });

  describe("an empty README", () => {
    it("still gives sensible pages from the metadata, claiming nothing else", () => {
      for (const readme of [null, EMPTY_README]) {
        const landing = build<LandingContent>({ readme, product: { ...request().product, description: "Sorts files." } });
        // The description is the only text: the card says it, the hero names the project (said once each).
        expect([landing.hero.title, landing.hero.subtitle]).toEqual(["tidyfiles", "tidyfiles is a project on GitHub."]);
        expect(landing.features).toEqual([{ title: "tidyfiles", body: "Sorts files." }]);
        // Nothing left to say: the closing band is its title and button, no sentence made up for it.
        expect(landing.closing.body).toBeUndefined();
        expect(landing.sections).toEqual([]);
        const text = JSON.stringify([landing, build({ kind: "about", readme })]);
        expect(text).not.toMatch(/open source|licen[cs]e|install/i);
        expect(text).not.toContain("TODO");
      }
    });

    it("declines the FAQ page: no README, no question", () => {
      for (const type of TYPES) {
        const req = request({ kind: "faq", type, readme: null, product: { ...request().product, description: "", topics: [] } });
        expect(createReadmeAuthor().declines?.(req)).toMatch(/asks no question/);
      }
    });
  });

  describe("about page", () => {
    it("lists facts from the README and the metadata", () => {
      // The language is the repository's (its source files, measured by the generation), not a guess from the README.
      const page = build<AboutContent>({ kind: "about", readme: RST_README, product: { ...request().product, language: "Python" } });
      expect(page.title).toBe("About tidyfiles");
      expect(page.facts).toEqual([
        { label: "License", value: "BSD 3-Clause License" },
        { label: "Language", value: "Python" },
        { label: "Topics", value: "cli, files" },
        { label: "Repository", value: "github.com/acme/tidyfiles" },
        { label: "Default branch", value: "main" },
        { label: "Install", value: "`pip install pyfetcher`" },
      ]);
      expect(page.sections.map((section) => section.title)).toContain("Features");
    });

    it("says no language the repository's files did not give, whatever the README's samples and topics say", () => {
      const page = build<AboutContent>({ kind: "about", readme: RST_README, product: { ...request().product, topics: ["python", "cli"] } });
      expect(page.facts.map((fact) => fact.label)).not.toContain("Language");
      const rust = build<AboutContent>({ kind: "about", readme: RST_README, product: { ...request().product, language: "Rust" } });
      expect(rust.facts).toContainEqual({ label: "Language", value: "Rust" });
    });

    it("names a local folder's project by the folder's name, never its path on the server", () => {
      const page = build<AboutContent>({ kind: "about", readme: RST_README, product: { ...request().product, repositoryUrl: "file:///srv/checkouts/tidyfiles" } });
      expect(page.facts).toContainEqual({ label: "Repository", value: "tidyfiles" });
      expect(JSON.stringify(page)).not.toContain("/srv/checkouts");
    });

    it("keeps the repository facts off a saas site", () => {
      const page = build<AboutContent>({
        kind: "about",
        type: "saas",
        readme: WEBAPP_README,
        product: { ...request().product, name: "Plantbook", description: "" },
      });
      expect(page.facts.map((fact) => fact.label)).toEqual(["Topics"]);
      expect(page.sections.map((section) => section.title)).toEqual(["What it does", "Highlights", "Tech stack"]);
    });
  });

  describe("FAQ page", () => {
    // Issue 15: FAQ entries come only from the README's own questions (this replaced the
    // assertions that install, license and support sections became made-up questions).
    it("keeps only the README's questions", () => {
      const page = build<FaqContent>({ kind: "faq", readme: LIBRARY_README, product: { ...request().product, name: "Tiny Schema" } });
      expect(page.items.map((item) => item.question)).toEqual(["Why not zod?", "Does it work in the browser?", "Can I use it with TypeScript?"]);
    });

    it("makes no question out of the README's install, usage or license sections", async () => {
      expect(createReadmeAuthor().declines?.(request({ kind: "faq" }))).toMatch(/asks no question/);
      await expect(createReadmeAuthor().write(request({ kind: "faq" }), () => {}, new AbortController().signal)).rejects.toMatchObject({ status: 422, code: "no_questions" });
    });
  });

  describe("sign-in page", () => {
    it("names the product and mentions the community when it is on", () => {
      const page = build<AuthContent>({ kind: "auth", community: true });
      expect(page.title).toBe("Sign in to tidyfiles");
      expect(page.note).toContain("community forum");
      expect(build<AuthContent>({ kind: "auth" }).note).not.toContain("community");
    });
  });

  it("ignores the wishes: the page is the same with and without them", () => {
    for (const kind of KINDS.filter((kind) => kind !== "faq")) {
      const plain = buildReadmePage(request({ kind }));
      const wished = buildReadmePage(request({ kind, instructions: "Say it is the best tool in the world." }));
      expect(wished).toEqual(plain);
    }
  });
});
