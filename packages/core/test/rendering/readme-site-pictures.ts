import { PNG } from "pngjs";
import type { PageContent } from "../../src/generation/page-content.js";

/**
 * Pictures for drawing README sites in Chromium: the README's pictures are remote addresses until
 * the copier stores them on the site, so each becomes a `data:` PNG (as the copier makes it a site
 * path) to be drawn and measured. Shared by the README-site tests.
 */

/** A 960×600 screenshot-like picture (bands and a panel), as a `data:` PNG. */
export function screenshotPng(): string {
  const png = new PNG({ width: 960, height: 600 });
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * 4;
      const bar = y < 48;
      const panel = x > 40 && x < 280 && y > 80 && y < 560;
      const shade = bar ? 60 : panel ? 225 : 245 - Math.round((y / png.height) * 30);
      png.data[i] = shade;
      png.data[i + 1] = bar ? 90 : shade;
      png.data[i + 2] = bar ? 160 : Math.min(255, shade + (panel ? 0 : 8));
      png.data[i + 3] = 255;
    }
  }
  return `data:image/png;base64,${PNG.sync.write(png).toString("base64")}`;
}

/** The page with every picture's remote address replaced by `src`, as the copier replaces it by a site path. */
export function withCopiedPictures(content: PageContent, src: string): PageContent {
  return JSON.parse(JSON.stringify(content), (key, value) => (key === "image" && value && typeof value === "object" ? { ...value, src } : value)) as PageContent;
}
