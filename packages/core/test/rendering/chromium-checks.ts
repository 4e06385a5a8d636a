import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import axe from "axe-core";
import type { Browser, Page } from "playwright-core";

/**
 * Checks rendered pages in headless Chromium, shared by the designs' accessibility test and the
 * README sites test. Each page is checked for:
 * - WCAG 2.0/2.1 A and AA with axe-core (colour contrast of every text, code included);
 * - the fold: at 1280×800 the landing page's primary call to action ends at most 800 px down;
 * - no sideways scrolling;
 * - no word broken mid-word (a word's text Range drawn on two lines);
 * - one `<h1>`, and no empty paragraph, heading, section or list item drawn (an empty field
 *   rendered as an empty box).
 * Problems are returned as lines labelled design/page/scheme/width with the offending selector.
 */

export const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** The two screens every page is checked at. */
export const WIDTHS = [
  { name: "1280", width: 1280, height: 800 },
  { name: "390", width: 390, height: 844 },
] as const;

export type Screen = (typeof WIDTHS)[number];

export interface CheckJob {
  /** Key of the page's markup in the map given to `checkPages`. */
  path: string;
  /** How problems name the page: design/page/scheme/width. */
  label: string;
  width: Screen;
  /** Label of the hero's primary button, for the fold check; landing pages at 1280 only. */
  foldCta?: string;
  /** Run axe-core; off for variations of a page axe checks already. */
  axe: boolean;
  /** Look for words broken mid-word. */
  words: boolean;
  /** Full path of a full-length screenshot to save, if any: PNG, or JPEG when it ends in `.jpg`. */
  screenshot?: string;
}

interface Checked {
  overflow: string | null;
  broken: string[];
  ctaBottom: number | null;
  h1: number;
  empty: string[];
}

/** Runs in the page: sideways overflow, words drawn on two lines, the primary button's bottom, h1s, empty boxes. */
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
      // A line break inside the word puts a part lower and further left than the end of the part
      // before it. Lines may overlap (with a tight line height the glyph boxes are taller than the
      // line), so "lower" is more than half a line; a drop cap spans several lines, but the rest of
      // its word sits to its right.
      const wrapped = rects.some((a) => rects.some((b) => b.top >= a.top + 0.5 * Math.min(a.height, b.height) && b.left < a.right - 1));
      if (wrapped) broken.push(`"${match[0]}" in ${describe(parent)}`);
    }
  }
  let ctaBottom: number | null = null;
  if (foldCta) {
    const cta = [...document.querySelectorAll("main a, main button")].find((el) => el.textContent?.trim() === foldCta && el.getBoundingClientRect().width > 0);
    ctaBottom = cta ? cta.getBoundingClientRect().bottom + window.scrollY : Number.POSITIVE_INFINITY;
  }
  // A box that holds neither text nor anything drawn (picture, table, code, control) came from an empty field.
  const content = "img, svg, picture, video, canvas, iframe, table, pre, input, select, textarea, button";
  const empty = [...document.body.querySelectorAll("p, h1, h2, h3, h4, h5, h6, section, article, li, figure, figcaption, blockquote, dd, dt")]
    .filter((el) => el.getClientRects().length > 0 && !el.textContent?.trim() && !el.querySelector(content))
    .map(describe);
  return { overflow, broken, ctaBottom, h1: document.querySelectorAll("h1").length, empty };
}

/** Serves the pages at their paths on 127.0.0.1 (and an empty page at `/blank`), so they have a real origin. */
export async function servePages(pages: Map<string, string>): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const body = req.url === "/blank" ? "<!doctype html><title>blank</title>" : pages.get(req.url ?? "");
    res.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8" }).end(body ?? "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function check(page: Page, body: string, job: CheckJob): Promise<string[]> {
  if (page.viewportSize()?.width !== job.width.width) await page.setViewportSize({ width: job.width.width, height: job.width.height });
  // The page is written into a document that already has axe-core: parsing axe for every page would
  // cost more than checking it. document.open() keeps the window (and axe) and replaces the document.
  await page.evaluate(async (html) => {
    document.open();
    document.write(html);
    document.close();
    // Pictures are drawn before anything is measured: a lazy one below the fold would otherwise
    // stay empty, and a hero picture may push the call to action down.
    for (const img of document.images) img.loading = "eager";
    await Promise.all([...document.images].map((img) => img.decode().catch(() => undefined)));
  }, body);
  const problems: string[] = [];
  const violations = !job.axe
    ? []
    : await page.evaluate(
        async (tags) =>
          (await window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] })).violations.map((v) => ({
            id: v.id,
            nodes: v.nodes.map((n) => `${n.target.join(" ")}${n.any[0]?.message ? ` — ${n.any[0].message}` : ""}`),
          })),
        AXE_TAGS,
      );
  for (const violation of violations) for (const node of violation.nodes) problems.push(`${job.label}: ${violation.id} ${node}`);
  const checked = await page.evaluate(checkInPage, job.foldCta ?? null);
  if (checked.overflow) problems.push(`${job.label}: scrolls sideways, ${checked.overflow}`);
  for (const word of job.words ? checked.broken : []) problems.push(`${job.label}: word broken ${word}`);
  if (checked.ctaBottom !== null && checked.ctaBottom > job.width.height) {
    problems.push(`${job.label}: primary call to action ends at ${Math.round(checked.ctaBottom)}px, below the fold (${job.width.height}px)`);
  }
  if (checked.h1 !== 1) problems.push(`${job.label}: ${checked.h1} <h1> elements, one expected`);
  for (const box of checked.empty) problems.push(`${job.label}: empty box drawn, ${box}`);
  if (job.screenshot) writeFileSync(job.screenshot, await fullLength(page, job.width, job.screenshot.endsWith(".jpg")));
  return problems;
}

/**
 * A screenshot of the whole page: the window made as tall as the page, two frames awaited.
 * JPEG when asked for: several times faster to encode than PNG for long pages.
 */
async function fullLength(page: Page, screen: Screen, jpeg: boolean): Promise<Buffer> {
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: screen.width, height: Math.max(height, screen.height) });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const shot = await page.screenshot(jpeg ? { type: "jpeg", quality: 80 } : {});
  await page.setViewportSize({ width: screen.width, height: screen.height });
  return shot;
}

/**
 * Checks every job, `parallel` pages at once, and returns the problems sorted. Each page has a
 * browser context (a window) of its own: pages sharing a window are tabs, and a tab behind the
 * others is not drawn, so its screenshot would show an old frame (the first screen repeated down and
 * across the picture). Nothing leaves the pages' origin: a stray request fails at once.
 */
export async function checkPages(browser: Browser, served: { origin: string }, pages: Map<string, string>, jobs: CheckJob[], parallel = 4): Promise<string[]> {
  const problems: string[] = [];
  const queue = [...jobs];
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      const context = await browser.newContext({ deviceScaleFactor: 1, viewport: { width: 1280, height: 800 } });
      await context.route("**/*", (route) => (route.request().url().startsWith(served.origin) ? route.continue() : route.abort()));
      const page = await context.newPage();
      await page.goto(`${served.origin}/blank`);
      await page.addScriptTag({ content: axe.source });
      for (let job = queue.shift(); job; job = queue.shift()) problems.push(...(await check(page, pages.get(job.path)!, job)));
      await context.close();
    }),
  );
  return problems.sort();
}

declare global {
  interface Window {
    axe: typeof axe;
  }
}
