import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { launchBrowser, README_CORPUS, readmeSitePages, type ReadmeFixture, type ReadmeSite } from "@reposite/test-support";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESIGNS, type Design } from "../../src/designs/index.js";
import type { AboutContent, FaqContent, LandingContent, PageContent } from "../../src/generation/page-content.js";
import type { ColorMode, PageKind } from "../../src/projects/project.js";
import { renderPage, type SiteContext } from "../../src/rendering/index.js";
import { checkPages, servePages, WIDTHS, type CheckJob } from "./chromium-checks.js";
import { edgeReadme } from "./readme-edge-fixture.js";
import { screenshotPng, withCopiedPictures } from "./readme-site-pictures.js";

/**
 * Issue 15, proof: the sites the README author writes from the README corpus, drawn in the designs
 * in headless Chromium. The sample pages the designs were made with are tidy; README sites are not:
 * one or two feature cards, sections that are only a code block, a table or a picture, wide tables,
 * long install commands, hero screenshots, a FAQ with one question.
 *
 * Every corpus README is drawn in three designs (one of each design type, so all 30 designs are
 * used) with the project type of the design, in one scheme; every other README has one of its
 * designs in both. When this was written the corpus had no FAQ of one question, no table wider than
 * four columns and no section of only a picture, so one more README (`readme-edge-fixture.ts`)
 * with all of them, one feature, a long install command, a Download link and a hero screenshot is
 * drawn in every design, schemes alternating (its sign-in page is like every other's, left out).
 * Every page of the site is checked at 1280×800 and 390×844 with `chromium-checks.ts`: WCAG A/AA
 * (contrast included), no sideways scroll, no word broken mid-word, the primary call to action
 * above the fold at 1280×800, one h1, no empty box drawn from an empty field.
 *
 * The README's pictures are remote addresses until the copier stores them on the site; here each
 * becomes a `data:` PNG (as the copier makes it a site path) so it is drawn and measured.
 *
 * Screenshots are kept for people to look at in `test-artifacts/readme-sites/` at the repository
 * root (ignored by git), with `problems.txt`: every landing page at both widths, full length; every
 * page with REPOSITE_DESIGN_SCREENSHOTS=all (then the test takes about twice as long).
 */
const ARTIFACTS = fileURLToPath(new URL("../../../../test-artifacts/readme-sites/", import.meta.url));
const SAVE_ALL = process.env.REPOSITE_DESIGN_SCREENSHOTS === "all";
const SCHEMES: { name: "light" | "dark"; colorMode: ColorMode }[] = [
  { name: "light", colorMode: "Light mode" },
  { name: "dark", colorMode: "Dark mode" },
];

/** Three designs per README, one of each type; over the corpus every design is used once. */
function designsFor(index: number): Design[] {
  const ofType = (type: Design["type"]) => DESIGNS.filter((design) => design.type === type);
  return [ofType("saas"), ofType("website"), ofType("landing")].map((list, n) => list[(index + 3 * n) % list.length]!);
}

/** Schemes for the n-th design of the index-th README: every other README has one design in both, the rest alternate. */
function schemesFor(index: number, n: number): typeof SCHEMES {
  return index % 2 === 0 && n === (index / 2) % 3 ? SCHEMES : [SCHEMES[(index + n) % 2]!];
}

