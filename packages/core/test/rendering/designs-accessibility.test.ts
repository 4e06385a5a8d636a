import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { launchBrowser, samplePages, sampleSite } from "@reposite/test-support";
import axe from "axe-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESIGNS } from "../../src/designs/index.js";
import type { LandingContent } from "../../src/generation/page-content.js";
import type { ColorMode } from "../../src/projects/project.js";
import { renderPage } from "../../src/rendering/index.js";

/**
 * Every design × page kind (landing, about, FAQ, sign-in) × scheme (light, dark) at 1280 and 390
 * CSS pixels wide, in one headless Chromium, several pages at once. Each page is checked for:
 * - WCAG 2.0/2.1 A and AA with axe-core (colour contrast of every text, code included);
 * - the fold: at 1280×800 the landing page's primary call to action ends at most 800 px down,
 *   with a tagline of 100 characters;
 * - no sideways scrolling;
 * - no word broken mid-word (a word's text Range drawn on two lines), also on a stress page with a
 *   35-letter product name and very long words at 390 px, which must fit by font size.
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
const WIDTHS = [
  { name: "1280", width: 1280, height: 800 },
  { name: "390", width: 390, height: 844 },
] as const;
const REPO = "https://github.com/lumen-dev/lumen";
const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

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

/** Worst-case text for a phone: a 35-letter one-word name, long words and titles at their longest. */
const STRESS_NAME = "Hyperconvergedinfrastructuremonitor";
const stressLanding: LandingContent = {
  ...samplePages.template,
  hero: {
    ...samplePages.template.hero,
    title: "Supercalifragilisticexpialidocious observability for kubernetes-operators everywhere",
    primary_cta: { label: "Start your free self-hosted trial" },
    secondary_cta: { label: "Read the installation guide" },
  },
  features: Array.from({ length: 8 }, (_, i) => ({
    title: `Internationalization-ready dashboards number ${i + 1} of eight`,
    body: "Configuration lives in `~/.config/hyperconverged/infrastructure-monitor/dashboards.d/production-eu-west-1.yaml` beside the rest.",
  })),
  sections: [
    ...samplePages.template.sections,
    {
      title: "A very long command line",
      body: "Copy this:",
      code: `docker run --rm -it -p 8080:8080 -v "$PWD/config:/etc/${STRESS_NAME}" ghcr.io/example/${STRESS_NAME}:latest --verbose`,
    },
  ],
};

interface Job {
  path: string;
  label: string;
  width: (typeof WIDTHS)[number];
  /** Label of the hero's primary button, for the fold check; landing pages at 1280 only. */
  foldCta?: string;
  /** Run axe-core; off for variations of a page axe checks already (the stress and short-title landings). */
  axe: boolean;
  /** Look for words broken mid-word. */
  words: boolean;
  screenshot?: string;
}

interface Checked {
  overflow: string | null;
  broken: string[];
  ctaBottom: number | null;
}

