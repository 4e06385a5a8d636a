import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCREENSHOT_DIR, startBrowserRig, type BrowserRig } from "./setup.js";

// /docs/api as people read it: docs/http-api.md has one-line JSON examples far wider than a
// screen; they scroll in their own box, and the page itself never scrolls sideways.
describe("the API reference page in Chromium", () => {
  let rig: BrowserRig;
  beforeAll(async () => {
    rig = await startBrowserRig();
  });
  afterAll(() => rig?.close());

  it.each([1280, 390])("at %i px: no sideways scroll, one h1, wide code scrolls in its own box", async (width) => {
    const context = await rig.browser.newContext({ baseURL: rig.url, viewport: { width, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto("/docs/api");
      const seen = await page.evaluate(() => {
        const root = document.documentElement;
        const wide = [...document.querySelectorAll("main *")]
          .filter((element) => element.getBoundingClientRect().right > window.innerWidth)
          .filter((element) => !element.closest("pre, .table-wrap"))
          .slice(0, 3)
          .map((element) => `<${element.tagName.toLowerCase()}> ${element.textContent?.slice(0, 60)}`);
        const blocks = [...document.querySelectorAll("pre")];
        return {
          scrollWidth: root.scrollWidth,
          innerWidth: window.innerWidth,
          wide,
          h1: [...document.querySelectorAll("h1")].map((heading) => heading.textContent),
          scrollingBlocks: blocks.filter((block) => block.scrollWidth > block.clientWidth && getComputedStyle(block).overflowX === "auto").length,
        };
      });
      await page.screenshot({ path: `${SCREENSHOT_DIR}/api-reference-${width}.png` });
      expect(seen.scrollWidth, seen.wide.join("\n")).toBeLessThanOrEqual(seen.innerWidth);
      expect(seen.wide).toEqual([]);
      expect(seen.h1).toEqual(["HTTP API"]);
      expect(seen.scrollingBlocks).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  });
});