describe("README sites in every design, in Chromium", () => {
  const pages = new Map<string, string>();
  const jobs: CheckJob[] = [];
  /** Which designs drew which README, to prove the coverage the test promises. */
  const drawn = new Map<string, Set<string>>();
  const schemesSeen = new Set<string>();
  let served: Awaited<ReturnType<typeof servePages>>;
  let browser: Browser;
  let edge: ReadmeSite | undefined;

  beforeAll(async () => {
    rmSync(ARTIFACTS, { recursive: true, force: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    const picture = screenshotPng();
    for (const [index, fixture] of README_CORPUS.entries()) {
      for (const [n, design] of designsFor(index).entries()) {
        const site = await readmeSitePages(fixture, design.type);
        for (const scheme of schemesFor(index, n)) {
          schemesSeen.add(`${fixture.id}/${design.id}/${scheme.name}`);
          addSite(fixture, design, scheme, site.kinds, site.pages, picture);
        }
        drawn.set(design.id, (drawn.get(design.id) ?? new Set()).add(fixture.id));
      }
    }
    for (const [index, design] of DESIGNS.entries()) {
      const site = await readmeSitePages(edgeReadme, design.type);
      if (design.type === "website") edge ??= site;
      const kinds = site.kinds.filter((kind) => kind !== "auth");
      addSite(edgeReadme, design, SCHEMES[index % 2]!, kinds, site.pages, picture, site.kinds);
    }
    served = await servePages(pages);
    browser = await launchBrowser();
  });

  /** Renders the site's pages `kinds` (its menu: `menu`) and queues their checks at both widths. */
  function addSite(
    fixture: ReadmeFixture,
    design: Design,
    scheme: (typeof SCHEMES)[number],
    kinds: PageKind[],
    content: Partial<Record<PageKind, PageContent>>,
    picture: string,
    menu = kinds,
  ) {
    const site: SiteContext = {
      name: fixture.expect.name,
      logoUrl: "",
      colorMode: scheme.colorMode,
      type: design.type,
      repositoryUrl: fixture.product.repositoryUrl,
      appPath: "/app/",
      pages: menu,
      community: false,
      year: 2025,
    };
    for (const kind of kinds) {
      const page = withCopiedPictures(content[kind]!, picture);
      const path = `/${fixture.id}/${design.id}/${scheme.name}/${kind}`;
      pages.set(path, renderPage(design, page, site));
      for (const width of WIDTHS) {
        const label = `${fixture.id}/${design.id}/${kind}/${scheme.name}/${width.name}`;
        jobs.push({
          path,
          label,
          width,
          axe: true,
          words: true,
          ...(page.kind === "template" && width.name === "1280" ? { foldCta: page.hero.primary_cta.label } : {}),
          ...(kind === "template" || SAVE_ALL ? { screenshot: `${ARTIFACTS}${label.replaceAll("/", "-")}.jpg` } : {}),
        });
      }
    }
  }

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it("draws every corpus README in at least three designs, every design at least once, some in both schemes", () => {
    for (const fixture of README_CORPUS) expect([...drawn.values()].filter((ids) => ids.has(fixture.id)).length, fixture.id).toBeGreaterThanOrEqual(3);
    expect(DESIGNS.filter((design) => !drawn.has(design.id)).map((design) => design.id)).toEqual([]);
    const both = README_CORPUS.filter((fixture) => [...schemesSeen].some((key) => key.startsWith(`${fixture.id}/`) && schemesSeen.has(key.replace(/\/light$/, "/dark")) && key.endsWith("/light")));
    expect(both).toHaveLength(Math.ceil(README_CORPUS.length / 2));
  });

  it("draws the shapes the sample pages lack: one feature, a section of only code, a table or a picture, eight columns, a long command, a Download link, a hero picture, one question", () => {
    const landing = edge!.pages.template as LandingContent;
    const about = edge!.pages.about as AboutContent;
    const sections = [...landing.sections, ...about.sections];
    expect(landing.features).toHaveLength(1);
    expect(landing.sections.some((section) => !section.body && section.code && section.code.length > 100)).toBe(true);
    expect(sections.some((section) => !section.body && section.table?.header.length === 8)).toBe(true);
    expect(sections.some((section) => !section.body && section.image && !section.table)).toBe(true);
    expect(landing.hero.primary_cta.href).toMatch(/^https:/);
    expect(landing.hero.image).toBeDefined();
    expect((edge!.pages.faq as FaqContent).items).toHaveLength(1);
    expect(jobs.filter((job) => job.path.startsWith(`/${edgeReadme.id}/`) && job.foldCta).length).toBe(DESIGNS.length);
  });

  it("the checks catch what they look for: low contrast, sideways scroll, a broken word, a low call to action, two h1, empty boxes", async () => {
    const bad = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bad</title></head><body><main>
<h1>One</h1><h1>Two</h1><p style="color:#777;background:#888">Faint words</p>
<p style="width:1500px">Too wide</p><p style="width:3ch;overflow-wrap:anywhere;line-height:1">Unbreakable</p>
<p></p><h3> </h3><section></section><section><img alt="a picture" src="${screenshotPng()}"></section>
<div style="height:900px"></div><a href="/">Go now</a></main></body></html>`;
    const trial = new Map([["/bad", bad]]);
    const problems = await checkPages(browser, served, trial, [{ path: "/bad", label: "bad", width: WIDTHS[0], axe: true, words: true, foldCta: "Go now" }], 1);
    const text = problems.join("\n");
    expect(text).toContain("bad: color-contrast");
    expect(text).toContain("bad: scrolls sideways");
    expect(text).toContain('bad: word broken "Unbreakable"');
    expect(text).toMatch(/bad: primary call to action ends at \d+px, below the fold/);
    expect(text).toContain("bad: 2 <h1> elements");
    for (const box of ["main > p", "main > h3", "main > section"]) expect(problems).toContain(`bad: empty box drawn, ${box}`);
    expect(problems.filter((line) => line.includes("empty box"))).toHaveLength(3);
  });

  it("meets WCAG AA, keeps the call to action above the fold, breaks no word and draws no empty box, on every README site", async () => {
    const problems = await checkPages(browser, served, pages, jobs, 6);
    writeFileSync(`${ARTIFACTS}problems.txt`, problems.join("\n") + "\n");
    expect(problems, `${problems.length} problems:\n${problems.slice(0, 200).join("\n")}`).toEqual([]);
  }, 90_000);
});
