import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { launchBrowser, REAL_READMES, readmeSitePages } from "@reposite/test-support";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESIGNS, type Design } from "../../src/designs/index.js";
import type { PageKind } from "../../src/projects/project.js";
import { renderPage } from "../../src/rendering/index.js";
import { checkPages, servePages, WIDTHS, type CheckJob } from "./chromium-checks.js";
import { screenshotPng, withCopiedPictures } from "./readme-site-pictures.js";

/**
 * Issue 23, proof in a browser: the sites the README author writes from the real READMEs
 * (`test-support/src/readme-corpus/real/`), each drawn in three designs (one of each design type,
 * rotating, so every design draws several) with the design's project type, checked in headless
 * Chromium with `chromium-checks.ts` at 1280×800 and 390×844: WCAG A/AA with axe (contrast
 * included), the primary call to action above the fold, no sideways scroll, no word broken
 * mid-word, one h1, no empty box. A landing-type design draws the landing page alone, as a landing
 * site has it.
 *
 * Screenshots of every landing page at both widths, full length, are kept in
 * `test-artifacts/real-readme-sites/` at the repository root (ignored by git), with `problems.txt`.
 */
const ARTIFACTS = fileURLToPath(new URL("../../../../test-artifacts/real-readme-sites/", import.meta.url));

/** Three designs per README, one of each type, rotating through the catalogue. */
function designsFor(index: number): Design[] {
  const ofType = (type: Design["type"]) => DESIGNS.filter((design) => design.type === type);
  return [ofType("saas"), ofType("website"), ofType("landing")].map((list) => list[index % list.length]!);
}

describe("real README sites in three designs each, in Chromium", () => {
  const pages = new Map<string, string>();
  const jobs: CheckJob[] = [];
  const drawn = new Map<string, number>();
  let served: Awaited<ReturnType<typeof servePages>>;
  let browser: Browser;

  beforeAll(async () => {
    rmSync(ARTIFACTS, { recursive: true, force: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    const picture = screenshotPng();
    for (const [index, entry] of REAL_READMES.entries()) {
      for (const design of designsFor(index)) {
        const site = await readmeSitePages(entry, design.type);
        const kinds: PageKind[] = design.type === "landing" ? ["template"] : site.kinds;
        for (const kind of kinds) {
          const page = withCopiedPictures(site.pages[kind]!, picture);
          const path = `/${entry.id}/${design.id}/${kind}`;
          const html = renderPage(design, page, {
            name: entry.product.name,
            logoUrl: "",
            colorMode: "",
            type: design.type,
            repositoryUrl: entry.product.repositoryUrl,
            appPath: "/app/",
            pages: kinds,
            community: false,
            year: 2025,
          });
          pages.set(path, html);
          for (const width of WIDTHS) {
            const label = `${entry.id}/${design.id}/${kind}/${width.name}`;
            jobs.push({
              path,
              label,
              width,
              // The sign-in page is the same form for every README (the designs' own test checks it); its layout is still measured.
              axe: kind !== "auth",
              words: true,
              ...(page.kind === "template" && width.name === "1280" ? { foldCta: page.hero.primary_cta.label } : {}),
              ...(kind === "template" ? { screenshot: `${ARTIFACTS}${label.replaceAll("/", "-")}.jpg` } : {}),
            });
          }
        }
        drawn.set(entry.id, (drawn.get(entry.id) ?? 0) + 1);
      }
    }
    served = await servePages(pages);
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it("draws every real README in three designs, one of each type", () => {
    expect(REAL_READMES.length).toBeGreaterThanOrEqual(30);
    for (const entry of REAL_READMES) expect(drawn.get(entry.id), entry.id).toBe(3);
  });

  it("meets WCAG AA, keeps the call to action above the fold, never scrolls sideways and breaks no word, on every real README site", async () => {
    const problems = await checkPages(browser, served, pages, jobs, 4);
    writeFileSync(`${ARTIFACTS}problems.txt`, problems.join("\n") + "\n");
    expect(problems, `${problems.length} problems:\n${problems.slice(0, 200).join("\n")}`).toEqual([]);
  }, 600_000);
});
