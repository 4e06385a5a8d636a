import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { launchBrowser, samplePages, sampleSite, STRESS_NAME, stressLanding } from "@reposite/test-support";
import pixelmatch from "pixelmatch";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESIGNS, type Design } from "../../src/designs/index.js";
import { renderNotFoundPage, renderPage } from "../../src/rendering/index.js";

/**
 * Every design, every page kind, at a desktop and a phone width, in headless Chromium, served from
 * a loopback server so "its own origin" is a real origin. Landing pages are screenshotted and
 * compared pairwise: no two designs may look alike.
 *
 * Likeness measure: each first-screen screenshot of the landing page (1280×800 or 390×844) is
 * shrunk to a thumbnail of 8×8-pixel block averages (160×100 or 48×105 cells), which keeps the
 * arrangement and the colours but not the letters; the score is the share of cells that differ
 * between two thumbnails (pixelmatch, YIQ colour distance threshold 0.1). Pixel-exact comparison is
 * dominated by empty background, so two very different airy white pages would score low; blocks
 * make a line of text and a blank line differ. Two designs must differ in at least
 * MIN_DIFFERENT_SHARE of the cells at each width. The test proves the measure has teeth on three
 * look-alikes made on purpose (a design with another accent, with another design's palette and
 * fonts, with other fonts): each must score below the minimum. When this was written the look-alikes
 * scored at most about 5% and the closest real pair about 14%.
 */
const MIN_DIFFERENT_SHARE = 0.1;
const BLOCK = 8;
const SCREENSHOT_DIR = "/tmp/reposite-designs";
/** Set REPOSITE_DESIGN_SCREENSHOTS=all to also save full-page shots of the about, FAQ, auth and 404 pages. */
const SAVE_ALL = process.env.REPOSITE_DESIGN_SCREENSHOTS === "all";
const KINDS = ["template", "about", "faq", "auth"] as const;
const WIDTHS = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;
const REPO = "https://github.com/lumen-dev/lumen";

/** A 1×1 PNG, served as a same-origin logo. */
const LOGO_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

function pathOf(id: string, kind: string): string {
  return `/${id}/${kind === "template" ? "" : kind}`;
}

function byId(id: string): Design {
  return DESIGNS.find((d) => d.id === id)!;
}

/** Look-alikes made on purpose, to show the likeness measure catches them: [name, original, twin]. */
function lookAlikes(): [string, string, Design][] {
  const datagrid = byId("datagrid");
  const pipeline = byId("pipeline");
  const commons = byId("commons");
  const atelier = byId("atelier");
  return [
    ["datagrid with another accent", "datagrid", { ...datagrid, look: { ...datagrid.look, palette: { ...datagrid.look.palette, accent: "#0f766e" } } }],
    ["pipeline with commons' palette and fonts", "pipeline", { ...pipeline, look: { ...pipeline.look, palette: commons.look.palette, typography: commons.look.typography } }],
    ["atelier with other fonts", "atelier", { ...atelier, look: { ...atelier.look, typography: { ...atelier.look.typography, headingFont: "sans-serif", bodyFont: "sans-serif" } } }],
  ];
}

/** 8×8 block averages of a screenshot: arrangement and colour without the letters. */
function thumbnail(png: PNG): { width: number; height: number; data: Uint8Array } {
  const width = Math.floor(png.width / BLOCK);
  const height = Math.floor(png.height / BLOCK);
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sum = [0, 0, 0];
      for (let dy = 0; dy < BLOCK; dy++) {
        for (let dx = 0; dx < BLOCK; dx++) {
          const i = ((y * BLOCK + dy) * png.width + x * BLOCK + dx) * 4;
          for (let c = 0; c < 3; c++) sum[c]! += png.data[i + c]!;
        }
      }
      const o = (y * width + x) * 4;
      for (let c = 0; c < 3; c++) data[o + c] = Math.round(sum[c]! / (BLOCK * BLOCK));
      data[o + 3] = 255;
    }
  }
  return { width, height, data };
}

type Thumbnail = ReturnType<typeof thumbnail>;

/** Share of thumbnail cells that differ: 0 for identical screens, 1 for nothing in common. */
function difference(a: Thumbnail, b: Thumbnail): number {
  return pixelmatch(a.data, b.data, undefined, a.width, a.height, { threshold: 0.1, includeAA: true }) / (a.width * a.height);
}