/** Runs in the page: sideways overflow, words drawn on two lines, the primary button's bottom. */
function checkInPage(foldCta: string | null): Checked {
  const describe = (el: Element) => {
    const classes = [...el.classList].map((c) => `.${c}`).join("");
    const parent = el.parentElement;
    return `${parent ? `${parent.tagName.toLowerCase()}${[...parent.classList].map((c) => `.${c}`).join("")} > ` : ""}${el.tagName.toLowerCase()}${classes}`;
  };
  const root = document.documentElement;
  let overflow: string | null = null;
  if (root.scrollWidth > window.innerWidth) {
    const wide = [...document.body.querySelectorAll("*")].find((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5);
    overflow = `${root.scrollWidth}px wide (${wide ? describe(wide) : "?"})`;
  }
  const broken: string[] = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    const parent = node.parentElement;
    // Code may break anywhere (paths, commands); it is not made of words.
    if (!parent || parent.closest("pre, code, kbd, samp, script, style")) continue;
    for (const match of node.data.matchAll(/[\p{L}\p{N}']{2,}/gu)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
      if (rects.length < 2) continue;
      // Parts of a word on one line overlap vertically (a drop cap spans several lines beside the rest);
      // a part wholly below another is a line break inside the word.
      const wrapped = rects.some((a) => rects.some((b) => b.top >= a.bottom - 1));
      if (wrapped) broken.push(`"${match[0]}" in ${describe(parent)}`);
    }
  }
  let ctaBottom: number | null = null;
  if (foldCta) {
    const cta = [...document.querySelectorAll("main a, main button")].find((el) => el.textContent?.trim() === foldCta && el.getBoundingClientRect().width > 0);
    ctaBottom = cta ? cta.getBoundingClientRect().bottom + window.scrollY : Number.POSITIVE_INFINITY;
  }
  return { overflow, broken, ctaBottom };
}

describe("designs are accessible in Chromium", () => {
  const pages = new Map<string, string>();
  const jobs: Job[] = [];
  let server: Server;
  let origin: string;
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
                    screenshot: `${design.id}-${kind}-${scheme.name}-${width.name}.png`,
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
          ...(SAVE_ALL ? { screenshot: `${design.id}-stress-${scheme.name}-390.png` } : {}),
        });
      }
    }
    server = createServer((req, res) => {
      const body = req.url === "/blank" ? "<!doctype html><title>blank</title>" : pages.get(req.url ?? "");
      res
        .writeHead(body ? 200 : 404, {
          "content-type": "text/html; charset=utf-8",
        })
        .end(body ?? "not found");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function check(page: Page, job: Job): Promise<string[]> {
    if (page.viewportSize()?.width !== job.width.width)
      await page.setViewportSize({
        width: job.width.width,
        height: job.width.height,
      });
    // The page is written into a document that already has axe-core: parsing axe for every page would
    // cost more than checking it. document.open() keeps the window (and axe) and replaces the document.
    const body = pages.get(job.path)!;
    await page.evaluate((html) => {
      document.open();
      document.write(html);
      document.close();
    }, body);
    const problems: string[] = [];
    const violations = !job.axe
      ? []
      : await page.evaluate(
          async (tags) =>
            (
              await window.axe.run(document, {
                runOnly: { type: "tag", values: tags },
                resultTypes: ["violations"],
              })
            ).violations.map((v) => ({
              id: v.id,
              nodes: v.nodes.map((n) => `${n.target.join(" ")}${n.any[0]?.message ? ` — ${n.any[0].message}` : ""}`),
            })),
          AXE_TAGS
        );
    for (const violation of violations) for (const node of violation.nodes) problems.push(`${job.label}: ${violation.id} ${node}`);
    const checked = await page.evaluate(checkInPage, job.foldCta ?? null);
    if (checked.overflow) problems.push(`${job.label}: scrolls sideways, ${checked.overflow}`);
    for (const word of job.words ? checked.broken : []) problems.push(`${job.label}: word broken ${word}`);
    if (checked.ctaBottom !== null && checked.ctaBottom > job.width.height) {
      problems.push(`${job.label}: primary call to action ends at ${Math.round(checked.ctaBottom)}px, below the fold (${job.width.height}px)`);
    }
    if (job.screenshot) writeFileSync(ARTIFACTS + job.screenshot, await page.screenshot({ fullPage: true }));
    return problems;
  }

  it("meets WCAG AA, keeps the call to action above the fold and breaks no word, in every design, page, scheme and width", async () => {
    const context = await browser.newContext({
      deviceScaleFactor: 1,
      viewport: { width: 1280, height: 800 },
    });
    // Nothing leaves the page's origin: a stray request fails at once instead of hanging.
    await context.route("**/*", (route) => (route.request().url().startsWith(origin) ? route.continue() : route.abort()));
    const problems: string[] = [];
    const queue = [...jobs];
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        const page = await context.newPage();
        await page.goto(`${origin}/blank`);
        await page.addScriptTag({ content: axe.source });
        for (let job = queue.shift(); job; job = queue.shift()) problems.push(...(await check(page, job)));
        await page.close();
      })
    );
    await context.close();
    problems.sort();
    writeFileSync(`${ARTIFACTS}problems.txt`, problems.join("\n") + "\n");
    expect(problems, `${problems.length} problems:\n${problems.slice(0, 200).join("\n")}`).toEqual([]);
  }, 240_000);
});

declare global {
  interface Window {
    axe: typeof axe;
  }
}
