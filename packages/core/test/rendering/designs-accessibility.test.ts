import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { launchBrowser, samplePages, sampleSite, STRESS_NAME, stressLanding } from "@reposite/test-support";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESIGNS } from "../../src/designs/index.js";
import type { LandingContent } from "../../src/generation/page-content.js";
import type { ColorMode } from "../../src/projects/project.js";
import { renderPage } from "../../src/rendering/index.js";
import { checkPages, servePages, WIDTHS, type CheckJob } from "./chromium-checks.js";

/**
 * Every design × page kind (landing, about, FAQ, sign-in) × scheme (light, dark) at 1280 and 390
 * CSS pixels wide, in one headless Chromium, several pages at once, with the checks of
 * `chromium-checks.ts`: WCAG A/AA with axe-core, the fold (with a tagline of 100 characters), no
 * sideways scrolling, no word broken mid-word (also on a stress page with a 35-letter product name
 * and very long words at 390 px, which must fit by font size), one h1 and no empty boxes.
 * Failures are listed by design/page/scheme/width with the offending selector.
 *
 * Screenshots are kept as test artifacts for people to look at, in `test-artifacts/designs/` at the
 * repository root (ignored by git): the landing page of every design in both schemes at both widths,
 * full length; every page with REPOSITE_DESIGN_SCREENSHOTS=all.
 */
const ARTIFACTS = fileURLToPath(new URL("../../../../test-artifacts/designs/", import.meta.url));
const SAVE_ALL = process.env.REPOSITE_DESIGN_SCREENSHOTS === "all";
const PARALLEL = 4;
const KINDS = ["template", "about", "faq", "auth"] as const;
const SCHEMES: { name: "light" | "dark"; colorMode: ColorMode }[] = [
  { name: "light", colorMode: "Light mode" },
  { name: "dark", colorMode: "Dark mode" },
];
const REPO = "https://github.com/lumen-dev/lumen";

/** A tagline of exactly 100 characters: the longest the fold promise covers. */
const TAGLINE = "Lumen checks your sites, APIs and cron jobs every thirty seconds and keeps your status page honest.";
/** A headline at the schema's longest, 90 characters. */
const LONG_TITLE = "Status pages and uptime checks your users actually trust, hosted on your own small server";

/** The landing page checked everywhere: the longest headline over a 100-character tagline. */
const foldLanding: LandingContent = {
  ...samplePages.template,
  hero: { ...samplePages.template.hero, title: LONG_TITLE, subtitle: TAGLINE },
};
/** The same with a short headline, which designs set at their largest: checked for the fold only. */
const shortTitleLanding: LandingContent = {
  ...samplePages.template,
  hero: { ...samplePages.template.hero, subtitle: TAGLINE },
};

describe("designs are accessible in Chromium", () => {
  const pages = new Map<string, string>();
  const jobs: CheckJob[] = [];
  let served: Awaited<ReturnType<typeof servePages>>;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const only = process.env.REPOSITE_DESIGNS?.split(",");
    for (const design of DESIGNS.filter((d) => !only || only.includes(d.id))) {
      for (const scheme of SCHEMES) {
        const site = sampleSite({
          type: design.type,
          repositoryUrl: REPO,
          colorMode: scheme.colorMode,
        });
        for (const kind of KINDS) {
          const path = `/${design.id}/${scheme.name}/${kind}`;
          pages.set(path, renderPage(design, kind === "template" ? foldLanding : samplePages[kind], site));
          for (const width of WIDTHS) {
            const shoot = kind === "template" || SAVE_ALL;
            jobs.push({
              path,
              label: `${design.id}/${kind}/${scheme.name}/${width.name}`,
              width,
              axe: true,
              words: true,
              ...(kind === "template" && width.name === "1280" ? { foldCta: foldLanding.hero.primary_cta.label } : {}),
              ...(shoot
                ? {
                    screenshot: `${ARTIFACTS}${design.id}-${kind}-${scheme.name}-${width.name}.png`,
                  }
                : {}),
            });
          }
        }
        const short = `/${design.id}/${scheme.name}/short-title`;
        pages.set(short, renderPage(design, shortTitleLanding, site));
        jobs.push({
          path: short,
          label: `${design.id}/short-title/${scheme.name}/1280`,
          width: WIDTHS[0],
          foldCta: shortTitleLanding.hero.primary_cta.label,
          axe: false,
          words: false,
        });
        const stress = `/${design.id}/${scheme.name}/stress`;
        pages.set(stress, renderPage(design, stressLanding, { ...site, name: STRESS_NAME }));
        jobs.push({
          path: stress,
          label: `${design.id}/stress/${scheme.name}/390`,
          width: WIDTHS[1],
          axe: false,
          words: true,
          ...(SAVE_ALL ? { screenshot: `${ARTIFACTS}${design.id}-stress-${scheme.name}-390.png` } : {}),
        });
      }
    }
    served = await servePages(pages);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it("meets WCAG AA, keeps the call to action above the fold and breaks no word, in every design, page, scheme and width", async () => {
    const problems = await checkPages(browser, served, pages, jobs, PARALLEL);
    writeFileSync(`${ARTIFACTS}problems.txt`, problems.join("\n") + "\n");
    expect(problems, `${problems.length} problems:\n${problems.slice(0, 200).join("\n")}`).toEqual([]);
  }, 240_000);
});