describe("designs in Chromium", { timeout: 60_000 }, () => {
  const pages = new Map<string, string>();
  let server: Server;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Every request the page made, including ones the route below refused. */
  let requested: string[] = [];
  /** First-screen landing thumbnails, by width name, then design id (or `twin:<n>` for the look-alikes). */
  const shots = new Map<string, Map<string, Thumbnail>>(WIDTHS.map((w) => [w.name, new Map()]));

  beforeAll(async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    for (const design of DESIGNS) {
      const site = sampleSite({ type: design.type, repositoryUrl: REPO });
      for (const kind of KINDS) pages.set(pathOf(design.id, kind), renderPage(design, samplePages[kind], site));
      pages.set(`/${design.id}/missing`, renderNotFoundPage(design, site));
      pages.set(`/${design.id}/stress`, renderPage(design, stressLanding, { ...site, name: STRESS_NAME }));
    }
    lookAlikes().forEach(([, , twin], n) => pages.set(`/twin/${n}`, renderPage(twin, samplePages.template, sampleSite({ type: twin.type, repositoryUrl: REPO }))));
    // Logos: one on the site itself (loaded), one on another host (never requested: the monogram shows).
    const neural = DESIGNS.find((d) => d.id === "neural")!;
    pages.set("/logo/local", renderPage(neural, samplePages.template, sampleSite({ logoUrl: "/logo.png" })));
    pages.set("/logo/remote", renderPage(neural, samplePages.template, sampleSite({ logoUrl: "https://cdn.example.com/logo.png" })));
    server = createServer((req, res) => {
      if (req.url === "/logo.png") {
        res.writeHead(200, { "content-type": "image/png" }).end(LOGO_PNG);
        return;
      }
      const body = pages.get(req.url ?? "");
      res.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8" }).end(body ?? "not found");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    context = await browser.newContext({ deviceScaleFactor: 1, viewport: { width: 1280, height: 800 } });
    // Anything off the page's origin is recorded and refused, so a stray request fails fast instead of hanging.
    await context.route("**/*", (route) => {
      const url = route.request().url();
      return new URL(url).origin === origin ? route.continue() : route.abort();
    });
    page = await context.newPage();
    page.on("request", (request) => requested.push(request.url()));
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** Loads a page; returns the requests it made to other origins (none expected). */
  async function load(path: string): Promise<string[]> {
    requested = [];
    const response = await page.goto(origin + path, { waitUntil: "load" });
    expect(response?.status(), path).toBe(200);
    return requested.filter((url) => !url.startsWith("data:") && new URL(url).origin !== origin);
  }

  for (const viewport of WIDTHS) {
    it(`renders every design and page kind at ${viewport.name} width (${viewport.width}px) without foreign requests or overflow`, async () => {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      const problems: string[] = [];
      for (const design of DESIGNS) {
        const kinds = [...KINDS, viewport.name === "desktop" ? "missing" : "stress"];
        for (const kind of kinds) {
          const path = kind === "missing" || kind === "stress" ? `/${design.id}/${kind}` : pathOf(design.id, kind);
          for (const url of await load(path)) problems.push(`${path} requested ${url}`);
          const { scrollWidth, innerWidth, wide, h1 } = await page.evaluate(() => ({
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: window.innerWidth,
            // The first element sticking out on the right, to make an overflow easy to fix.
            wide: [...document.body.querySelectorAll("*")]
              .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
              .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}`)[0],
            h1: document.querySelectorAll("h1").length,
          }));
          if (scrollWidth > innerWidth) problems.push(`${path} is ${scrollWidth}px wide at ${innerWidth}px (${wide})`);
          if (h1 !== 1) problems.push(`${path} has ${h1} h1`);
          const file = (suffix: string) => join(SCREENSHOT_DIR, `${design.id}-${kind}-${viewport.name}${suffix}.png`);
          if (kind === "template") {
            const screen = await page.screenshot();
            shots.get(viewport.name)!.set(design.id, thumbnail(PNG.sync.read(screen)));
            writeFileSync(file("-screen"), screen);
            await page.screenshot({ path: file(""), fullPage: true });
          } else if (SAVE_ALL) {
            await page.screenshot({ path: file(""), fullPage: true });
          }
        }
      }
      expect(problems).toEqual([]);
      for (let n = 0; n < lookAlikes().length; n++) {
        await load(`/twin/${n}`);
        shots.get(viewport.name)!.set(`twin:${n}`, thumbnail(PNG.sync.read(await page.screenshot())));
      }
    }, 150_000);
  }

  it("loads a same-origin logo and never requests a remote one", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await load("/logo/local")).toEqual([]);
    expect(requested).toContain(`${origin}/logo.png`);
    expect(await page.locator('img[alt="Lumen logo"]').count()).toBe(1);
    expect(await load("/logo/remote")).toEqual([]);
    expect(requested).toEqual([`${origin}/logo/remote`]);
    // The sample's screenshot is an inline data: image; no logo image is drawn.
    expect(await page.locator('img[alt="Lumen logo"]').count()).toBe(0);
  });

  for (const viewport of WIDTHS) {
    it(`no two designs' landing pages look alike at ${viewport.name} width`, () => {
      const thumbs = shots.get(viewport.name)!;
      const ids = DESIGNS.map((d) => d.id);
      expect(ids.every((id) => thumbs.has(id)), "screenshots from the rendering test").toBe(true);
      // The measure catches look-alikes made on purpose.
      lookAlikes().forEach(([name, original], n) => {
        const share = difference(thumbs.get(original)!, thumbs.get(`twin:${n}`)!);
        expect(share, `look-alike "${name}" scores ${(share * 100).toFixed(1)}%`).toBeLessThan(MIN_DIFFERENT_SHARE);
      });
      const scores: { pair: string; share: number }[] = [];
      for (let i = 0; i < ids.length; i++) {
        for (let j = i + 1; j < ids.length; j++) {
          scores.push({ pair: `${ids[i]} / ${ids[j]}`, share: difference(thumbs.get(ids[i]!)!, thumbs.get(ids[j]!)!) });
        }
      }
      scores.sort((x, y) => x.share - y.share);
      const closest = scores[0]!;
      const report = scores
        .slice(0, 5)
        .map((s) => `${s.pair} ${(s.share * 100).toFixed(1)}%`)
        .join(", ");
      console.log(`[designs] ${viewport.name}: closest pairs ${report}`);
      expect(closest.share, `closest pair at ${viewport.name} width: ${closest.pair} (${(closest.share * 100).toFixed(1)}% of thumbnail cells differ)`).toBeGreaterThanOrEqual(
        MIN_DIFFERENT_SHARE,
      );
    });
  }
});
